package pprof

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/converttest"
)

// badCases are files that are not pprof profiles, with the position
// (hand-decoded from their bytes) and reason their error must give.
var badCases = []struct{ file, pos, msg string }{
	// google.protobuf.Timestamp{seconds: 1700000000, nanos: 5}: field 1 is a
	// varint, where Profile has the sample_type message.
	{"timestamp.pb", "byte 0 (Profile field 1)", "a varint where profile.proto has a message"},
	// A FileDescriptorProto's name "x.proto" read as a ValueType: 'x' is
	// the key of field 15.
	{"descriptor.pb", "byte 2 (Profile.sample_type #0 field 15)", "ValueType has no field 15"},
	// A sample_type of length 4 with 2 bytes left.
	{"truncated.pb", "byte 1 (Profile field 1)", "runs past the end"},
	// Text: "he" is field 13 (comment) = 'e'; 'l' is wire type 4.
	{"text.txt", "byte 2 (Profile field 13)", "wire type 4"},
	{"empty.pb", "byte 0", "empty file"},
	// The first half of the fixture's protobuf, gzip-compressed again.
	// The cut falls between fields and drops the string table.
	{"cut.pb.gz", "byte ", "but the string table has 0 entries (truncated profile?)"},
}

func TestNotPprof(t *testing.T) {
	for _, bc := range badCases {
		t.Run(bc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "bad", bc.file))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Read(data, bc.file)
			if err == nil || !strings.Contains(err.Error(), bc.file+": "+bc.pos) || !strings.Contains(err.Error(), bc.msg) {
				t.Errorf("error %v\nwant %q and %q", err, bc.file+": "+bc.pos, bc.msg)
			}
		})
	}
}

// TestSampleIndex: a sample that does not fit the profile is named by its
// index.
func TestSampleIndex(t *testing.T) {
	fn := &profile.Function{ID: 1, Name: "f"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Function:   []*profile.Function{fn}, Location: []*profile.Location{loc},
		Sample: []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{1, 2}}, {Location: []*profile.Location{loc}, Value: []int64{1}}},
	}
	var buf strings.Builder
	if err := p.WriteUncompressed(&buf); err != nil {
		t.Fatal(err)
	}
	_, err := Read([]byte(buf.String()), "two.pb")
	if err == nil || !strings.Contains(err.Error(), "two.pb: sample 1: 1 values for 2 sample types") {
		t.Errorf("error %v", err)
	}
}

func TestConformance(t *testing.T) {
	var bad []converttest.BadCase
	for _, bc := range badCases {
		bad = append(bad, converttest.BadCase{Name: bc.file, Want: []string{bc.pos, bc.msg}, New: func(t testing.TB) convert.Converter {
			return New(filepath.Join("testdata", "bad", bc.file), base, Options{})
		}})
	}
	converttest.Run(t, converttest.Suite{
		New: func(t testing.TB) convert.Converter {
			return New(filepath.Join("testdata", "cpu.pb.gz"), base, Options{})
		},
		Bad: bad,
	})
}

// TestReport: the report counts the profile's samples and functions.
func TestReport(t *testing.T) {
	rep, err := convert.Run(context.Background(), New(filepath.Join("testdata", "cpu.pb.gz"), base, Options{}), &memSink{})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join("testdata", "cpu.pb.gz"))
	p, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int64{}
	for _, tb := range rep.Tables {
		rows[tb.Name] = tb.Rows
	}
	if rows["sample"] != int64(len(p.Sample)) {
		t.Errorf("report counts %d samples, the profile has %d", rows["sample"], len(p.Sample))
	}
}
