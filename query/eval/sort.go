package eval

import (
	"context"
	"sort"
	"sync"
)

// sortRun is how many rows are sorted between two cancellation checks,
// and the smallest piece a sort hands to a worker.
const sortRun = 1 << 13

// sortOrdered sorts rows by before (a strict total order) and stops with
// ctx's error when ctx ends, checking it every sortRun rows: runs of
// sortRun rows are sorted on workers goroutines, then merged pairwise, a
// pass at a time, the pairs of a pass in parallel. A sort of millions of
// rows thus honours a timeout within milliseconds instead of running to
// its end, and uses the cores a machine has.
func sortOrdered(ctx context.Context, workers int, rows []*orderedRow, before func(a, b *orderedRow) bool) error {
	n := len(rows)
	if n <= sortRun {
		sort.Slice(rows, func(i, j int) bool { return before(rows[i], rows[j]) })
		return nil
	}
	workers = max(1, workers)
	var runs [][2]int // [start, end) of each sorted run
	for lo := 0; lo < n; lo += sortRun {
		runs = append(runs, [2]int{lo, min(lo+sortRun, n)})
	}
	if err := parallel(ctx, workers, len(runs), func(i int) error {
		r := rows[runs[i][0]:runs[i][1]]
		sort.Slice(r, func(a, b int) bool { return before(r[a], r[b]) })
		return nil
	}); err != nil {
		return err
	}
	src, dst := rows, make([]*orderedRow, n)
	for len(runs) > 1 {
		var next [][2]int
		pairs := (len(runs) + 1) / 2
		for p := 0; p < pairs; p++ {
			lo, end := runs[2*p][0], runs[2*p][1]
			if 2*p+1 < len(runs) {
				end = runs[2*p+1][1]
			}
			next = append(next, [2]int{lo, end})
		}
		cur := runs
		if err := parallel(ctx, workers, pairs, func(p int) error {
			a := cur[2*p]
			if 2*p+1 == len(cur) {
				copy(dst[a[0]:a[1]], src[a[0]:a[1]])
				return nil
			}
			return mergeRuns(ctx, dst[a[0]:cur[2*p+1][1]], src[a[0]:a[1]], src[a[1]:cur[2*p+1][1]], before)
		}); err != nil {
			return err
		}
		src, dst, runs = dst, src, next
	}
	if &src[0] != &rows[0] {
		copy(rows, src)
	}
	return nil
}

// mergeRuns merges the sorted runs a and b into out (len(a)+len(b)),
// taking from a on ties (a holds the earlier rows), checking ctx every
// sortRun rows.
func mergeRuns(ctx context.Context, out, a, b []*orderedRow, before func(a, b *orderedRow) bool) error {
	i, j := 0, 0
	for k := range out {
		if k%sortRun == sortRun-1 {
			if err := ctxErr(ctx); err != nil {
				return err
			}
		}
		if j >= len(b) || i < len(a) && !before(b[j], a[i]) {
			out[k] = a[i]
			i++
		} else {
			out[k] = b[j]
			j++
		}
	}
	return nil
}

// parallel runs do(0) … do(n-1) on at most workers goroutines, checking
// ctx before each; it returns the first error.
func parallel(ctx context.Context, workers, n int, do func(i int) error) error {
	if workers > n {
		workers = n
	}
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if first != nil || next >= n {
			return 0, false
		}
		next++
		return next - 1, true
	}
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok {
					return
				}
				if err := ctxErr(ctx); err != nil {
					fail(err)
					return
				}
				if err := do(i); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}
