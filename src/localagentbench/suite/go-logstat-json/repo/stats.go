package logstat

import (
	"math"
	"sort"
	"time"
)

// Percentile returns the p-th percentile (0 < p <= 100) of values by the
// nearest-rank method: the value at rank ceil(p/100 * n) of the sorted
// values, ranks starting at 1. values need not be sorted and is not
// modified. It returns 0 for no values.
func Percentile(values []time.Duration, p float64) time.Duration {
	if len(values) == 0 {
		return 0
	}
	sorted := append([]time.Duration(nil), values...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	if rank > len(sorted) {
		rank = len(sorted)
	}
	return sorted[rank-1]
}

// PathCount is how often one path was requested.
type PathCount struct {
	Path  string
	Count int
}

// TopPaths returns the n most requested paths, query strings removed, most
// requested first and ties by path.
func TopPaths(entries []Entry, n int) []PathCount {
	counts := map[string]int{}
	for _, e := range entries {
		path := e.Path
		if i := indexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		counts[path]++
	}
	out := make([]PathCount, 0, len(counts))
	for p, c := range counts {
		out = append(out, PathCount{Path: p, Count: c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Path < out[j].Path
	})
	if n < len(out) {
		out = out[:n]
	}
	return out
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
