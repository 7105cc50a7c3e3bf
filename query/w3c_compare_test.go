package query_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query/results"

	"github.com/perfkb/perfkb/ontology"
)

const rsNS = "http://www.w3.org/2001/sw/DataAccess/tests/result-set#"

// loadTriples reads an RDF file into a list of triples.
func loadTriples(ctx context.Context, path string) ([]kb.Triple, error) {
	ds := native.OpenMemory()
	defer ds.Close()
	if _, err := rdfio.LoadFile(ctx, ds, path, rdfio.LoadOptions{}); err != nil {
		return nil, err
	}
	return graphTriples(ctx, ds, kb.Any)
}

// graphTriples returns the distinct triples of graph g (kb.Any: all).
func graphTriples(ctx context.Context, ds kb.Dataset, g kb.ID) ([]kb.Triple, error) {
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{G: g}))
	if err != nil {
		return nil, err
	}
	seen := map[kb.Triple]bool{}
	var out []kb.Triple
	for _, q := range quads {
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			return nil, err
		}
		t := kb.Triple{S: tq.S, P: tq.P, O: tq.O}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// readResultSetGraph decodes a result set written in RDF (rs: vocabulary).
func readResultSetGraph(ctx context.Context, path string) (*results.ResultSet, error) {
	triples, err := loadTriples(ctx, path)
	if err != nil {
		return nil, err
	}
	out := map[kb.Term]map[string][]kb.Term{}
	var root kb.Term
	for _, t := range triples {
		if out[t.S] == nil {
			out[t.S] = map[string][]kb.Term{}
		}
		out[t.S][t.P.Value] = append(out[t.S][t.P.Value], t.O)
		if t.P.Value == ontology.RDFType && t.O.Value == rsNS+"ResultSet" {
			root = t.S
		}
	}
	rs := &results.ResultSet{}
	if b := out[root][rsNS+"boolean"]; len(b) > 0 {
		v := b[0].Value == "true"
		rs.Boolean = &v
		return rs, nil
	}
	index := map[string]int{}
	for _, v := range out[root][rsNS+"resultVariable"] {
		index[v.Value] = len(rs.Vars)
		rs.Vars = append(rs.Vars, v.Value)
	}
	type indexed struct {
		i   int
		row []kb.Term
	}
	var rows []indexed
	for _, sol := range out[root][rsNS+"solution"] {
		row := make([]kb.Term, len(rs.Vars))
		for _, b := range out[sol][rsNS+"binding"] {
			name := out[b][rsNS+"variable"]
			val := out[b][rsNS+"value"]
			if len(name) == 0 || len(val) == 0 {
				continue
			}
			i, ok := index[name[0].Value]
			if !ok {
				index[name[0].Value] = len(rs.Vars)
				rs.Vars = append(rs.Vars, name[0].Value)
				i = len(rs.Vars) - 1
				for k := range rows {
					rows[k].row = append(rows[k].row, kb.Term{})
				}
				row = append(row, kb.Term{})
			}
			row[i] = val[0]
		}
		ix := len(rows)
		if v := out[sol][rsNS+"index"]; len(v) > 0 {
			ix, _ = strconv.Atoi(v[0].Value)
		}
		rows = append(rows, indexed{ix, row})
	}
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].i < rows[b].i })
	for _, r := range rows {
		rs.Rows = append(rs.Rows, r.row)
	}
	return rs, nil
}

// readExpected decodes an expected SELECT/ASK result by file extension.
func readExpected(ctx context.Context, path string) (*results.ResultSet, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ttl", ".rdf", ".nt":
		return readResultSetGraph(ctx, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	switch strings.ToLower(filepath.Ext(path)) {
	case ".srx", ".xml":
		return results.ReadXML(f)
	case ".srj", ".json":
		return results.ReadJSON(f)
	case ".tsv":
		return results.ReadTSV(f)
	case ".csv":
		return results.ReadCSV(f)
	}
	return nil, fmt.Errorf("unknown result format %s", path)
}

// termsMatch compares an expected and an actual term, extending the blank
// node bijection m (expected→actual) and inv.
func termsMatch(e, a kb.Term, m, inv map[string]string, added *[]string) bool {
	if e.IsBlank() || a.IsBlank() {
		if !e.IsBlank() || !a.IsBlank() {
			return false
		}
		if x, ok := m[e.Value]; ok {
			return x == a.Value
		}
		if _, ok := inv[a.Value]; ok {
			return false
		}
		m[e.Value] = a.Value
		inv[a.Value] = e.Value
		*added = append(*added, e.Value)
		return true
	}
	// Triple terms (SPARQL 1.2) match when their parts do, so blank nodes
	// inside them are renamed with the others.
	if e.IsTriple() && a.IsTriple() {
		et, eok := e.Triple()
		at, aok := a.Triple()
		return eok && aok && termsMatch(et.S, at.S, m, inv, added) &&
			termsMatch(et.P, at.P, m, inv, added) && termsMatch(et.O, at.O, m, inv, added)
	}
	// RDF term equality, as the suites specify: same kind, same lexical
	// form, same datatype, same language tag. A number computed as "2.0"
	// does not match an expected "2.0E0" or "2" — the lexical form is the
	// result.
	return e == a
}

func undo(m, inv map[string]string, added []string) {
	for _, k := range added {
		delete(inv, m[k])
		delete(m, k)
	}
}

// rowsMatch reports whether the expected rows equal the actual rows as a
// multiset (or sequence when ordered) up to blank node renaming.
func rowsMatch(exp, act [][]kb.Term, ordered bool) bool {
	if len(exp) != len(act) {
		return false
	}
	m, inv := map[string]string{}, map[string]string{}
	used := make([]bool, len(act))
	rowEq := func(e, a []kb.Term) (bool, []string) {
		var added []string
		for i := range e {
			if e[i].IsZero() != a[i].IsZero() {
				undo(m, inv, added)
				return false, nil
			}
			if !e[i].IsZero() && !termsMatch(e[i], a[i], m, inv, &added) {
				undo(m, inv, added)
				return false, nil
			}
		}
		return true, added
	}
	steps := 0
	var solve func(i int) bool
	solve = func(i int) bool {
		if i == len(exp) {
			return true
		}
		steps++
		if steps > 200000 {
			return false
		}
		if ordered {
			ok, added := rowEq(exp[i], act[i])
			if !ok {
				return false
			}
			if solve(i + 1) {
				return true
			}
			undo(m, inv, added)
			return false
		}
		for j := range act {
			if used[j] {
				continue
			}
			ok, added := rowEq(exp[i], act[j])
			if !ok {
				continue
			}
			used[j] = true
			if solve(i + 1) {
				return true
			}
			used[j] = false
			undo(m, inv, added)
		}
		return false
	}
	return solve(0)
}

// graphsIsomorphic compares two graphs up to blank node renaming.
func graphsIsomorphic(exp, act []kb.Triple) bool {
	dedupe := func(ts []kb.Triple) []kb.Triple {
		seen := map[kb.Triple]bool{}
		var out []kb.Triple
		for _, t := range ts {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
		return out
	}
	exp, act = dedupe(exp), dedupe(act)
	if len(exp) != len(act) {
		return false
	}
	toRows := func(ts []kb.Triple) [][]kb.Term {
		out := make([][]kb.Term, len(ts))
		for i, t := range ts {
			out[i] = []kb.Term{t.S, t.P, t.O}
		}
		// Ground triples first keeps the search small.
		sort.SliceStable(out, func(i, j int) bool {
			return blanks(out[i]) < blanks(out[j])
		})
		return out
	}
	return rowsMatch(toRows(exp), toRows(act), false)
}

func blanks(r []kb.Term) int {
	n := 0
	for _, t := range r {
		if t.IsBlank() {
			n++
		}
	}
	return n
}

// project reorders rows of rs to the variable order vars.
func project(rs *results.ResultSet, vars []string) [][]kb.Term {
	index := map[string]int{}
	for i, v := range rs.Vars {
		index[v] = i
	}
	out := make([][]kb.Term, len(rs.Rows))
	for r, row := range rs.Rows {
		out[r] = make([]kb.Term, len(vars))
		for i, v := range vars {
			if j, ok := index[v]; ok && j < len(row) {
				out[r][i] = row[j]
			}
		}
	}
	return out
}

func formatRows(vars []string, rows [][]kb.Term) string {
	var b strings.Builder
	b.WriteString(strings.Join(vars, "\t") + "\n")
	for i, r := range rows {
		if i >= 20 {
			fmt.Fprintf(&b, "… %d more\n", len(rows)-20)
			break
		}
		for j, t := range r {
			if j > 0 {
				b.WriteByte('\t')
			}
			if !t.IsZero() {
				b.WriteString(t.String())
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
