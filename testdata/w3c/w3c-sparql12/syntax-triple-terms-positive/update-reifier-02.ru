PREFIX : <http://example.com/ns#>

INSERT DATA {
    :s :p :o ~ :iri {| :y :z |}
}
