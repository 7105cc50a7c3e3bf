package reasoner

import (
	"os"

	"github.com/perfkb/perfkb/reasoner/rulelang"
	"github.com/perfkb/perfkb/rules"
)

// ParseOptions configure how rule files are read.
type ParseOptions struct {
	// Defines overrides named constants (NAME -> value text).
	Defines map[string]string
	// ReadFile reads included files (nil: os.ReadFile).
	ReadFile func(path string) ([]byte, error)
}

func (o ParseOptions) resolver() rulelang.Resolver {
	read := o.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	return rulelang.FileResolver(read, rules.Lookup)
}

// Parse parses rule text (with its @include files) without compiling it.
func Parse(file string, src []byte, opts ParseOptions) (*rulelang.RuleSet, error) {
	return rulelang.Parse(file, src, rulelang.Options{Resolve: opts.resolver(), Defines: opts.Defines})
}

// ParseProgram parses and compiles rule text. Errors of both stages come
// back together as a rulelang.ErrorList.
func ParseProgram(file string, src []byte, opts ParseOptions) (*Program, error) {
	rs, err := Parse(file, src, opts)
	perrs, ok := err.(rulelang.ErrorList)
	if err != nil && !ok {
		return nil, err
	}
	prog, cerr := Compile(rs)
	if cerr == nil && len(perrs) == 0 {
		return prog, nil
	}
	if cerrs, ok := cerr.(rulelang.ErrorList); ok {
		perrs = append(perrs, cerrs...)
	} else if cerr != nil {
		return nil, cerr
	}
	perrs.Sort()
	return nil, perrs
}

// LoadProgram reads, parses and compiles rule sources in order into one
// program. Each source is a file path or the name of a shipped set (RDFS,
// OWL, PERFONTO). All errors of all files come back together.
func LoadProgram(sources []string, opts ParseOptions) (*Program, error) {
	all := &rulelang.RuleSet{}
	var errs rulelang.ErrorList
	for _, src := range sources {
		file, text, ok := rules.Lookup(src)
		if !ok {
			read := opts.ReadFile
			if read == nil {
				read = os.ReadFile
			}
			b, err := read(src)
			if err != nil {
				errs = append(errs, &rulelang.Error{Pos: rulelang.Pos{File: src, Line: 1, Col: 1}, Msg: "cannot read rule file: " + err.Error()})
				continue
			}
			file, text = src, b
		}
		rs, err := Parse(file, text, opts)
		if rs != nil {
			all.Rules = append(all.Rules, rs.Rules...)
			all.Files = append(all.Files, rs.Files...)
		}
		if el, ok := err.(rulelang.ErrorList); ok {
			errs = append(errs, el...)
		} else if err != nil {
			return nil, err
		}
	}
	prog, err := Compile(all)
	if el, ok := err.(rulelang.ErrorList); ok {
		errs = append(errs, el...) // report compile errors of the rules that parsed, too
	} else if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return prog, nil
}
