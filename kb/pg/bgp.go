package pg

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// BGPSQL returns the SQL statement MatchBGP runs for q and its arguments:
// one join of quads with itself, one alias per pattern, selecting the
// variables (SELECT DISTINCT when q.Distinct).
func (s *Store) BGPSQL(q kb.BGP) (string, []any, error) {
	var args []any
	sql, err := s.bgpSQL(q, nil, sqlPlan{}, &args)
	return sql, args, err
}

// bgpSQL is BGPSQL's statement, with the solutions that one of nx
// matches left out, appending its arguments to *args. Its columns are
// named v0, v1, … after the variables. With plan.order (joinorder.go)
// the patterns are joined in that order, by CROSS JOINs that a
// transaction with join_collapse_limit = 1 keeps as written; the join
// conditions stay in WHERE, and PostgreSQL applies each at the first join
// where its columns are all bound.
func (s *Store) bgpSQL(q kb.BGP, nx []kb.BGPNotExists, plan sqlPlan, args *[]any) (string, error) {
	order := plan.order
	arg := func(v any) string {
		*args = append(*args, v)
		return "$" + strconv.Itoa(len(*args))
	}
	var graphCond func(col string) string
	anyGraph := len(q.Graphs) == 1 && q.Graphs[0] == kb.Any
	graphs := make([]int64, 0, len(q.Graphs))
	for _, g := range q.Graphs {
		if g != kb.Any && g <= 1<<62 {
			graphs = append(graphs, int64(g))
		}
	}
	exclude := make([]int64, 0, len(q.Exclude))
	for _, g := range q.Exclude {
		if g <= 1<<62 {
			exclude = append(exclude, int64(g))
		}
	}
	var gArg, xArg string
	graphCond = func(col string) string {
		var c []string
		if !anyGraph {
			if gArg == "" {
				gArg = arg(graphs)
			}
			c = append(c, col+" = ANY("+gArg+"::int8[])")
		}
		if len(exclude) > 0 {
			if xArg == "" {
				xArg = arg(exclude)
			}
			c = append(c, col+" <> ALL("+xArg+"::int8[])")
		}
		return strings.Join(c, " AND ")
	}
	first := make([]string, q.Vars) // the column that binds each variable first
	var from, conds []string
	cols := [3]string{"s", "p", "o"}
	for i, pat := range q.Patterns {
		alias := "t" + strconv.Itoa(i)
		gc := graphCond("g")
		from = append(from, s.q.t("quads")+" "+alias)
		if gc != "" {
			conds = append(conds, graphCond(alias+".g"))
		}
		for k, pos := range pat {
			if pos.ID != kb.Any {
				conds = append(conds, alias+"."+cols[k]+" = "+arg(idArg(pos.ID)))
			}
		}
		if gs, ok := plan.predGraphs[idArg(pat[1].ID)]; ok && pat[1].ID != kb.Any {
			conds = append(conds, alias+".g = ANY("+arg(gs)+"::int8[])")
		}
		for k, pos := range pat {
			if pos.ID != kb.Any {
				continue
			}
			if pos.Var < 0 || pos.Var >= q.Vars {
				return "", fmt.Errorf("pg: BGP variable %d out of range [0, %d)", pos.Var, q.Vars)
			}
			col := alias + "." + cols[k]
			if first[pos.Var] == "" {
				first[pos.Var] = col
			} else {
				conds = append(conds, col+" = "+first[pos.Var])
			}
		}
	}
	sel := make([]string, q.Vars)
	for v, c := range first {
		if c == "" {
			return "", fmt.Errorf("pg: BGP variable %d occurs in no pattern", v)
		}
		sel[v] = c + " AS v" + strconv.Itoa(v)
	}
	if len(sel) == 0 {
		sel = []string{"1"}
	}
	for i, h := range q.Numeric {
		if h.Var < 0 || h.Var >= q.Vars {
			return "", fmt.Errorf("pg: BGP numeric comparison of variable %d out of range [0, %d)", h.Var, q.Vars)
		}
		op, ok := looseOps[h.Op]
		if !ok || math.IsNaN(h.Value) {
			continue // a hint the store need not use
		}
		n := "n" + strconv.Itoa(i)
		from = append(from, s.q.t("terms")+" "+n)
		conds = append(conds, n+".id = "+first[h.Var], numericCond(n, op, arg(h.Value), arg))
	}
	for i, x := range nx {
		c, err := s.notExistsSQL(q, x, "x"+strconv.Itoa(i)+"_", first, graphCond, arg)
		if err != nil {
			return "", err
		}
		if c != "" {
			conds = append(conds, c)
		}
	}
	// Every position of a pattern is a constant or a selected variable,
	// so a solution names its triples: a DISTINCT over the whole
	// solution counts a triple held in several graphs once per pattern,
	// and keeps the join free to use the indexes (a DISTINCT subquery per
	// pattern would be read whole before the join).
	distinct := ""
	if q.Distinct && !plan.distinctFree {
		distinct = "DISTINCT "
	}
	sep := ", "
	if order != nil {
		if len(order) != len(q.Patterns) {
			return "", fmt.Errorf("pg: join order of %d patterns for a BGP of %d", len(order), len(q.Patterns))
		}
		seen := make([]bool, len(order))
		ordered := make([]string, 0, len(from))
		for _, i := range order {
			if i < 0 || i >= len(order) || seen[i] {
				return "", fmt.Errorf("pg: join order %v is not a permutation", order)
			}
			seen[i] = true
			ordered = append(ordered, from[i])
		}
		from = append(ordered, from[len(order):]...)
		sep = " CROSS JOIN "
	}
	sql := "SELECT " + distinct + strings.Join(sel, ", ") + " FROM " + strings.Join(from, sep)
	if len(conds) > 0 {
		sql += " WHERE " + strings.Join(conds, " AND ")
	}
	return sql, nil
}

// notExistsSQL is the condition NOT EXISTS (…) that keeps a solution of q
// only when x's patterns match nothing: one alias per pattern (prefix
// pfx), q's variables read from the columns first binds them to, x's own
// variables joined among its patterns.
func (s *Store) notExistsSQL(q kb.BGP, x kb.BGPNotExists, pfx string, first []string, graphCond func(string) string, arg func(any) string) (string, error) {
	if len(x.Patterns) == 0 {
		return "false", nil // the empty pattern always matches
	}
	local := map[int]string{}
	var from, conds []string
	cols := [3]string{"s", "p", "o"}
	for i, pat := range x.Patterns {
		alias := pfx + strconv.Itoa(i)
		from = append(from, s.q.t("quads")+" "+alias)
		if gc := graphCond(alias + ".g"); gc != "" {
			conds = append(conds, gc)
		}
		for k, pos := range pat {
			col := alias + "." + cols[k]
			switch {
			case pos.ID != kb.Any:
				conds = append(conds, col+" = "+arg(idArg(pos.ID)))
			case pos.Var >= 0 && pos.Var < q.Vars:
				conds = append(conds, col+" = "+first[pos.Var])
			case pos.Var >= q.Vars:
				if c, ok := local[pos.Var]; ok {
					conds = append(conds, col+" = "+c)
				} else {
					local[pos.Var] = col
				}
			default:
				return "", fmt.Errorf("pg: NOT EXISTS variable %d out of range", pos.Var)
			}
		}
	}
	sql := "NOT EXISTS (SELECT 1 FROM " + strings.Join(from, ", ")
	if len(conds) > 0 {
		sql += " WHERE " + strings.Join(conds, " AND ")
	}
	return sql + ")", nil
}

// looseOps maps a kb.BGPNumeric comparison to the SQL one applied to
// terms.num: a strict comparison loosened, because num is the value
// rounded to a double, and rounding keeps v > c only as round(v) >=
// round(c).
var looseOps = map[string]string{"<": "<=", "<=": "<=", ">": ">=", ">=": ">=", "=": "="}

// numericCond is the SQL condition that keeps a term (alias n) unless
// SPARQL's comparison of it with the number c would fail: a literal with a
// numeric value that passes, or a literal of an XSD datatype whose value
// num does not hold exactly (num NULL: a type or lexical form numericValue
// leaves to the query engine; xsd:float, which SPARQL rounds to single
// precision). Terms that are not literals, or have another datatype, are
// never numbers and fail every comparison (§17.3).
func numericCond(n, op, c string, arg func(any) string) string {
	return "(" + n + ".kind = " + strconv.Itoa(int(kb.KindLiteral)) + " AND (" +
		"(" + n + ".num IS NOT NULL AND " + n + ".datatype <> " + arg(ontology.XSDFloat) + " AND " + n + ".num " + op + " " + c + ") OR " +
		"((" + n + ".num IS NULL OR " + n + ".datatype = " + arg(ontology.XSDFloat) + ") AND starts_with(" + n + ".datatype, " + arg(ontology.XSDNamespace) + "))))"
}

// idArg is an ID as a bigint argument; an ID no term has becomes -1,
// which matches nothing.
func idArg(id kb.ID) int64 {
	if id > 1<<62 {
		return -1
	}
	return int64(id)
}

// MatchBGP implements kb.BGPMatcher with one SQL statement. The rows are
// read completely before fn is called, so fn may call the store.
func (s *Store) MatchBGP(ctx context.Context, q kb.BGP, fn func(vals []kb.ID) bool) error {
	if err := s.check(); err != nil {
		return err
	}
	if len(q.Patterns) == 0 {
		return nil
	}
	sql, args, err := s.BGPSQL(q)
	if err != nil {
		return err
	}
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("pg: BGP: %w", err)
	}
	n := max(q.Vars, 1)
	var flat []int64
	dest := make([]any, n)
	vals := make([]int64, n)
	for i := range dest {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return fmt.Errorf("pg: BGP: %w", err)
		}
		flat = append(flat, vals...)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pg: BGP: %w", err)
	}
	out := make([]kb.ID, q.Vars)
	for i := 0; i+n <= len(flat); i += n {
		for v := range out {
			out[v] = kb.ID(flat[i+v])
		}
		if !fn(out) {
			return nil
		}
	}
	return nil
}

// ExplainBGP implements kb.BGPExplainer: the SQL statement of q, with its
// arguments.
func (s *Store) ExplainBGP(q kb.BGP) string {
	sql, args, err := s.BGPSQL(q)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%s -- args %v", sql, args)
}
