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

// The SPARQL 1.1 built-in calls. Their arities are declared once, in
// query/function (function.Builtin), which the parser and the evaluator
// both read.
const (
	BuiltinStr          Builtin = "STR"
	BuiltinLang         Builtin = "LANG"
	BuiltinLangMatches  Builtin = "LANGMATCHES"
	BuiltinDatatype     Builtin = "DATATYPE"
	BuiltinBound        Builtin = "BOUND" // argument is always a *VarExpr
	BuiltinIRI          Builtin = "IRI"   // also URI; resolved against Query.BaseIRI
	BuiltinBNode        Builtin = "BNODE"
	BuiltinRand         Builtin = "RAND"
	BuiltinAbs          Builtin = "ABS"
	BuiltinCeil         Builtin = "CEIL"
	BuiltinFloor        Builtin = "FLOOR"
	BuiltinRound        Builtin = "ROUND"
	BuiltinConcat       Builtin = "CONCAT"
	BuiltinStrLen       Builtin = "STRLEN"
	BuiltinUCase        Builtin = "UCASE"
	BuiltinLCase        Builtin = "LCASE"
	BuiltinEncodeForURI Builtin = "ENCODE_FOR_URI"
	BuiltinContains     Builtin = "CONTAINS"
	BuiltinStrStarts    Builtin = "STRSTARTS"
	BuiltinStrEnds      Builtin = "STRENDS"
	BuiltinStrBefore    Builtin = "STRBEFORE"
	BuiltinStrAfter     Builtin = "STRAFTER"
	BuiltinYear         Builtin = "YEAR"
	BuiltinMonth        Builtin = "MONTH"
	BuiltinDay          Builtin = "DAY"
	BuiltinHours        Builtin = "HOURS"
	BuiltinMinutes      Builtin = "MINUTES"
	BuiltinSeconds      Builtin = "SECONDS"
	BuiltinTimezone     Builtin = "TIMEZONE"
	BuiltinTZ           Builtin = "TZ"
	BuiltinNow          Builtin = "NOW"
	BuiltinUUID         Builtin = "UUID"
	BuiltinStrUUID      Builtin = "STRUUID"
	BuiltinMD5          Builtin = "MD5"
	BuiltinSHA1         Builtin = "SHA1"
	BuiltinSHA256       Builtin = "SHA256"
	BuiltinSHA384       Builtin = "SHA384"
	BuiltinSHA512       Builtin = "SHA512"
	BuiltinCoalesce     Builtin = "COALESCE" // not strict
	BuiltinIf           Builtin = "IF"       // not strict
	BuiltinStrLang      Builtin = "STRLANG"
	BuiltinStrDT        Builtin = "STRDT"
	BuiltinSameTerm     Builtin = "SAMETERM"
	BuiltinIsIRI        Builtin = "ISIRI" // also isURI
	BuiltinIsBlank      Builtin = "ISBLANK"
	BuiltinIsLiteral    Builtin = "ISLITERAL"
	BuiltinIsNumeric    Builtin = "ISNUMERIC"
	BuiltinRegex        Builtin = "REGEX"
	BuiltinSubstr       Builtin = "SUBSTR"
	BuiltinReplace      Builtin = "REPLACE"
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
