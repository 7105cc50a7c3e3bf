//go:build !otf2

package otf2

import "github.com/perfkb/perfkb/convert/trace"

// Enabled reports whether this build can read OTF2 archives.
const Enabled = false

// Open returns ErrNotBuilt: this build has no OTF2 reader.
func Open(path string) (trace.Source, error) { return nil, ErrNotBuilt }
