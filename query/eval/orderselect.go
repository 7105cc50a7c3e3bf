package eval

import (
	"context"
	"math/bits"
	"sort"
)

// selectMin is the LIMIT (with its OFFSET) from which ORDER BY keeps its
// candidate rows in a buffer pruned by selection rather than in a heap. A
// heap costs log(keep) comparisons per row; with keep in the hundred
// thousands (Sparqloscope's percentile placeholders: ORDER BY ?o LIMIT 1
// OFFSET n/2) that was most of the query, and only the rows from the
// OFFSET on need sorting at all.
const selectMin = 1024

// runSelect is orderNode.run for keep ≥ selectMin: rows collect in a
// buffer of up to 2·keep; a full buffer is cut to its best keep rows by
// selection (linear time), and a row that does not sort before the worst
// row kept by the last cut is dropped as it arrives. At the end the first
// skip rows (those the slice above drops) are selected but not sorted;
// only the rest are.
func (n *orderNode) runSelect(ex *executor, seed row, emit func(row) bool, before func(a, b *orderedRow) bool, acct *account) error {
	keep := int(n.keep)
	var rows []*orderedRow
	var worst *orderedRow
	var seq int64
	cut := func() error {
		if len(rows) <= keep {
			return nil
		}
		if err := selectOrdered(ex.ctx, rows, keep-1, before); err != nil {
			return err
		}
		for i := keep; i < len(rows); i++ {
			acct.release(rows[i].bytes())
			rows[i] = nil
		}
		rows = rows[:keep]
		worst = rows[keep-1]
		return nil
	}
	err := runInner(ex, n.input, seed, func(r row) error {
		if worst != nil && n.sameKeys(r, worst) {
			// Ties the worst kept row and comes later: not kept.
			seq++
			return ex.check()
		}
		k, err := n.keyed(ex, r, seq)
		if err != nil {
			return err
		}
		seq++
		if worst != nil && !before(k, worst) {
			return ex.check()
		}
		if err := acct.charge(k.bytes()); err != nil {
			return err
		}
		rows = append(rows, k)
		if len(rows) >= 2*keep {
			if err := cut(); err != nil {
				return err
			}
		}
		return ex.check()
	})
	if err != nil {
		return err
	}
	if err := cut(); err != nil {
		return err
	}
	skip := int(min(n.skip, int64(len(rows))))
	if skip > 0 && skip < len(rows) {
		if err := selectOrdered(ex.ctx, rows, skip-1, before); err != nil {
			return err
		}
	}
	if err := sortOrdered(ex.ctx, ex.workers(), rows[skip:], before); err != nil {
		return err
	}
	for _, k := range rows {
		if !emit(k.r) {
			return errStop
		}
	}
	return nil
}

// selectOrdered rearranges rows so that rows[k] is the row a sort by
// before would put there, with every row before it sorting before it and
// every row after it sorting after (before must be a strict total order).
// It is quickselect with a median-of-three pivot, falling back to sorting
// the remaining range when partitions keep coming out lopsided, so it is
// linear on average and n·log n at worst. ctx is checked once per
// partition pass.
func selectOrdered(ctx context.Context, rows []*orderedRow, k int, before func(a, b *orderedRow) bool) error {
	lo, hi := 0, len(rows)-1
	budget := 2 * bits.Len(uint(len(rows)))
	for hi > lo {
		if err := ctx.Err(); err != nil {
			return err
		}
		if budget == 0 {
			r := rows[lo : hi+1]
			sort.Slice(r, func(i, j int) bool { return before(r[i], r[j]) })
			return nil
		}
		budget--
		mid := lo + (hi-lo)/2
		// Median of three into rows[mid].
		if before(rows[mid], rows[lo]) {
			rows[mid], rows[lo] = rows[lo], rows[mid]
		}
		if before(rows[hi], rows[lo]) {
			rows[hi], rows[lo] = rows[lo], rows[hi]
		}
		if before(rows[hi], rows[mid]) {
			rows[hi], rows[mid] = rows[mid], rows[hi]
		}
		pivot := rows[mid]
		// Hoare partition around pivot: afterwards rows[lo..j] ≤ pivot ≤
		// rows[j+1..hi] (no two rows are equal under a total order with
		// the arrival number last).
		i, j := lo-1, hi+1
		for {
			for i++; before(rows[i], pivot); i++ {
			}
			for j--; before(pivot, rows[j]); j-- {
			}
			if i >= j {
				break
			}
			rows[i], rows[j] = rows[j], rows[i]
		}
		if k <= j {
			hi = j
		} else {
			lo = j + 1
		}
	}
	return nil
}
