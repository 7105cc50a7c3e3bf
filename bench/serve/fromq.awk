# fromq.awk: print a SPARQL query with "FROM <g>" (awk -v g=IRI) as the
# dataset clause of its outer query: before the WHERE keyword, or before
# the group's opening brace where the query omits WHERE (SELECT and ASK
# may: `SELECT ?x { … }`). PREFIX and BASE lines, comments and the lines
# after the insertion are printed as they are.
#
#   awk -v g=http://ex/graph -f bench/serve/fromq.awk query.rq
BEGIN { done = 0; form = "" }
done { print; next }
{
	line = $0
	up = toupper(line)
	if (form == "") {
		# The query form: the first keyword that is not PREFIX or BASE.
		if (match(up, /^[ \t]*(SELECT|ASK|CONSTRUCT|DESCRIBE)([^A-Z_]|$)/)) {
			form = substr(up, RSTART, RLENGTH)
			gsub(/[^A-Z]/, "", form)
			start = RSTART + RLENGTH - 1
		} else {
			print
			next
		}
	} else {
		start = 0
	}
	rest = substr(up, start + 1)
	# at: the characters of the line before the insertion; -1 for none.
	at = -1
	if (match(rest, /(^|[^A-Z_?$])WHERE([^A-Z_]|$)/)) {
		at = start + RSTART + (substr(rest, RSTART, 1) ~ /[A-Z]/ ? 0 : 1) - 1
	} else if (form != "CONSTRUCT" && (i = index(rest, "{")) > 0) {
		at = start + i - 1
	}
	if (at < 0) {
		print
		next
	}
	head = substr(line, 1, at)
	sub(/[ \t]+$/, "", head)
	if (head != "")
		print head
	print "FROM <" g ">"
	print substr(line, at + 1)
	done = 1
}
