package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/shacl"
)

// pushValidateFlags are --validate and --shapes of serve and sensor-listen:
// the SHACL check of what sites push (Graph Store writes, sensor
// messages) before it is stored.
type pushValidateFlags struct {
	mode   string
	shapes string
	// checked is set by validate.
	checked server.PushValidation
}

func (f *pushValidateFlags) bind(fs *pflag.FlagSet, what string) {
	fs.StringVar(&f.mode, "validate", "", "check "+what+" against SHACL shapes before storing: reject (refuse what does not conform, with the report) or warn (store it, log the report); --validate alone is reject")
	fs.Lookup("validate").NoOptDefVal = "reject"
	fs.StringVar(&f.shapes, "shapes", "", "SHACL shapes file for --validate (default: the shipped PERFONTO shapes)")
}

// validate parses the mode and reads the shapes file.
func (f *pushValidateFlags) validate() error {
	f.checked = server.PushValidation{}
	switch f.mode {
	case "":
		if f.shapes != "" {
			return usageError(errors.New("--shapes needs --validate"))
		}
		return nil
	case "reject":
		f.checked.Mode = server.ValidateReject
	case "warn":
		f.checked.Mode = server.ValidateWarn
	default:
		return usageError(fmt.Errorf("--validate=%s: want reject (the default) or warn", f.mode))
	}
	if f.shapes == "" {
		return nil // the server parses the shipped shapes once
	}
	// Flag checks run before the command's context matters; reading a
	// local shapes file is quick.
	shapes, err := loadShapes(context.Background(), f.shapes)
	if err != nil {
		return err
	}
	f.checked.Shapes = shapes
	return nil
}

// shapesOrDefault returns the shapes to check against.
func (f *pushValidateFlags) shapesOrDefault(ctx context.Context) (*shacl.Shapes, error) {
	if f.checked.Shapes != nil {
		return f.checked.Shapes, nil
	}
	return shacl.Default(ctx)
}
