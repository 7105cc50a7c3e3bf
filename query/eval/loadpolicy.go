package eval

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// LoadPolicy says which files SPARQL LOAD may read. The zero value reads
// any file the process can (the CLI, where the user owns the disk); a
// server sets Refuse, or Dir to confine reads to one directory, because
// a client must never read the server's own disk.
type LoadPolicy struct {
	// Refuse refuses every file: IRI.
	Refuse bool
	// Dir, when set, confines reads to this directory: the IRI's path is
	// taken relative to it, symlinks are resolved, and a path that leaves
	// it is refused. Error messages then never show host paths.
	Dir string
}

// loadError is an update that failed because of what the request asks
// (a LOAD the policy does not allow, a CREATE of an existing graph): the
// client's error, not the server's.
type loadError struct{ msg string }

func (e *loadError) Error() string      { return e.msg }
func (e *loadError) InvalidInput() bool { return true }

// resolve maps a LOAD source IRI to a local path under the policy.
func (p LoadPolicy) resolve(source string) (string, error) {
	path := source
	if strings.HasPrefix(source, "file:") {
		u, err := url.Parse(source)
		if err != nil {
			return "", &loadError{fmt.Sprintf("LOAD <%s>: %v", source, err)}
		}
		path = u.Path
	} else if strings.Contains(source, "://") {
		return "", &loadError{fmt.Sprintf("LOAD <%s>: only file: IRIs can be loaded", source)}
	}
	switch {
	case p.Refuse:
		return "", &loadError{fmt.Sprintf("LOAD <%s>: loading files is not allowed here (the server's operator can allow a directory with --load-dir)", source)}
	case p.Dir == "":
		if _, err := os.Stat(path); err != nil {
			return "", &loadError{fmt.Sprintf("LOAD <%s>: %v", source, err)}
		}
		return path, nil
	}
	root, err := filepath.EvalSymlinks(p.Dir)
	if err != nil {
		return "", fmt.Errorf("LOAD: the load directory is not usable: %w", err)
	}
	notFound := &loadError{fmt.Sprintf("LOAD <%s>: no such file in the load directory", source)}
	full, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(path, "/"))))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", notFound
		}
		return "", notFound
	}
	rel, err := filepath.Rel(root, full)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", notFound
	}
	if fi, err := os.Stat(full); err != nil || !fi.Mode().IsRegular() {
		return "", notFound
	}
	return full, nil
}
