package scalea

import _ "embed"

// Schema is the Appendix E schema as valid PostgreSQL
// (testdata/schema.sql; the fixes are listed at its top). Tests and the
// fixture generator create repositories with it.
//
//go:embed testdata/schema.sql
var Schema string
