package reasoner

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/perfkb/perfkb/reasoner/rulelang"
	"github.com/perfkb/perfkb/rules"
	"github.com/perfkb/perfkb/textpos"
)

// Rule files reach the reasoner by one path, LoadSources, whoever asks:
// `perfkb reason`, `perfkb rules check`, POST /rules/run and /rules/check
// differ only in the Resolver that reads names and @include targets. The
// CLI reads files (FileResolver); the server reads nothing from its disk
// (UploadResolver: the shipped sets only). Either way every file read —
// top-level or included, shipped or not — is parsed once, compiled, and
// its #@advice comments are checked, and all errors come back together,
// each with FILE:LINE:COLUMN.

// ParseOptions configure how rule files are read.
type ParseOptions struct {
	// Defines overrides named constants (NAME -> value text).
	Defines map[string]string
	// Resolve reads the named sources and @include targets; nil means
	// FileResolver(ReadFile).
	Resolve rulelang.Resolver
	// ReadFile reads files for the default resolver (nil: os.ReadFile).
	ReadFile func(path string) ([]byte, error)
}

func (o ParseOptions) resolver() rulelang.Resolver {
	if o.Resolve != nil {
		return o.Resolve
	}
	return FileResolver(o.ReadFile)
}

// FileResolver reads the shipped sets by name (<RDFS>, <OWL>, …, see
// rules.Lookup) and any other name as a file: relative to the including
// file, or to the working directory for a top-level source. read nil means
// os.ReadFile. Each file is read once per load however often it is
// included, and includes nest at most 32 deep (rulelang's bounds).
func FileResolver(read func(string) ([]byte, error)) rulelang.Resolver {
	if read == nil {
		read = os.ReadFile
	}
	return rulelang.FileResolver(read, rules.Lookup)
}

// ErrFileOverUpload is the error of UploadResolver for a name that is not a
// shipped rule set: a client must not make the server read its own disk.
var ErrFileOverUpload = errors.New("rule files are not read from the server's disk; include the shipped sets (" +
	strings.Join(shippedIncludes(), ", ") + ") or send one self-contained file")

func shippedIncludes() []string {
	var out []string
	for _, n := range rules.Names() {
		out = append(out, "<"+n+">")
	}
	return out
}

// UploadResolver resolves only the shipped rule sets: the resolver for rule
// text that arrives over HTTP. Any other name, relative or absolute, is
// refused with ErrFileOverUpload and nothing is read.
func UploadResolver() rulelang.Resolver {
	return func(name, _ string) (string, []byte, error) {
		if file, src, ok := rules.Lookup(name); ok {
			return file, src, nil
		}
		return "", nil, ErrFileOverUpload
	}
}

// Source is one rule input of a load: Name is a file path or shipped set
// name read through the resolver, or, when Text is not nil, the name an
// uploaded text is reported under.
type Source struct {
	Name string
	Text []byte
}

// ParseProgram parses and compiles one rule text; see LoadSources.
func ParseProgram(file string, src []byte, opts ParseOptions) (*Program, error) {
	return LoadSources(context.Background(), []Source{{Name: file, Text: src}}, opts)
}

// LoadProgram loads rule files or shipped sets (RDFS, OWL, PERFONTO …) by
// name, in order; see LoadSources.
func LoadProgram(names []string, opts ParseOptions) (*Program, error) {
	sources := make([]Source, len(names))
	for i, n := range names {
		sources[i] = Source{Name: n}
	}
	return LoadSources(context.Background(), sources, opts)
}

// LoadSources reads, parses and compiles rule sources in order into one
// program, and reads the #@advice comments of every file it parsed (see
// Program.Advice). A file reached twice (named twice, or included by two
// sources) is parsed once. Errors of all stages and files — unreadable
// sources, syntax, compilation, malformed #@advice — come back together
// as a textpos.ErrorList sorted by position.
func LoadSources(ctx context.Context, sources []Source, opts ParseOptions) (*Program, error) {
	resolve := opts.resolver()
	// Record the text of every file read, for the #@advice check.
	type read struct {
		file string
		src  []byte
	}
	var texts []read
	seen := map[string]bool{}
	keep := func(file string, src []byte) {
		if !seen[file] {
			seen[file] = true
			texts = append(texts, read{file, src})
		}
	}
	recording := func(name, from string) (string, []byte, error) {
		file, src, err := resolve(name, from)
		if err == nil {
			keep(file, src)
		}
		return file, src, err
	}
	included := map[string]bool{}
	all := &rulelang.RuleSet{}
	var errs textpos.ErrorList
	for _, s := range sources {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		file, text := s.Name, s.Text
		if text == nil {
			var err error
			if file, text, err = resolve(s.Name, ""); err != nil {
				errs.Add(textpos.Position{Source: s.Name, Line: 1, Column: 1}, "%v", err)
				continue
			}
		}
		if included[file] {
			continue
		}
		keep(file, text)
		rs, err := rulelang.Parse(file, text, rulelang.Options{Resolve: recording, Defines: opts.Defines, Included: included})
		if rs != nil {
			all.Rules = append(all.Rules, rs.Rules...)
			all.SPARQLRules = append(all.SPARQLRules, rs.SPARQLRules...)
			all.Files = append(all.Files, rs.Files...)
		}
		var el textpos.ErrorList
		if errors.As(err, &el) {
			errs = append(errs, el...)
		} else if err != nil {
			return nil, err
		}
	}
	var advice []rules.Advice
	for _, t := range texts {
		list, err := rules.ParseAdvice(t.file, t.src)
		var perr *textpos.Error
		switch {
		case errors.As(err, &perr):
			errs = append(errs, perr)
		case err != nil:
			errs.Add(textpos.Position{Source: t.file, Line: 1, Column: 1}, "#@advice: %v", err)
		}
		advice = append(advice, list...)
	}
	prog, err := Compile(all)
	var el textpos.ErrorList
	if errors.As(err, &el) {
		errs = append(errs, el...) // report compile errors of the rules that parsed, too
	} else if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	prog.advice = advice
	return prog, nil
}
