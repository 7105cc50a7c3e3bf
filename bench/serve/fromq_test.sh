#!/bin/sh
# fromq_test.sh: bench/serve/fromq.awk puts FROM before the outer query's
# WHERE or, without WHERE, before its group's brace. Expected outputs are
# written by hand; run from anywhere (CI runs it from the repository root).
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
fail=0
check() { # name, input, expected
	got=$(printf '%s\n' "$2" | awk -v g=http://g -f "$dir/fromq.awk")
	if [ "$got" != "$3" ]; then
		printf 'FAIL %s:\n--- got\n%s\n--- want\n%s\n' "$1" "$got" "$3"
		fail=1
	fi
}
check "WHERE on its own line" 'PREFIX p: <http://p#>
SELECT ?x
WHERE {
  ?x p:a ?y .
}' 'PREFIX p: <http://p#>
SELECT ?x
FROM <http://g>
WHERE {
  ?x p:a ?y .
}'
check "brace on the SELECT line" 'SELECT ?o (COUNT(?s) AS ?n) {
?s <http://p> ?o .
} GROUP BY ?o' 'SELECT ?o (COUNT(?s) AS ?n)
FROM <http://g>
{
?s <http://p> ?o .
} GROUP BY ?o'
check "WHERE on the SELECT line" 'select * where { ?s ?p ?o }' 'select *
FROM <http://g>
where { ?s ?p ?o }'
check "a variable named where" 'SELECT ?where $where WHERE { ?where ?p $where }' 'SELECT ?where $where
FROM <http://g>
WHERE { ?where ?p $where }'
check "ASK without WHERE" 'ASK { ?s ?p ?o }' 'ASK
FROM <http://g>
{ ?s ?p ?o }'
check "CONSTRUCT template before WHERE" 'CONSTRUCT { ?s ?p ?o }
WHERE { ?s ?p ?o }' 'CONSTRUCT { ?s ?p ?o }
FROM <http://g>
WHERE { ?s ?p ?o }'
check "only the outer query" 'SELECT ?n WHERE {
  { SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o } }
}' 'SELECT ?n
FROM <http://g>
WHERE {
  { SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o } }
}'
check "comment line first" '# a comment with SELECT { in it
SELECT ?s { ?s ?p ?o }' '# a comment with SELECT { in it
SELECT ?s
FROM <http://g>
{ ?s ?p ?o }'
[ $fail -eq 0 ] && echo "fromq: ok"
exit $fail
