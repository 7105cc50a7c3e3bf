package pprof

import (
	"encoding/binary"
	"fmt"
)

// msgSchema gives, per field number of a profile.proto message, the nested
// message's schema (a message field) or nil (a scalar: varint, or packed
// varints).
type msgSchema struct {
	name   string
	fields map[uint64]*msgSchema
	str    map[uint64]bool // length-delimited scalars (string_table)
	sidx   map[uint64]bool // varints that index the string table
}

var (
	valueTypeSchema = &msgSchema{name: "ValueType", fields: map[uint64]*msgSchema{1: nil, 2: nil}, sidx: map[uint64]bool{1: true, 2: true}}
	labelSchema     = &msgSchema{name: "Label", fields: map[uint64]*msgSchema{1: nil, 2: nil, 3: nil, 4: nil}, sidx: map[uint64]bool{1: true, 2: true, 4: true}}
	sampleSchema    = &msgSchema{name: "Sample", fields: map[uint64]*msgSchema{1: nil, 2: nil, 3: labelSchema}}
	mappingSchema   = &msgSchema{name: "Mapping", fields: map[uint64]*msgSchema{1: nil, 2: nil, 3: nil, 4: nil, 5: nil, 6: nil, 7: nil, 8: nil, 9: nil, 10: nil}, sidx: map[uint64]bool{5: true, 6: true}}
	lineSchema      = &msgSchema{name: "Line", fields: map[uint64]*msgSchema{1: nil, 2: nil, 3: nil}}
	locationSchema  = &msgSchema{name: "Location", fields: map[uint64]*msgSchema{1: nil, 2: nil, 3: nil, 4: lineSchema, 5: nil}}
	functionSchema  = &msgSchema{name: "Function", fields: map[uint64]*msgSchema{1: nil, 2: nil, 3: nil, 4: nil, 5: nil}, sidx: map[uint64]bool{2: true, 3: true, 4: true}}
	profileSchema   = &msgSchema{name: "Profile", fields: map[uint64]*msgSchema{
		1: valueTypeSchema, 2: sampleSchema, 3: mappingSchema, 4: locationSchema, 5: functionSchema,
		7: nil, 8: nil, 9: nil, 10: nil, 11: valueTypeSchema, 12: nil, 13: nil, 14: nil, 15: nil,
	}, str: map[uint64]bool{6: true}, sidx: map[uint64]bool{7: true, 8: true, 13: true, 14: true, 15: true}}
)

// wireError is where the data stop following profile.proto.
type wireError struct {
	Offset int64
	Record string // e.g. "Profile.sample #3 field 2"
	Reason string
}

func (e *wireError) Error() string { return fmt.Sprintf("%s: %s", e.Record, e.Reason) }

// checkWire walks data as a profile.proto Profile message and returns the
// first place that does not follow the schema: malformed protobuf, a field
// number Profile does not have, a wire type that does not match the
// field, or a string index beyond the string table (what a profile cut
// before its string table shows). It returns nil for data that follow the
// schema.
func checkWire(data []byte) *wireError {
	if err := walk(data, 0, profileSchema, "Profile", -1); err != nil {
		return err
	}
	// Count the string table's entries (Profile field 6), then check the
	// indexes into it.
	strs := 0
	for i := 0; i < len(data); {
		key, n := binary.Uvarint(data[i:])
		i += n
		switch key & 7 {
		case 0:
			_, n := binary.Uvarint(data[i:])
			i += n
		case 2:
			l, n := binary.Uvarint(data[i:])
			i += n + int(l)
			if key>>3 == 6 {
				strs++
			}
		}
	}
	return walk(data, 0, profileSchema, "Profile", strs)
}

// walk checks one message; strs >= 0 also checks string indexes.
func walk(data []byte, base int64, s *msgSchema, where string, strs int) *wireError {
	checkIdx := func(off int, v uint64, rec string) *wireError {
		if strs >= 0 && v >= uint64(strs) {
			return &wireError{base + int64(off), rec, fmt.Sprintf("string index %d, but the string table has %d entries (truncated profile?)", v, strs)}
		}
		return nil
	}
	counts := map[uint64]int{}
	for i := 0; i < len(data); {
		start := i
		key, n := binary.Uvarint(data[i:])
		if n <= 0 {
			return &wireError{base + int64(start), where, "truncated or overlong field key"}
		}
		i += n
		field, wt := key>>3, key&7
		rec := fmt.Sprintf("%s field %d", where, field)
		sub, known := s.fields[field]
		if !known && !s.str[field] {
			return &wireError{base + int64(start), rec, fmt.Sprintf("%s has no field %d (wire type %d): not a pprof profile", s.name, field, wt)}
		}
		switch wt {
		case 0:
			if sub != nil || s.str[field] {
				return &wireError{base + int64(start), rec, "a varint where profile.proto has a message or string"}
			}
			v, n := binary.Uvarint(data[i:])
			if n <= 0 {
				return &wireError{base + int64(i), rec, "truncated varint"}
			}
			if s.sidx[field] {
				if err := checkIdx(i, v, rec); err != nil {
					return err
				}
			}
			i += n
		case 2:
			l, n := binary.Uvarint(data[i:])
			if n <= 0 || l > uint64(len(data)-i-n) {
				return &wireError{base + int64(i), rec, "length runs past the end of the data (truncated?)"}
			}
			i += n
			body := data[i : i+int(l)]
			k := counts[field]
			counts[field]++
			switch {
			case sub != nil:
				if err := walk(body, base+int64(i), sub, fmt.Sprintf("%s.%s #%d", where, fieldName(s, field), k), strs); err != nil {
					return err
				}
			case !s.str[field]:
				// Packed repeated varints.
				for j := 0; j < len(body); {
					v, n := binary.Uvarint(body[j:])
					if n <= 0 {
						return &wireError{base + int64(i+j), rec, "malformed packed varints"}
					}
					if s.sidx[field] {
						if err := checkIdx(i+j, v, rec); err != nil {
							return err
						}
					}
					j += n
				}
			}
			i += int(l)
		default:
			return &wireError{base + int64(start), rec, fmt.Sprintf("wire type %d: profile.proto has only varints and length-delimited fields", wt)}
		}
	}
	return nil
}

func fieldName(s *msgSchema, field uint64) string {
	if s == profileSchema {
		switch field {
		case 1:
			return "sample_type"
		case 2:
			return "sample"
		case 3:
			return "mapping"
		case 4:
			return "location"
		case 5:
			return "function"
		case 11:
			return "period_type"
		}
	}
	if s == sampleSchema && field == 3 {
		return "label"
	}
	if s == locationSchema && field == 4 {
		return "line"
	}
	return fmt.Sprint("field", field)
}
