package pg

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

var errZeroTerm = errors.New("pg: cannot intern the zero term")

// termHash is the dictionary key of a term: 128 bits of SHA-256 over its
// kind and length-prefixed strings, so no two distinct terms share an
// encoding. Each of the three strings is preceded by the kind and its
// length (8 bytes, little-endian); stores hold these keys, so the encoding
// never changes. The encoding is built in a stack buffer when it fits: a
// load hashes every new term, and a hash.Hash and its writes allocated
// five times per term.
func termHash(t kb.Term) []byte {
	var stack [256]byte
	buf := stack[:0]
	for _, s := range [3]string{t.Value, t.Datatype, t.Lang} {
		buf = append(buf, byte(t.Kind))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	sum := sha256.Sum256(buf)
	return append([]byte(nil), sum[:16]...)
}

var (
	integerLex = regexp.MustCompile(`^[+-]?[0-9]+$`)
	decimalLex = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)
	doubleLex  = regexp.MustCompile(`^([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN)$`)
)

// numericValue is the number a literal of xsd:integer, decimal, double or
// float stands for, when its lexical form is valid; SQL filters compare it.
func numericValue(t kb.Term) pgtype.Float8 {
	if t.Kind != kb.KindLiteral {
		return pgtype.Float8{}
	}
	var ok bool
	switch t.Datatype {
	case ontology.XSDInteger:
		ok = integerLex.MatchString(t.Value)
	case ontology.XSDDecimal:
		ok = decimalLex.MatchString(t.Value)
	case ontology.XSDDouble, ontology.XSDFloat:
		ok = doubleLex.MatchString(t.Value)
	}
	if !ok {
		return pgtype.Float8{}
	}
	v := t.Value
	switch v {
	case "INF", "+INF":
		v = "+Inf"
	case "-INF":
		v = "-Inf"
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return pgtype.Float8{}
	}
	return pgtype.Float8{Float64: f, Valid: true}
}

// remember caches a term's ID; IDs never change, so the cache never goes
// stale, whichever process wrote the term.
func (s *Store) remember(id kb.ID, t kb.Term) {
	s.byID[id] = t
	s.byKey[t] = id
}

// TermOf implements kb.TermTable from the terms this process has seen.
func (s *Store) TermOf(id kb.ID) (kb.Term, bool) {
	s.mu.RLock()
	t, ok := s.byID[id]
	s.mu.RUnlock()
	return t, ok
}

// Intern implements kb.Dataset.
func (s *Store) Intern(ctx context.Context, terms []kb.Term) ([]kb.ID, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	ids := make([]kb.ID, len(terms))
	var missing []kb.Term
	seen := map[kb.Term]bool{}
	s.mu.RLock()
	for i, t := range terms {
		if t.IsZero() {
			s.mu.RUnlock()
			return nil, errZeroTerm
		}
		if id, ok := s.byKey[t]; ok {
			ids[i] = id
		} else if !seen[t] {
			seen[t] = true
			missing = append(missing, t)
		}
	}
	s.mu.RUnlock()
	if len(missing) == 0 {
		return ids, nil
	}
	// A term another session inserts after this statement's snapshot is
	// skipped by ON CONFLICT and not seen by the SELECT: ask again for it.
	for attempt := 0; len(missing) > 0; attempt++ {
		if attempt == 5 {
			return nil, fmt.Errorf("pg: intern: %d terms neither inserted nor found after %d tries", len(missing), attempt)
		}
		found, err := s.insertTerms(ctx, missing)
		if err != nil {
			return nil, err
		}
		rest := missing[:0]
		for _, t := range missing {
			if _, ok := found[t]; !ok {
				rest = append(rest, t)
			}
		}
		missing = rest
	}
	s.mu.RLock()
	for i, t := range terms {
		if ids[i] == 0 {
			ids[i] = s.byKey[t]
		}
	}
	s.mu.RUnlock()
	return ids, nil
}

// insertTerms inserts the terms the dictionary lacks and returns the IDs of
// every term it could find or insert.
func (s *Store) insertTerms(ctx context.Context, terms []kb.Term) (map[kb.Term]kb.ID, error) {
	n := len(terms)
	hs := make([][]byte, n)
	kinds := make([]int16, n)
	values := make([]string, n)
	dts := make([]string, n)
	langs := make([]string, n)
	nums := make([]pgtype.Float8, n)
	byHash := make(map[string]kb.Term, n)
	for i, t := range terms {
		hs[i] = termHash(t)
		kinds[i] = int16(t.Kind)
		values[i], dts[i], langs[i] = t.Value, t.Datatype, t.Lang
		nums[i] = numericValue(t)
		byHash[string(hs[i])] = t
	}
	rows, err := s.pool.Query(ctx, `WITH input AS (
		SELECT * FROM unnest($1::bytea[], $2::int2[], $3::text[], $4::text[], $5::text[], $6::float8[]) AS i(h, kind, value, datatype, lang, num)),
	ins AS (
		INSERT INTO `+s.q.t("terms")+` (id, h, kind, value, datatype, lang, num)
		SELECT nextval('`+s.q.t("term_ids")+`'), h, kind, value, datatype, lang, num FROM input
		ON CONFLICT (h) DO NOTHING RETURNING id, h)
	SELECT id, h FROM ins
	UNION ALL
	SELECT t.id, t.h FROM `+s.q.t("terms")+` t JOIN input i ON t.h = i.h`,
		hs, kinds, values, dts, langs, nums)
	if err != nil {
		return nil, fmt.Errorf("pg: intern %d terms: %w", n, err)
	}
	found := make(map[kb.Term]kb.ID, n)
	var id int64
	var h []byte
	for rows.Next() {
		if err := rows.Scan(&id, &h); err != nil {
			rows.Close()
			return nil, fmt.Errorf("pg: intern: %w", err)
		}
		if t, ok := byHash[string(h)]; ok {
			found[t] = kb.ID(id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pg: intern %d terms: %w", n, err)
	}
	s.mu.Lock()
	for t, id := range found {
		s.remember(id, t)
	}
	s.mu.Unlock()
	return found, nil
}

// Lookup implements kb.Dataset.
func (s *Store) Lookup(ctx context.Context, t kb.Term) (kb.ID, bool, error) {
	if err := s.check(); err != nil {
		return 0, false, err
	}
	if t.IsZero() {
		return 0, false, nil
	}
	s.mu.RLock()
	id, ok := s.byKey[t]
	s.mu.RUnlock()
	if ok {
		return id, true, nil
	}
	var n int64
	err := s.pool.QueryRow(ctx, "SELECT id FROM "+s.q.t("terms")+" WHERE h = $1", termHash(t)).Scan(&n)
	if errors.Is(err, errNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("pg: lookup %v: %w", t, err)
	}
	s.mu.Lock()
	s.remember(kb.ID(n), t)
	s.mu.Unlock()
	return kb.ID(n), true, nil
}

// resolveWindow is the size of the aligned block of IDs Resolve fetches
// with a missed one: IDs are issued in load order, so the terms of one
// result set tend to sit close together, and one round trip then serves
// many Resolve calls. Aligned blocks serve neighbours on either side (a
// caller walking IDs downwards) and are never fetched twice.
const resolveWindow = 512

// Resolve implements kb.Dataset.
func (s *Store) Resolve(ctx context.Context, id kb.ID) (kb.Term, error) {
	if err := s.check(); err != nil {
		return kb.Term{}, err
	}
	if t, ok := s.TermOf(id); ok {
		return t, nil
	}
	if id == 0 || id > 1<<62 {
		return kb.Term{}, fmt.Errorf("%w: %d", kb.ErrUnknownID, id)
	}
	if err := s.fetchTerms(ctx, "id >= $1 AND id < $1 + $2", int64(id)&^(resolveWindow-1), int64(resolveWindow)); err != nil {
		return kb.Term{}, err
	}
	if t, ok := s.TermOf(id); ok {
		return t, nil
	}
	return kb.Term{}, fmt.Errorf("%w: %d", kb.ErrUnknownID, id)
}

// ResolveMany fetches the terms of ids this process has not seen in one
// round trip, so that the Resolve calls that follow are memory lookups.
func (s *Store) ResolveMany(ctx context.Context, ids []kb.ID) error {
	if err := s.check(); err != nil {
		return err
	}
	var want []int64
	s.mu.RLock()
	for _, id := range ids {
		if _, ok := s.byID[id]; !ok && id != 0 && id <= 1<<62 {
			want = append(want, int64(id))
		}
	}
	s.mu.RUnlock()
	if len(want) == 0 {
		return nil
	}
	return s.fetchTerms(ctx, "id = ANY($1)", want)
}

func (s *Store) fetchTerms(ctx context.Context, where string, args ...any) error {
	rows, err := s.pool.Query(ctx, "SELECT id, kind, value, datatype, lang FROM "+s.q.t("terms")+" WHERE "+where, args...)
	if err != nil {
		return fmt.Errorf("pg: resolve: %w", err)
	}
	defer rows.Close()
	type entry struct {
		id kb.ID
		t  kb.Term
	}
	var got []entry
	for rows.Next() {
		var id int64
		var kind int16
		var t kb.Term
		if err := rows.Scan(&id, &kind, &t.Value, &t.Datatype, &t.Lang); err != nil {
			return fmt.Errorf("pg: resolve: %w", err)
		}
		t.Kind = kb.TermKind(kind)
		got = append(got, entry{kb.ID(id), t})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pg: resolve: %w", err)
	}
	s.mu.Lock()
	for _, e := range got {
		s.remember(e.id, e.t)
	}
	s.mu.Unlock()
	return nil
}

// knownIDs reports which of ids (distinct, non-zero) the dictionary lacks,
// asking the database only about the ones this process has not seen.
func (s *Store) unknownIDs(ctx context.Context, q querier, ids map[kb.ID]struct{}) ([]kb.ID, error) {
	var ask []int64
	s.mu.RLock()
	for id := range ids {
		if _, ok := s.byID[id]; !ok {
			ask = append(ask, int64(id))
		}
	}
	s.mu.RUnlock()
	if len(ask) == 0 {
		return nil, nil
	}
	rows, err := q.Query(ctx, "SELECT x FROM unnest($1::int8[]) AS x WHERE NOT EXISTS (SELECT 1 FROM "+s.q.t("terms")+" WHERE id = x)", ask)
	if err != nil {
		return nil, fmt.Errorf("pg: checking term IDs: %w", err)
	}
	defer rows.Close()
	var unknown []kb.ID
	for rows.Next() {
		var x int64
		if err := rows.Scan(&x); err != nil {
			return nil, err
		}
		unknown = append(unknown, kb.ID(x))
	}
	return unknown, rows.Err()
}
