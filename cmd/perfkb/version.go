package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func init() { register(newVersionCmd) }

// revision may be set at link time (go build -ldflags "-X main.revision=…")
// by a packager whose build has no VCS information; the revision Go stamps
// itself (vcs.revision) wins when present.
var revision string

// buildInfo is what perfkb knows about its own build.
type buildInfo struct {
	Version  string // module version, "devel" for a build from a work tree
	Revision string // VCS revision, "" when unknown
	Time     string // commit time, "" when unknown
	Modified bool   // the work tree had uncommitted changes
	Go       string
}

func readBuildInfo() buildInfo {
	b := buildInfo{Version: "devel", Revision: revision, Go: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// versionString is the one line printed by 'perfkb version' and
// 'perfkb --version'. A build without VCS stamping (go run, or GOFLAGS
// holding -buildvcs=false) says so instead of inventing a revision.
func versionString() string {
	b := readBuildInfo()
	rev := "revision unknown (built without VCS information, e.g. -buildvcs=false)"
	if b.Revision != "" {
		rev = "revision " + b.Revision
		if b.Modified {
			rev += " with uncommitted changes"
		}
		if b.Time != "" {
			rev += " of " + b.Time
		}
	}
	return fmt.Sprintf("perfkb %s, %s, %s %s/%s", b.Version, rev, b.Go, runtime.GOOS, runtime.GOARCH)
}

func newVersionCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the perfkb version and VCS revision",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(app.Stdout, versionString())
			return err
		},
	}
}
