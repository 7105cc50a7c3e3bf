package sensor

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// FuzzMessages feeds arbitrary bytes through the message reader and the
// mapper, as a sensor connection or file would: neither may panic, every
// error from the reader ends the stream, and every emitted triple is
// well-formed.
func FuzzMessages(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.xml"))
	for _, name := range seeds {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`<sensordata><sensorid>s</sensorid></sensordata>`))
	base := convert.MustBase("http://fuzz.example/site/")
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := NewReader(bytes.NewReader(data), ReaderOptions{Source: "fuzz", MaxMessage: 1 << 20})
		m := NewMapper(base, Options{}, func(string, string, ...any) {})
		emit := func(table string, s, p, o kb.Term) error {
			if s.IsZero() || p.IsZero() || o.IsZero() {
				t.Fatalf("empty term in %s: %v %v %v", table, s, p, o)
			}
			return nil
		}
		for i := 0; i < 10000; i++ {
			msg, err := rd.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if err.Error() == "" {
					t.Fatal("error without a message")
				}
				return
			}
			_ = m.Map(msg, emit) // a rejected message is reported, not fatal
		}
	})
}

// FuzzMapperDepth sends one data entry whose payload nests an element
// depth levels deep around a leaf, inline or as CDATA, through the reader
// and the mapper: nesting beyond MaxDepth must be refused, and anything
// shallower must map to exactly one field for the leaf (a generic sensor
// names it by its element path: depth repetitions of the element name).
func FuzzMapperDepth(f *testing.F) {
	f.Add(uint16(1), "a", "1", false)
	f.Add(uint16(200), "sample", "37.5", true)
	f.Add(uint16(MaxDepth-1), "x", "", false)
	f.Add(uint16(MaxDepth), "x", "", true)
	f.Add(uint16(40000), "deep", "v", false)
	base := convert.MustBase("http://fuzz.example/site/")
	f.Fuzz(func(t *testing.T, depth uint16, rawName, leaf string, cdata bool) {
		name := strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' {
				return r
			}
			return -1
		}, rawName)
		if name == "" || name == "eventtime" || len(name) > 16 || depth == 0 {
			return
		}
		var esc bytes.Buffer
		if err := xml.EscapeText(&esc, []byte(leaf)); err != nil {
			return
		}
		if !utf8.ValidString(leaf) || strings.TrimSpace(leaf) != leaf || strings.ContainsAny(leaf, "\r\x00") {
			return // the leaf text must survive XML as sent
		}
		var payload bytes.Buffer
		payload.WriteString(`<sensordata eventtime="1100000000">`)
		for range int(depth) {
			payload.WriteString("<" + name + ">")
		}
		payload.Write(esc.Bytes())
		for range int(depth) {
			payload.WriteString("</" + name + ">")
		}
		payload.WriteString(`</sensordata>`)
		var doc bytes.Buffer
		if cdata {
			// The payload inside an entry envelope, parsed on its own.
			if strings.Contains(payload.String(), "]]>") {
				return
			}
			doc.WriteString(`<sensordataentry SensorID="fuzz.deep" ResourceID="r1"><![CDATA[`)
			doc.Write(payload.Bytes())
			doc.WriteString(`]]></sensordataentry>`)
		} else {
			doc.WriteString(`<sensordata SensorID="fuzz.deep" ResourceID="r1"`)
			doc.Write(bytes.TrimPrefix(payload.Bytes(), []byte("<sensordata")))
		}
		rd := NewReader(bytes.NewReader(doc.Bytes()), ReaderOptions{Source: "fuzz"})
		msg, err := rd.Next()
		if int(depth)+1 > MaxDepth {
			// <sensordata> plus depth levels.
			if err == nil || !strings.Contains(err.Error(), "is nested more than") {
				t.Fatalf("depth %d: got %v, want the nesting refused", depth, err)
			}
			return
		}
		if err != nil {
			if strings.ContainsRune(leaf, utf8.RuneError) || strings.ContainsFunc(leaf, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' }) {
				return // characters XML 1.0 forbids
			}
			t.Fatalf("depth %d: reader refused a well-formed message: %v", depth, err)
		}
		m := NewMapper(base, Options{}, func(string, string, ...any) {})
		want := strings.TrimSuffix(strings.Repeat(name+"/", int(depth)), "/")
		var names []string
		err = m.Map(msg, func(table string, s, p, o kb.Term) error {
			if s.IsZero() || p.IsZero() || o.IsZero() {
				t.Fatalf("empty term in %s: %v %v %v", table, s, p, o)
			}
			if p.Value == ontology.FieldName && o.Value != "@eventtime" {
				names = append(names, o.Value)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("depth %d: mapping refused: %v", depth, err)
		}
		if len(names) != 1 || names[0] != want {
			t.Fatalf("depth %d: field names %d (first %.80q), want one %.80q", depth, len(names), names, want)
		}
	})
}
