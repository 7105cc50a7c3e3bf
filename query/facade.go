package query

import (
	"context"
	"fmt"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/function"
)

// The names of the stages the CLI and the server need, re-exported so that
// they import this package only (imports_test.go checks it).

// Form is the form of a query: SELECT, ASK, CONSTRUCT or DESCRIBE.
type Form = algebra.QueryForm

// The query forms.
const (
	FormSelect    = algebra.FormSelect
	FormAsk       = algebra.FormAsk
	FormConstruct = algebra.FormConstruct
	FormDescribe  = algebra.FormDescribe
)

// FunctionNamespace is where perfkb's own extension functions are named
// (see DefaultFunctions).
const FunctionNamespace = function.Namespace

// DatasetSpec selects the default and named graphs of an evaluation (see
// Options.Dataset).
type DatasetSpec = eval.DatasetSpec

// ServiceHandler evaluates SERVICE clauses (see Options.Service).
type ServiceHandler = eval.ServiceHandler

// ServiceDescriber is a ServiceHandler that can ask an endpoint to
// DESCRIBE resources (a DESCRIBE fanned out to sites); a wrapper around a
// handler must keep it, or fan-out DESCRIBE is refused.
type ServiceDescriber = eval.ServiceDescriber

// EndpointVetter is implemented by service handlers that can refuse an
// endpoint without a request (see eval.EndpointVetter).
type EndpointVetter = eval.EndpointVetter

// Graph is an endpoint's DESCRIBE answer (see ServiceDescriber).
type Graph = eval.Graph

// ServiceRequest is one SERVICE call handed to a ServiceHandler.
type ServiceRequest = eval.ServiceRequest

// Solutions is a ServiceHandler's answer.
type Solutions = eval.Solutions

// ServiceCall reports one SERVICE call (see Result.Services).
type ServiceCall = eval.ServiceCall

// LoadPolicy says which files SPARQL LOAD may read (see Options.Load).
type LoadPolicy = eval.LoadPolicy

// MemoryPool bounds what all the queries sharing it hold together (see
// Options.MemoryPool).
type MemoryPool = eval.MemoryPool

// NewMemoryPool returns a pool of limit bytes shared by the queries whose
// Options name it.
func NewMemoryPool(limit int64) *MemoryPool { return eval.NewMemoryPool(limit) }

// DefaultServiceBatch is the number of rows per bind-join SERVICE request
// when Options.ServiceBatch is 0.
const DefaultServiceBatch = eval.DefaultServiceBatch

// ErrUnsupportedService is the error of a SERVICE clause that no handler
// can evaluate (no Options.Service, or an endpoint it refuses).
var ErrUnsupportedService = eval.ErrUnsupportedService

// ProtocolDataset is the dataset a SPARQL 1.1 Protocol request gives in its
// parameters: default-graph-uri and named-graph-uri for a query,
// using-graph-uri and using-named-graph-uri for an update. Each entry is
// an absolute IRI; kb.DefaultGraphIRI names the store's default graph.
// Set it as Options.Protocol; a ProtocolDataset with no graph at all is
// the same as none.
type ProtocolDataset struct {
	Default []string
	Named   []string
}

// given reports whether the request named any graph.
func (d *ProtocolDataset) given() bool {
	return d != nil && (len(d.Default) > 0 || len(d.Named) > 0)
}

// spec is the evaluation dataset of d: exactly the graphs it lists (no
// default graph when it lists none, no named graphs when it names none).
func (d *ProtocolDataset) spec() DatasetSpec {
	spec := DatasetSpec{DefaultEmpty: len(d.Default) == 0, NamedNone: len(d.Named) == 0}
	for _, g := range d.Default {
		spec.Default = append(spec.Default, graphTerm(g))
	}
	for _, g := range d.Named {
		spec.Named = append(spec.Named, graphTerm(g))
	}
	return spec
}

func graphTerm(iri string) kb.Term {
	if iri == kb.DefaultGraphIRI {
		return kb.DefaultGraph
	}
	return kb.IRI(iri)
}

// DatasetConflictError is an update that names its dataset with USING,
// USING NAMED or WITH while its protocol request also sets
// using-graph-uri or using-named-graph-uri: SPARQL 1.1 Protocol 2.2.3
// requires the service to refuse it rather than pick one. It is the
// client's error (InvalidInput).
type DatasetConflictError struct {
	// Operation is the 1-based index of the offending operation.
	Operation int
}

func (e *DatasetConflictError) Error() string {
	return fmt.Sprintf("operation %d names its dataset with USING, USING NAMED or WITH, and the request also sets using-graph-uri or using-named-graph-uri: use one or the other", e.Operation)
}

// InvalidInput reports that the request, not the engine, is at fault.
func (e *DatasetConflictError) InvalidInput() bool { return true }

// ExecUpdate applies a prepared update request atomically. With
// opts.Protocol set, its graphs are the request's dataset and an operation
// that names its own (USING, USING NAMED, WITH) is refused with a
// *DatasetConflictError.
func ExecUpdate(ctx context.Context, ds kb.Dataset, u *algebra.Update, opts Options) (UpdateSummary, error) {
	if opts.Protocol.given() {
		for i, op := range u.Operations {
			if di, ok := op.(*algebra.DeleteInsert); ok && (di.With != "" || len(di.Using) > 0 || len(di.UsingNamed) > 0) {
				return UpdateSummary{}, &DatasetConflictError{Operation: i + 1}
			}
		}
		opts.Dataset = opts.Protocol.spec()
	}
	return eval.Update(ctx, ds, u, evalOptions(opts))
}

// SitesError is a bad Options.Sites (an unknown site, no site at all) or a
// query that cannot be fanned out (FROM with sites, --site-column with
// GROUP BY). It is the caller's error (InvalidInput).
type SitesError struct{ Err error }

func (e *SitesError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *SitesError) Unwrap() error { return e.Err }

// InvalidInput reports that the request, not the engine, is at fault.
func (e *SitesError) InvalidInput() bool { return true }
