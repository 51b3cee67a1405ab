package logstat

import (
	"sort"
	"time"
)

// Bucket holds the statistics of one UTC hour.
type Bucket struct {
	Start    time.Time     // start of the hour, in UTC
	Requests int           // number of requests
	Errors   int           // responses with a 5xx status
	P50      time.Duration // median latency (nearest rank)
	P95      time.Duration // 95th percentile latency (nearest rank)
	Bytes    int64         // total response size
}

// Hourly groups entries by the UTC hour in which they happened and returns
// one bucket per hour that has requests, in time order.
func Hourly(entries []Entry) []Bucket {
	type acc struct {
		bucket    Bucket
		latencies []time.Duration
	}
	byHour := map[int64]*acc{}
	for _, e := range entries {
		start := hourStart(e.Time)
		a := byHour[start.Unix()]
		if a == nil {
			a = &acc{bucket: Bucket{Start: start}}
			byHour[start.Unix()] = a
		}
		a.bucket.Requests++
		if e.Status >= 500 && e.Status <= 599 {
			a.bucket.Errors++
		}
		a.bucket.Bytes += e.Bytes
		a.latencies = append(a.latencies, e.Latency)
	}
	out := make([]Bucket, 0, len(byHour))
	for _, a := range byHour {
		a.bucket.P50 = Percentile(a.latencies, 50)
		a.bucket.P95 = Percentile(a.latencies, 95)
		out = append(out, a.bucket)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

// hourStart is the start of the UTC hour containing t.
func hourStart(t time.Time) time.Time {
	u := t.UTC()
	return time.Date(u.Year(), u.Month(), u.Day(), u.Hour(), 0, 0, 0, time.UTC)
}
