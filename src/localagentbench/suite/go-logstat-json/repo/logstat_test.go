package logstat

import (
	"strings"
	"testing"
	"time"
)

func TestParseLine(t *testing.T) {
	e, err := ParseLine(`203.0.113.9 - - [10/Mar/2024:13:55:36 +0200] "GET /api/items?id=3 HTTP/1.1" 200 512 0.043`, 1)
	if err != nil {
		t.Fatal(err)
	}
	if e.Method != "GET" || e.Path != "/api/items?id=3" || e.Status != 200 || e.Bytes != 512 {
		t.Fatalf("got %+v", e)
	}
	if e.Latency != 43*time.Millisecond {
		t.Fatalf("latency %v", e.Latency)
	}
	if !e.Time.Equal(time.Date(2024, 3, 10, 11, 55, 36, 0, time.UTC)) {
		t.Fatalf("time %v", e.Time)
	}
}

func TestParseErrors(t *testing.T) {
	for _, line := range []string{
		`no timestamp here`,
		`1.2.3.4 - - [10/Mar/2024:13:55:36 +0200] "GET / HTTP/1.1" 200 512`,
		`1.2.3.4 - - [10/Mar/2024:13:55:36 +0200] "GET / HTTP/1.1" 999 512 0.1`,
		`1.2.3.4 - - [31/Feb/2024:13:55:36 +0200] "GET / HTTP/1.1" 200 512 0.1`,
	} {
		if _, err := ParseLine(line, 7); err == nil || !strings.Contains(err.Error(), "line 7") {
			t.Errorf("%q: err = %v", line, err)
		}
	}
}

func TestHourlyCountsAndBytes(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2024, 3, 10, h, m, 0, 0, time.UTC) }
	entries := []Entry{
		{Time: at(9, 1), Status: 200, Bytes: 10, Latency: time.Millisecond},
		{Time: at(9, 59), Status: 500, Bytes: 20, Latency: time.Millisecond},
		{Time: at(10, 0), Status: 404, Bytes: 5, Latency: time.Millisecond},
	}
	got := Hourly(entries)
	if len(got) != 2 {
		t.Fatalf("got %d buckets", len(got))
	}
	if got[0].Requests != 2 || got[0].Errors != 1 || got[0].Bytes != 30 || !got[0].Start.Equal(at(9, 0)) {
		t.Fatalf("first bucket %+v", got[0])
	}
	if got[1].Requests != 1 || got[1].Errors != 0 || !got[1].Start.Equal(at(10, 0)) {
		t.Fatalf("second bucket %+v", got[1])
	}
}

func TestPercentileSingleValue(t *testing.T) {
	if got := Percentile([]time.Duration{7}, 95); got != 7 {
		t.Fatalf("got %v", got)
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Fatalf("got %v", got)
	}
}
