// Package otf2 reads OTF2 trace archives (Score-P's format) into the common
// event model of convert/trace, through the reference library
// (libopen-trace-format2-dev, `pkg-config otf2`) with cgo. The reader is
// compiled only with the build tag otf2; without it Open returns
// ErrNotBuilt, so the default build stays pure Go.
//
// Global definitions (strings, regions, system tree, location groups,
// locations, groups, communicators, clock properties) are read once; each
// location's events are read by its own local reader on demand, so memory
// grows with the number of locations, not with the trace length.
package otf2

import "errors"

// ErrNotBuilt is returned by Open when perfkb was built without the otf2
// build tag.
var ErrNotBuilt = errors.New("built without OTF2 support; rebuild with -tags otf2 (needs libopen-trace-format2-dev)")
