PREFIX : <http://example.com/ns#>

INSERT DATA {
    :s :p <<( :a :b :c )>> .
}
