PREFIX : <http://example.com/ns#>

INSERT DATA {
    :s :p :o {| :y :z |}
}
