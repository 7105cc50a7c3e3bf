package rulelang

// Errors in rule files are *textpos.Error values, the positioned-error type
// of every perfkb parser; Parse (and the reasoner's Compile) return every
// error they find as a textpos.ErrorList sorted by position. Nodes carry a
// textpos.Position: the file, a 1-based line and a 1-based column counting
// characters.
