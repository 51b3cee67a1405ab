package logstat

import (
	"fmt"
	"io"
	"time"
)

// WriteText writes the hourly table.
func WriteText(w io.Writer, buckets []Bucket) error {
	if _, err := fmt.Fprintf(w, "%-16s %10s %4s %7s %7s %9s\n",
		"hour (UTC)", "requests", "5xx", "p50 ms", "p95 ms", "bytes"); err != nil {
		return err
	}
	for _, b := range buckets {
		_, err := fmt.Fprintf(w, "%-16s %10d %4d %7d %7d %9d\n",
			b.Start.Format("2006-01-02 15:04"), b.Requests, b.Errors,
			millis(b.P50), millis(b.P95), b.Bytes)
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteTop writes the most requested paths.
func WriteTop(w io.Writer, top []PathCount) error {
	if _, err := fmt.Fprintf(w, "\ntop paths\n"); err != nil {
		return err
	}
	for _, pc := range top {
		if _, err := fmt.Fprintf(w, "%8d  %s\n", pc.Count, pc.Path); err != nil {
			return err
		}
	}
	return nil
}

// millis rounds a duration to whole milliseconds, halves away from zero.
func millis(d time.Duration) int64 {
	return (int64(d) + int64(time.Millisecond)/2) / int64(time.Millisecond)
}
