package query

import (
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// GraphUse is how an update operation uses a graph it names.
type GraphUse uint8

// The uses of a named graph.
const (
	// GraphRead: the operation reads the graph (the source of ADD and COPY,
	// USING and USING NAMED).
	GraphRead GraphUse = iota + 1
	// GraphWrite: the operation changes the graph.
	GraphWrite
	// GraphWriteEvery: the operation changes every named graph (NAMED) or
	// every graph (ALL); Graph is empty.
	GraphWriteEvery
)

// NamedGraph is one graph an update names: a constant graph IRI, the
// default graph as kb.DefaultGraphIRI, or every graph.
type NamedGraph struct {
	Graph string
	Use   GraphUse
}

// UpdateGraphs lists the graphs an update's operations name, in order, so
// that access control can decide before anything runs. Graphs chosen by
// variables (GRAPH ?g) are not named: they range over the dataset the
// update runs on.
func UpdateGraphs(u *algebra.Update) []NamedGraph {
	var out []NamedGraph
	add := func(g string, use GraphUse) { out = append(out, NamedGraph{Graph: g, Use: use}) }
	orDefault := func(g string) string {
		if g == "" {
			return kb.DefaultGraphIRI
		}
		return g
	}
	quads := func(qs []algebra.QuadPattern, with string) {
		for _, q := range qs {
			switch {
			case q.G.IsVar():
			case q.G.IsZero():
				add(orDefault(with), GraphWrite)
			default:
				add(q.G.Term.Value, GraphWrite)
			}
		}
	}
	target := func(t algebra.GraphTarget, use GraphUse) {
		switch t.Kind {
		case algebra.TargetGraph:
			add(t.IRI, use)
		case algebra.TargetDefault:
			add(kb.DefaultGraphIRI, use)
		default:
			add("", GraphWriteEvery)
		}
	}
	for _, op := range u.Operations {
		switch op := op.(type) {
		case *algebra.InsertData:
			quads(op.Quads, "")
		case *algebra.DeleteData:
			quads(op.Quads, "")
		case *algebra.DeleteWhere:
			quads(op.Quads, "")
		case *algebra.DeleteInsert:
			quads(op.Delete, op.With)
			quads(op.Insert, op.With)
			for _, g := range append(append([]string(nil), op.Using...), op.UsingNamed...) {
				add(g, GraphRead)
			}
		case *algebra.Load:
			add(orDefault(op.Into), GraphWrite)
		case *algebra.Clear:
			target(op.Target, GraphWrite)
		case *algebra.Drop:
			target(op.Target, GraphWrite)
		case *algebra.Create:
			add(op.Graph, GraphWrite)
		case *algebra.Add:
			target(op.From, GraphRead)
			target(op.To, GraphWrite)
		case *algebra.Copy:
			target(op.From, GraphRead)
			target(op.To, GraphWrite)
		case *algebra.Move:
			target(op.From, GraphWrite)
			target(op.To, GraphWrite)
		}
	}
	return out
}
