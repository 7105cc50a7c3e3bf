// Package results reads and writes SPARQL query results: the SPARQL 1.1
// Query Results JSON, XML, CSV and TSV formats for SELECT and ASK (writers
// stream row by row), N-Triples and Turtle for CONSTRUCT and DESCRIBE graphs,
// and a readable table for terminals. The readers decode the same formats
// into a ResultSet, which the W3C conformance test uses for expected results.
package results
