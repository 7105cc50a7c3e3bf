package reasoner

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// problemClasses is the class hierarchy below perfonto:PerformanceProblem
// as the store states it (rdfs:subClassOf, in any graph), so a user's own
// problem class in any namespace (audit:PairImbalance rdfs:subClassOf
// perfonto:PerformanceProblem) names its findings just as PERFONTO's do.
type problemClasses struct {
	root    kb.ID
	parents map[kb.ID][]kb.ID
	memo    map[kb.ID]bool
}

func loadProblemClasses(ctx context.Context, ds kb.Dataset) (*problemClasses, error) {
	pc := &problemClasses{parents: map[kb.ID][]kb.ID{}, memo: map[kb.ID]bool{}}
	root, ok, err := ds.Lookup(ctx, kb.IRI(ontology.PerformanceProblem))
	if err != nil || !ok {
		return pc, err
	}
	pc.root = root
	sub, ok, err := ds.Lookup(ctx, kb.IRI(ontology.RDFSSubClassOf))
	if err != nil || !ok {
		return pc, err
	}
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{P: sub}))
	if err != nil {
		return nil, err
	}
	for _, q := range quads {
		if q.S != q.O {
			pc.parents[q.S] = append(pc.parents[q.S], q.O)
		}
	}
	return pc, nil
}

// isProblem says whether c is a proper subclass of PerformanceProblem.
func (pc *problemClasses) isProblem(c kb.ID) bool {
	if pc.root == kb.Any || c == pc.root {
		return false
	}
	return pc.below(c, pc.root, map[kb.ID]bool{})
}

// below says whether c reaches anc by rdfs:subClassOf steps (cycles, which
// OWL allows for equivalent classes, are cut).
func (pc *problemClasses) below(c, anc kb.ID, seen map[kb.ID]bool) bool {
	if anc == pc.root {
		if v, ok := pc.memo[c]; ok {
			return v
		}
	}
	found := false
	seen[c] = true
	for _, p := range pc.parents[c] {
		if p == anc || (!seen[p] && pc.below(p, anc, seen)) {
			found = true
			break
		}
	}
	if anc == pc.root {
		pc.memo[c] = found
	}
	return found
}

// mostSpecific drops every class that is a superclass of another one in
// cs, so a finding typed BigMessage and (by RDFS) CommunicationProblem is
// reported as a BigMessage.
func (pc *problemClasses) mostSpecific(cs []kb.ID) []kb.ID {
	var out []kb.ID
	for i, c := range cs {
		general := false
		for j, d := range cs {
			if i != j && c != d && pc.below(d, c, map[kb.ID]bool{}) && !pc.below(c, d, map[kb.ID]bool{}) {
				general = true
				break
			}
		}
		if !general {
			out = append(out, c)
		}
	}
	return out
}

// ProblemClasses lists the IRIs of the classes below
// perfonto:PerformanceProblem that ds knows, sorted.
func ProblemClasses(ctx context.Context, ds kb.Dataset) ([]string, error) {
	pc, err := loadProblemClasses(ctx, ds)
	if err != nil {
		return nil, err
	}
	var out []string
	for c := range pc.parents {
		if !pc.isProblem(c) {
			continue
		}
		t, err := ds.Resolve(ctx, c)
		if err != nil {
			return nil, err
		}
		if t.IsIRI() {
			out = append(out, t.Value)
		}
	}
	sort.Strings(out)
	return out, nil
}

// UnknownProblemClassError is returned by CheckProblemClass for a name that
// is no problem class of the store.
type UnknownProblemClassError struct {
	Name  string
	Known []string // local names of the known classes
}

func (e *UnknownProblemClassError) Error() string {
	return fmt.Sprintf("%q is not a performance problem class of this store; known classes: %s",
		e.Name, strings.Join(e.Known, ", "))
}

// CheckProblemClass says whether name (an IRI or a local name such as
// BigMessage) is a problem class of ds, and otherwise returns an
// *UnknownProblemClassError naming the known classes.
func CheckProblemClass(ctx context.Context, ds kb.Dataset, name string) error {
	known, err := ProblemClasses(ctx, ds)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var locals []string
	for _, iri := range known {
		if iri == name || localName(iri) == name {
			return nil
		}
		if l := localName(iri); !seen[l] {
			seen[l] = true
			locals = append(locals, l)
		}
	}
	sort.Strings(locals)
	return &UnknownProblemClassError{Name: name, Known: locals}
}
