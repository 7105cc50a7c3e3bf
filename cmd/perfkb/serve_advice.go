package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

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
		src, err := os.ReadFile(name)
		if err != nil {
			return usageError(fmt.Errorf("--advice: %w", err))
		}
		list, err := rules.ParseAdvice(name, src)
		if err != nil {
			return usageError(fmt.Errorf("--advice: %w", err))
		}
		f.list = append(f.list, list...)
	}
	return nil
}
