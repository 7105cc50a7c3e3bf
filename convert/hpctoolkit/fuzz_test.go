package hpctoolkit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
)

type discard struct{}

func (discard) Add(context.Context, kb.TermQuad) error { return nil }
func (discard) Close(context.Context, error) error     { return nil }

// FuzzConvert feeds arbitrary meta.db and profile.db bytes to the
// conversion: it may reject them, always with a positioned invalid-input
// error naming one of the two files, and never panics or loops.
func FuzzConvert(f *testing.F) {
	meta, err := os.ReadFile(filepath.Join("testdata", "d.x", "meta.db"))
	if err != nil {
		f.Fatal(err)
	}
	prof, err := os.ReadFile(filepath.Join("testdata", "d.x", "profile.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(meta, prof)
	f.Add(meta[:len(meta)/2], prof)
	f.Add(meta, prof[:200])
	f.Fuzz(func(t *testing.T, meta, prof []byte) {
		em := convert.NewEmitter("hpctoolkit", "fuzz", discard{})
		err := New("fuzz", base, Options{}).convert(context.Background(), em, "fuzz/meta.db", meta, "fuzz/profile.db", prof)
		if err == nil {
			return
		}
		var ce *convert.Error
		if !errors.As(err, &ce) || !ce.InvalidInput() || (ce.Source != "fuzz/meta.db" && ce.Source != "fuzz/profile.db") {
			t.Fatalf("error is not a positioned invalid-input error of meta.db or profile.db: %v", err)
		}
	})
}

// FuzzExperimentXML feeds arbitrary experiment.xml and metric-db bytes to
// the conversion of the older layout: it may reject them, always with a
// positioned invalid-input error naming one of the two files, and never
// panics or loops.
func FuzzExperimentXML(f *testing.F) {
	xmlData, err := os.ReadFile(filepath.Join(cpiDB, "experiment.xml"))
	if err != nil {
		f.Fatal(err)
	}
	db, err := os.ReadFile(filepath.Join(cpiDB, rank0DB))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(xmlData, db)
	f.Add(xmlData[:len(xmlData)/2], db)
	f.Add(xmlData, db[:100])
	const xmlName, dbName = "fuzz/experiment.xml", "fuzz/" + rank0DB
	f.Fuzz(func(t *testing.T, xmlData, db []byte) {
		em := convert.NewEmitter("hpctoolkit", "fuzz", discard{})
		err := New("fuzz", base, Options{}).convertXML(context.Background(), em, xmlName, xmlData, []namedFile{{dbName, db}})
		if err == nil {
			return
		}
		var ce *convert.Error
		if !errors.As(err, &ce) || !ce.InvalidInput() || (ce.Source != xmlName && ce.Source != dbName) {
			t.Fatalf("error is not a positioned invalid-input error of experiment.xml or the metric-db file: %v", err)
		}
	})
}
