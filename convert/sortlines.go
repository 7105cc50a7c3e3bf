package convert

import (
	"bufio"
	"container/heap"
	"io"
	"os"
	"slices"
)

// defaultRunBytes is how much line text sorted output keeps in memory
// before it spills a sorted run to a temporary file.
const defaultRunBytes = 32 << 20

// lineSorter sorts lines and drops duplicates with bounded memory: runs of
// about runBytes are sorted in memory and spilled to unlinked temporary
// files, which writeTo merges.
type lineSorter struct {
	runBytes int
	lines    []string
	size     int
	runs     []*os.File
}

func (ls *lineSorter) add(line string) error {
	ls.lines = append(ls.lines, line)
	ls.size += len(line) + 16
	if ls.size >= ls.runBytes {
		return ls.spill()
	}
	return nil
}

func (ls *lineSorter) sortRun() {
	slices.Sort(ls.lines)
	ls.lines = slices.Compact(ls.lines)
}

func (ls *lineSorter) spill() error {
	ls.sortRun()
	f, err := os.CreateTemp("", "perfkb-sort-*")
	if err != nil {
		return err
	}
	// Unlinked at once: the run disappears with the process, whatever happens.
	os.Remove(f.Name())
	ls.runs = append(ls.runs, f)
	w := bufio.NewWriterSize(f, 256<<10)
	for _, l := range ls.lines {
		if _, err := w.WriteString(l); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	ls.lines, ls.size = nil, 0
	return nil
}

// writeTo writes the sorted, duplicate-free lines.
func (ls *lineSorter) writeTo(w *bufio.Writer) error {
	defer ls.discard()
	if len(ls.runs) == 0 {
		ls.sortRun()
		for _, l := range ls.lines {
			if _, err := w.WriteString(l); err != nil {
				return err
			}
		}
		return nil
	}
	if len(ls.lines) > 0 {
		if err := ls.spill(); err != nil {
			return err
		}
	}
	h := &runHeap{}
	for _, f := range ls.runs {
		r := &run{r: bufio.NewReaderSize(f, 64<<10)}
		if ok, err := r.next(); err != nil {
			return err
		} else if ok {
			h.items = append(h.items, r)
		}
	}
	heap.Init(h)
	last := ""
	for h.Len() > 0 {
		r := h.items[0]
		if r.line != last {
			if _, err := w.WriteString(r.line); err != nil {
				return err
			}
			last = r.line
		}
		ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}

func (ls *lineSorter) discard() {
	for _, f := range ls.runs {
		f.Close()
	}
	ls.runs, ls.lines, ls.size = nil, nil, 0
}

// run is one spilled run being merged.
type run struct {
	r    *bufio.Reader
	line string
}

func (r *run) next() (bool, error) {
	l, err := r.r.ReadString('\n')
	if err == io.EOF && l == "" {
		return false, nil
	}
	if err != nil && err != io.EOF {
		return false, err
	}
	r.line = l
	return true, nil
}

type runHeap struct{ items []*run }

func (h *runHeap) Len() int           { return len(h.items) }
func (h *runHeap) Less(i, j int) bool { return h.items[i].line < h.items[j].line }
func (h *runHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *runHeap) Push(x any)         { h.items = append(h.items, x.(*run)) }
func (h *runHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
