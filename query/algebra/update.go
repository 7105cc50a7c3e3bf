package algebra

// Update is a parsed SPARQL 1.1 Update request (SPARQL 1.1 Update §3): a
// sequence of operations applied in order; the request as a whole is atomic.
type Update struct {
	Operations []UpdateOp
	// BaseIRI is the base in effect at the end of the request; Prefixes are all
	// PREFIX declarations in order (each operation may add some).
	BaseIRI  string
	Prefixes []Prefix
}

// String prints the request in SSE, one operation per line.
func (u *Update) String() string { return sseUpdate(u) }

// UpdateOp is one update operation. It is sealed: the implementations are
// *InsertData, *DeleteData, *DeleteInsert, *DeleteWhere, *Load, *Clear,
// *Drop, *Create, *Add, *Move and *Copy.
type UpdateOp interface {
	updateOp()
	String() string
}

// InsertData is INSERT DATA { quads } (§3.1.1). The quads contain no
// variables; blank nodes are fresh for the request (the same label in one
// INSERT DATA is the same new node). G is the zero Node for the default graph.
type InsertData struct {
	Quads []QuadPattern
}

// DeleteData is DELETE DATA { quads } (§3.1.2): ground quads, no blank nodes.
type DeleteData struct {
	Quads []QuadPattern
}

// DeleteInsert is [WITH iri] DELETE { … } INSERT { … } [USING …] WHERE { … }
// (§3.1.3). Delete and Insert are quad templates instantiated with each
// solution of Where (Delete contains no blank nodes; blank nodes in Insert are
// fresh per solution). A quad template whose G is the zero Node targets the
// WITH graph when With is set, otherwise the default graph.
//
// The WHERE pattern is matched against the dataset given by Using and
// UsingNamed when either is non-empty; otherwise against the WITH graph as
// default graph when With is set; otherwise against the store's dataset.
type DeleteInsert struct {
	With       string
	Delete     []QuadPattern
	Insert     []QuadPattern
	Using      []string
	UsingNamed []string
	Where      Op
}

// DeleteWhere is DELETE WHERE { quads } (§3.1.3.3), the short form of
// DELETE { quads } WHERE { quads }. Where is the parser's translation of the
// quads as a pattern (BGPs, GRAPH blocks joined), ready to evaluate.
type DeleteWhere struct {
	Quads []QuadPattern
	Where Op
}

// Load is LOAD [SILENT] source [INTO GRAPH into] (§3.2.1); Into is "" for the
// default graph.
type Load struct {
	Silent bool
	Source string
	Into   string
}

// TargetKind says which graphs a Clear or Drop names, or what a GraphTarget
// of Add/Move/Copy is.
type TargetKind uint8

// The graph targets.
const (
	TargetGraph   TargetKind = iota + 1 // GRAPH iri (IRI holds it)
	TargetDefault                       // DEFAULT
	TargetNamed                         // NAMED: all named graphs
	TargetAll                           // ALL: default and all named graphs
)

// GraphTarget is the graph or set of graphs an operation acts on. Add, Move
// and Copy use only TargetGraph and TargetDefault.
type GraphTarget struct {
	Kind TargetKind
	IRI  string
}

// Clear is CLEAR [SILENT] target (§3.2.2).
type Clear struct {
	Silent bool
	Target GraphTarget
}

// Drop is DROP [SILENT] target (§3.2.4).
type Drop struct {
	Silent bool
	Target GraphTarget
}

// Create is CREATE [SILENT] GRAPH iri (§3.2.3).
type Create struct {
	Silent bool
	Graph  string
}

// Add is ADD [SILENT] from TO to (§3.2.7).
type Add struct {
	Silent   bool
	From, To GraphTarget
}

// Move is MOVE [SILENT] from TO to (§3.2.6).
type Move struct {
	Silent   bool
	From, To GraphTarget
}

// Copy is COPY [SILENT] from TO to (§3.2.5).
type Copy struct {
	Silent   bool
	From, To GraphTarget
}

func (*InsertData) updateOp()   {}
func (*DeleteData) updateOp()   {}
func (*DeleteInsert) updateOp() {}
func (*DeleteWhere) updateOp()  {}
func (*Load) updateOp()         {}
func (*Clear) updateOp()        {}
func (*Drop) updateOp()         {}
func (*Create) updateOp()       {}
func (*Add) updateOp()          {}
func (*Move) updateOp()         {}
func (*Copy) updateOp()         {}
