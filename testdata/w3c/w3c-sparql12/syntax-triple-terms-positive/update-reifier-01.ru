PREFIX : <http://example.com/ns#>

INSERT DATA {
    << :a :b :c ~ :iri >> :p :o .
}
