package algebra

import "github.com/perfkb/perfkb/kb"

// Expr is a SPARQL expression (§17, translated per §18.2.2). It is sealed:
// the implementations are *ConstExpr, *VarExpr, *FuncExpr, *BuiltinExpr,
// *BinaryExpr, *UnaryExpr, *InExpr, *ExistsExpr and *AggregateExpr.
//
// String prints the expression in SSE, e.g. (&& (> ?x 1) (bound ?y)).
type Expr interface {
	expr()
	String() string
}

// ConstExpr is an RDF term constant: an IRI or a literal. Numeric literals
// keep their exact lexical form with datatype xsd:integer, xsd:decimal or
// xsd:double; true/false are xsd:boolean.
type ConstExpr struct {
	Term kb.Term
}

// VarExpr is a variable reference; evaluating an unbound variable is an
// error (§17.2).
type VarExpr struct {
	Var Var
}

// FuncExpr calls a function by IRI (§17.6): the XSD constructor casts
// xsd:boolean, xsd:double, xsd:float, xsd:decimal, xsd:integer,
// xsd:dateTime, xsd:string (§17.5) and any extension function.
type FuncExpr struct {
	IRI  string
	Args []Expr
}

// Builtin names a SPARQL built-in call (§17.4); the names are the keyword,
// upper-case (IRI for IRI/URI, ISIRI for isIRI/isURI, SAMETERM for sameTerm).
type Builtin string

// The SPARQL 1.1 built-in calls. The comment gives the arity the parser
// enforces.
const (
	BuiltinStr          Builtin = "STR"            // 1
	BuiltinLang         Builtin = "LANG"           // 1
	BuiltinLangMatches  Builtin = "LANGMATCHES"    // 2
	BuiltinDatatype     Builtin = "DATATYPE"       // 1
	BuiltinBound        Builtin = "BOUND"          // 1, argument is always a *VarExpr
	BuiltinIRI          Builtin = "IRI"            // 1 (also URI); resolve against Query.BaseIRI
	BuiltinBNode        Builtin = "BNODE"          // 0 or 1
	BuiltinRand         Builtin = "RAND"           // 0
	BuiltinAbs          Builtin = "ABS"            // 1
	BuiltinCeil         Builtin = "CEIL"           // 1
	BuiltinFloor        Builtin = "FLOOR"          // 1
	BuiltinRound        Builtin = "ROUND"          // 1
	BuiltinConcat       Builtin = "CONCAT"         // 0 or more
	BuiltinStrLen       Builtin = "STRLEN"         // 1
	BuiltinUCase        Builtin = "UCASE"          // 1
	BuiltinLCase        Builtin = "LCASE"          // 1
	BuiltinEncodeForURI Builtin = "ENCODE_FOR_URI" // 1
	BuiltinContains     Builtin = "CONTAINS"       // 2
	BuiltinStrStarts    Builtin = "STRSTARTS"      // 2
	BuiltinStrEnds      Builtin = "STRENDS"        // 2
	BuiltinStrBefore    Builtin = "STRBEFORE"      // 2
	BuiltinStrAfter     Builtin = "STRAFTER"       // 2
	BuiltinYear         Builtin = "YEAR"           // 1
	BuiltinMonth        Builtin = "MONTH"          // 1
	BuiltinDay          Builtin = "DAY"            // 1
	BuiltinHours        Builtin = "HOURS"          // 1
	BuiltinMinutes      Builtin = "MINUTES"        // 1
	BuiltinSeconds      Builtin = "SECONDS"        // 1
	BuiltinTimezone     Builtin = "TIMEZONE"       // 1
	BuiltinTZ           Builtin = "TZ"             // 1
	BuiltinNow          Builtin = "NOW"            // 0
	BuiltinUUID         Builtin = "UUID"           // 0
	BuiltinStrUUID      Builtin = "STRUUID"        // 0
	BuiltinMD5          Builtin = "MD5"            // 1
	BuiltinSHA1         Builtin = "SHA1"           // 1
	BuiltinSHA256       Builtin = "SHA256"         // 1
	BuiltinSHA384       Builtin = "SHA384"         // 1
	BuiltinSHA512       Builtin = "SHA512"         // 1
	BuiltinCoalesce     Builtin = "COALESCE"       // 0 or more; not strict
	BuiltinIf           Builtin = "IF"             // 3; not strict
	BuiltinStrLang      Builtin = "STRLANG"        // 2
	BuiltinStrDT        Builtin = "STRDT"          // 2
	BuiltinSameTerm     Builtin = "SAMETERM"       // 2
	BuiltinIsIRI        Builtin = "ISIRI"          // 1 (also isURI)
	BuiltinIsBlank      Builtin = "ISBLANK"        // 1
	BuiltinIsLiteral    Builtin = "ISLITERAL"      // 1
	BuiltinIsNumeric    Builtin = "ISNUMERIC"      // 1
	BuiltinRegex        Builtin = "REGEX"          // 2 or 3
	BuiltinSubstr       Builtin = "SUBSTR"         // 2 or 3
	BuiltinReplace      Builtin = "REPLACE"        // 3 or 4
)

// BuiltinExpr is a call of a built-in function (§17.4). COALESCE, IF and
// BOUND are special forms: their arguments are not all evaluated eagerly and
// errors in them do not necessarily propagate.
type BuiltinExpr struct {
	Name Builtin
	Args []Expr
}

// BinaryOp is a binary operator (§17.3).
type BinaryOp string

// The binary operators, as written in SPARQL.
const (
	OpOr       BinaryOp = "||"
	OpAnd      BinaryOp = "&&"
	OpEqual    BinaryOp = "="
	OpNotEqual BinaryOp = "!="
	OpLess     BinaryOp = "<"
	OpGreater  BinaryOp = ">"
	OpLessEq   BinaryOp = "<="
	OpGreatEq  BinaryOp = ">="
	OpAdd      BinaryOp = "+"
	OpSub      BinaryOp = "-"
	OpMul      BinaryOp = "*"
	OpDiv      BinaryOp = "/"
)

// BinaryExpr is Left Op Right. || and && follow the three-valued logic of
// §17.2 (errors absorbed when the other side decides).
type BinaryExpr struct {
	Op          BinaryOp
	Left, Right Expr
}

// UnaryOp is a unary operator (§17.3).
type UnaryOp string

// The unary operators.
const (
	OpNot   UnaryOp = "!"
	OpPlus  UnaryOp = "+"
	OpMinus UnaryOp = "-"
)

// UnaryExpr is Op Arg.
type UnaryExpr struct {
	Op  UnaryOp
	Arg Expr
}

// InExpr is Arg [NOT] IN (List…) (§17.4.1.9/10), with the error semantics of
// the equivalent chain of = / != combined with || / &&.
type InExpr struct {
	Not  bool
	Arg  Expr
	List []Expr
}

// ExistsExpr is [NOT] EXISTS { pattern } (§17.4.1.4, §18.6 exists): true if
// Pattern, with the current solution substituted in, has a solution.
type ExistsExpr struct {
	Not     bool
	Pattern Op
}

// AggregateExpr is an aggregate call inside an expression. It exists only
// while parsing: in a translated Query every aggregate has moved into a
// Group's Aggregates and expressions refer to it through a VarExpr of its
// '.'-variable, so evaluators never meet an AggregateExpr.
type AggregateExpr struct {
	Aggregate *Aggregate
}

func (*ConstExpr) expr()     {}
func (*VarExpr) expr()       {}
func (*FuncExpr) expr()      {}
func (*BuiltinExpr) expr()   {}
func (*BinaryExpr) expr()    {}
func (*UnaryExpr) expr()     {}
func (*InExpr) expr()        {}
func (*ExistsExpr) expr()    {}
func (*AggregateExpr) expr() {}
