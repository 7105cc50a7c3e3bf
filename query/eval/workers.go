package eval

import "runtime"

// workers is how many goroutines one operator of the query may use at
// once: Options.Workers when set (at least 1), else GOMAXPROCS.
func (ex *executor) workers() int {
	if ex.opts.Workers != nil {
		return max(1, ex.opts.Workers())
	}
	return runtime.GOMAXPROCS(0)
}
