package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/rules"
)

// adviceFlags are serve's --advice files: rule files whose #@advice
// comments the query page shows next to the findings of their classes, so
// a site that writes rules for its own problem classes gets its advice
// shown too (the shipped rule sets' advice is always there).
type adviceFlags struct {
	files []string
	list  []rules.Advice // read by validate
}

func (f *adviceFlags) bind(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.files, "advice", nil, "rule files whose #@advice comments the query page shows with the findings of their problem classes (repeatable)")
}

// validate reads the files; a missing file or a malformed #@advice comment
// is a usage error with its position.
func (f *adviceFlags) validate() error {
	f.list = nil
	for _, name := range f.files {
		// The one rule-loading path, as perfkb reason reads a file: the
		// rules and every #@advice are checked, with their positions.
		prog, err := reasoner.LoadProgram([]string{name}, reasoner.ParseOptions{})
		if err != nil {
			return usageError(fmt.Errorf("--advice: %w", err))
		}
		for _, a := range prog.Advice() {
			if !rules.IsShippedFile(a.File) { // the shipped advice is always there
				f.list = append(f.list, a)
			}
		}
	}
	return nil
}
