package backend

import (
	"fmt"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/server"
)

// checkUpdateGraphs refuses an update that names a graph its scope may not
// write (or, for the source of ADD and COPY and for USING, read), before
// anything runs. The restricted dataset alone would let such an operation
// succeed doing nothing, since a graph outside the scope is absent to it:
// DROP GRAPH <theirs> answering 200 tells the client a lie. The decision
// looks only at the scope, never at the store, so a 403 says nothing about
// whether the graph exists. Graphs chosen by variables (GRAPH ?g in a
// WHERE or a template) are not named: they range over what the scope sees,
// and the dataset checks each quad written.
func checkUpdateGraphs(scope *server.Scope, u *algebra.Update) error {
	if scope.WritesAll() && scope.ReadsAll() {
		return nil
	}
	write := func(g string) error {
		if scope.CanWrite(g) {
			return nil
		}
		return fmt.Errorf("%w: <%s>", server.ErrGraphForbidden, g)
	}
	read := func(g string) error {
		if scope.CanRead(g) {
			return nil
		}
		return fmt.Errorf("%w: user %s may not read <%s>", server.ErrForbidden, scope.User, g)
	}
	quads := func(qs []algebra.QuadPattern, with string) error {
		for _, q := range qs {
			switch {
			case q.G.IsVar():
			case q.G.IsZero() && with != "":
				if err := write(with); err != nil {
					return err
				}
			case q.G.IsZero():
				if err := write(kb.DefaultGraphIRI); err != nil {
					return err
				}
			default:
				if err := write(q.G.Term.Value); err != nil {
					return err
				}
			}
		}
		return nil
	}
	target := func(t algebra.GraphTarget, check func(string) error) error {
		switch t.Kind {
		case algebra.TargetGraph:
			return check(t.IRI)
		case algebra.TargetDefault:
			return check(kb.DefaultGraphIRI)
		default: // NAMED or ALL: every graph, so only a scope over all of them
			if !scope.WritesAll() {
				return fmt.Errorf("%w: NAMED and ALL need a token that writes every graph", server.ErrForbidden)
			}
			return nil
		}
	}
	orDefault := func(g string) string {
		if g == "" {
			return kb.DefaultGraphIRI
		}
		return g
	}
	for _, op := range u.Operations {
		var err error
		switch op := op.(type) {
		case *algebra.InsertData:
			err = quads(op.Quads, "")
		case *algebra.DeleteData:
			err = quads(op.Quads, "")
		case *algebra.DeleteWhere:
			err = quads(op.Quads, "")
		case *algebra.DeleteInsert:
			if err = quads(op.Delete, op.With); err == nil {
				err = quads(op.Insert, op.With)
			}
			for _, g := range append(append([]string(nil), op.Using...), op.UsingNamed...) {
				if err == nil {
					err = read(g)
				}
			}
		case *algebra.Load:
			err = write(orDefault(op.Into))
		case *algebra.Clear:
			err = target(op.Target, write)
		case *algebra.Drop:
			err = target(op.Target, write)
		case *algebra.Create:
			err = write(op.Graph)
		case *algebra.Add:
			if err = target(op.From, read); err == nil {
				err = target(op.To, write)
			}
		case *algebra.Copy:
			if err = target(op.From, read); err == nil {
				err = target(op.To, write)
			}
		case *algebra.Move:
			if err = target(op.From, write); err == nil {
				err = target(op.To, write)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}
