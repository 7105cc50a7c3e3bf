package caliper

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/converttest"
	"github.com/perfkb/perfkb/kb"
)

// badCases are files that are not Caliper profiles, with the position and
// reason their error must give.
var badCases = []struct{ name, file, data string }{
	{"no __rec", "x.cali", "__rec=node,id=12,attr=10,data=64,parent=3\nid=13,attr=8,data=x\n"},
	{"undefined parent", "x.cali", "__rec=node,id=12,attr=10,data=64,parent=3\n__rec=node,id=13,attr=8,data=f,parent=99\n"},
	{"value not a number", "x.cali", "__rec=node,id=12,attr=10,data=1,parent=5\n__rec=node,id=13,attr=8,data=t,parent=12\n__rec=ctx,attr=13,data=fast\n"},
	{"attr and data differ", "x.cali", "__rec=node,id=12,attr=10,data=1,parent=5\n__rec=node,id=13,attr=8,data=t,parent=12\n__rec=ctx,attr=13=13,data=1\n"},
	{"ref to nothing", "x.cali", "__rec=ctx,ref=77,attr=,data=\n"},
	{"json syntax", "x.json", "{\"data\": [[1, 2],\n [3 4]], \"columns\": []}"},
	{"json not split", "x.json", "{\"traceEvents\": []}"},
	{"json row width", "x.json", `{"data": [[1, 0, 2]], "columns": ["sum#time.duration", "path"], "column_metadata": [{"is_value": true}, {"is_value": false}], "nodes": [{"label": "main", "column": "path"}]}`},
	{"json path index", "x.json", `{"data": [[1, 5]], "columns": ["sum#time.duration", "path"], "column_metadata": [{"is_value": true}, {"is_value": false}], "nodes": [{"label": "main", "column": "path"}]}`},
}

var badWant = map[string][]string{
	"no __rec":             {"x.cali:2:1", "expected a __rec=KIND entry"},
	"undefined parent":     {"x.cali:2:32", "parent node 99 is not defined"},
	"value not a number":   {"x.cali:3:19", `data 1 of t (double): expected a number, got "fast"`},
	"attr and data differ": {"x.cali:3:22", "2 attr ids for 1 data values"},
	"ref to nothing":       {"x.cali:1:11", `ref 1: "77" is not a node`},
	"json syntax":          {"x.json:2:5", "not Caliper json-split"},
	"json not split":       {"x.json: byte 0", `expected an object with "data", "columns" and "nodes"`},
	"json row width":       {"x.json: data[0]", "3 values for 2 columns"},
	"json path index":      {"x.json: data[0][1]", "expected an index into the 1 nodes, got 5"},
}

func writeBad(t testing.TB, file, data string) string {
	path := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConformance(t *testing.T) {
	var bad []converttest.BadCase
	for _, bc := range badCases {
		bad = append(bad, converttest.BadCase{Name: bc.name, Want: badWant[bc.name], New: func(t testing.TB) convert.Converter {
			return New(writeBad(t, bc.file, bc.data), base, Options{})
		}})
	}
	converttest.Run(t, converttest.Suite{
		New: func(t testing.TB) convert.Converter {
			return New(filepath.Join("testdata", "lulesh-annotation-profile.cali"), base, Options{})
		},
		Bad: bad,
	})
}

type discard struct{}

func (discard) Add(context.Context, kb.TermQuad) error { return nil }
func (discard) Close(context.Context, error) error     { return nil }

// FuzzRead feeds arbitrary bytes to the conversion, as .cali text or
// json-split: it may reject them, always with a positioned invalid-input
// error naming the file, and never panics.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"lulesh-annotation-profile.cali", "lulesh-annotation-profile.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, bc := range badCases {
		f.Add([]byte(bc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		em := convert.NewEmitter("caliper", "fuzz.cali", discard{})
		err := New("fuzz.cali", base, Options{}).convert(context.Background(), em, data)
		if err == nil {
			return
		}
		var ce *convert.Error
		if !errors.As(err, &ce) || !ce.InvalidInput() || ce.Source != "fuzz.cali" {
			t.Fatalf("error is not a positioned invalid-input error of fuzz.cali: %v", err)
		}
	})
}
