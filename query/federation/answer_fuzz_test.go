package federation

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/results"
)

// answerMediaTypes are the Content-Types a site may answer with; the empty
// and generic ones make readAnswer sniff the first byte.
var answerMediaTypes = []string{
	"application/sparql-results+json",
	"application/sparql-results+xml",
	"text/tab-separated-values",
	"text/csv",
	"",
	"application/octet-stream",
}

// FuzzReadAnswer feeds arbitrary bytes to the federation answer reader
// under every media type, a memory budget and, in half the cases, an
// already-cancelled context, as a hostile or broken site could answer.
// The reader may refuse the answer but never panic, and an accepted
// answer must hold: every row has a slot for every variable; every kept
// row was charged at least its fixed overhead (so an answer cannot grow
// past the budget uncharged); the budget is never exceeded; a refusal at
// the budget is the budget's eval.ErrLimit; and under a cancelled context
// no more rows are kept than are decoded between two context checks.
// Read counting only (results.ReadOptions.CountOnly), every answer is
// accepted or refused as when its terms are built, with as many rows.
func FuzzReadAnswer(f *testing.F) {
	for i, mt := range answerMediaTypes[:4] {
		f.Add([]byte(bigAnswer(mt, 3)), uint8(i), uint16(4096), false)
		f.Add([]byte(bigAnswer(mt, 100)), uint8(i), uint16(65535), true)
	}
	f.Add([]byte(`{"results":{"bindings":[{"x":{"type":"literal","value":"1"}}]},"head":{"vars":["y","x"]}}`), uint8(0), uint16(4096), false)
	f.Add([]byte(`{"head":{},"boolean":true}`), uint8(4), uint16(100), false)
	f.Add([]byte(`<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head/><boolean>true</boolean></sparql>`), uint8(5), uint16(100), false)
	f.Add([]byte("?a\t?b\n\"x\"@en\t\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>\n"), uint8(2), uint16(4096), false)
	f.Add([]byte("a,b\r\n\"multi\nline\",_:b0\r\n"), uint8(3), uint16(4096), false)
	f.Fuzz(func(t *testing.T, data []byte, mt uint8, budgetKiB uint16, cancelled bool) {
		contentType := answerMediaTypes[int(mt)%len(answerMediaTypes)]
		budget := int64(budgetKiB) << 10
		var charged int64
		refused := false
		charge := func(n int64) error {
			if n < 0 {
				t.Fatalf("negative charge %d", n)
			}
			if charged+n > budget {
				refused = true
				return &eval.LimitError{Limit: "query-memory", Value: budget}
			}
			charged += n
			return nil
		}
		ctx, cancel := context.WithCancel(context.Background())
		if cancelled {
			cancel()
		} else {
			defer cancel()
		}
		rs, err := readAnswer(ctx, contentType, bytes.NewReader(data), results.ReadOptions{Charge: charge})
		if !cancelled {
			// Counting only, the same answer is accepted or refused
			// alike, with as many rows, and none of them kept.
			crs, cerr := readAnswer(context.Background(), contentType, bytes.NewReader(data), results.ReadOptions{CountOnly: true})
			switch {
			case err == nil && cerr != nil:
				t.Fatalf("read with its terms, refused counting only: %v", cerr)
			case err == nil && (crs.Count != len(rs.Rows) || rs.Count != len(rs.Rows)):
				t.Fatalf("counting only, %d rows; with the terms, %d (Count %d)", crs.Count, len(rs.Rows), rs.Count)
			case err != nil && !refused && cerr == nil:
				t.Fatalf("refused with its terms (%v), accepted counting only", err)
			case cerr == nil && len(crs.Rows) != 0:
				t.Fatalf("counting only, %d rows kept", len(crs.Rows))
			}
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatal("error without a message")
			}
			if charged > budget {
				t.Fatalf("charged %d past the budget %d", charged, budget)
			}
			if refused && !cancelled && !errors.Is(err, eval.ErrLimit) {
				t.Fatalf("refused at the budget, but the error is not eval.ErrLimit: %v", err)
			}
			return
		}
		if refused {
			t.Fatal("a charge was refused, yet the answer was accepted")
		}
		if rs == nil {
			t.Fatal("nil result set without an error")
		}
		for i, row := range rs.Rows {
			if len(row) < len(rs.Vars) {
				t.Fatalf("row %d has %d slots for %d variables %q", i, len(row), len(rs.Vars), rs.Vars)
			}
		}
		if min := int64(len(rs.Rows)) * 40; charged < min {
			t.Fatalf("%d rows kept but only %d bytes charged (at least %d)", len(rs.Rows), charged, min)
		}
		if charged > budget {
			t.Fatalf("charged %d past the budget %d", charged, budget)
		}
		if cancelled && len(rs.Rows) >= results.ContextCheckRows {
			t.Fatalf("%d rows decoded under a cancelled context", len(rs.Rows))
		}
	})
}

// TestReadAnswerLimitIsTyped checks the property FuzzReadAnswer relies on
// for refusals: an answer past the budget fails with an error that is
// eval.ErrLimit, in every format.
func TestReadAnswerLimitIsTyped(t *testing.T) {
	for _, mt := range answerMediaTypes[:4] {
		t.Run(mt, func(t *testing.T) {
			var charged int64
			charge := func(n int64) error {
				if charged+n > 4096 {
					return &eval.LimitError{Limit: "query-memory", Value: 4096}
				}
				charged += n
				return nil
			}
			_, err := readAnswer(context.Background(), mt, bytes.NewReader([]byte(bigAnswer(mt, 1000))), results.ReadOptions{Charge: charge})
			if !errors.Is(err, eval.ErrLimit) {
				t.Fatalf("1000 rows under a 4 KiB budget: got %v, want eval.ErrLimit", err)
			}
		})
	}
}
