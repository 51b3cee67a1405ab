package logstat

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func ms(values ...int) []time.Duration {
	out := make([]time.Duration, len(values))
	for i, v := range values {
		out[i] = time.Duration(v) * time.Millisecond
	}
	return out
}

func TestHeldoutPercentileNearestRank(t *testing.T) {
	var hundred []int
	for i := 100; i >= 1; i-- {
		hundred = append(hundred, i)
	}
	cases := []struct {
		values []time.Duration
		p      float64
		want   time.Duration
	}{
		{ms(hundred...), 95, 95 * time.Millisecond},
		{ms(hundred...), 50, 50 * time.Millisecond},
		{ms(10, 20, 30, 40), 50, 20 * time.Millisecond},
		{ms(40, 10, 30, 20), 95, 40 * time.Millisecond},
		{ms(5, 1, 3), 50, 3 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20), 95, 19 * time.Millisecond},
		{ms(3, 1), 100, 3 * time.Millisecond},
	}
	for _, c := range cases {
		if got := Percentile(c.values, c.p); got != c.want {
			t.Errorf("Percentile(%v, %v) = %v, want %v", c.values, c.p, got, c.want)
		}
	}
}

func TestHeldoutPercentileDoesNotModifyInput(t *testing.T) {
	values := ms(3, 1, 2)
	Percentile(values, 50)
	if values[0] != 3*time.Millisecond || values[1] != time.Millisecond {
		t.Fatalf("input was modified: %v", values)
	}
}

func TestHeldoutBucketsAreUTCHours(t *testing.T) {
	log := strings.Join([]string{
		`1.1.1.1 - - [10/Mar/2024:13:55:36 +0200] "GET /a HTTP/1.1" 200 1 0.001`,
		`1.1.1.1 - - [10/Mar/2024:11:10:00 +0000] "GET /a HTTP/1.1" 200 1 0.001`,
		`1.1.1.1 - - [10/Mar/2024:06:40:00 -0500] "GET /a HTTP/1.1" 200 1 0.001`,
		`1.1.1.1 - - [10/Mar/2024:17:20:00 +0530] "GET /a HTTP/1.1" 200 1 0.001`,
		`1.1.1.1 - - [11/Mar/2024:01:30:00 +0200] "GET /a HTTP/1.1" 200 1 0.001`,
	}, "\n")
	entries, bad, err := ReadAll(strings.NewReader(log))
	if err != nil || len(bad) != 0 {
		t.Fatalf("ReadAll: %v %v", bad, err)
	}
	got := Hourly(entries)
	utc := func(d, h int) time.Time { return time.Date(2024, 3, d, h, 0, 0, 0, time.UTC) }
	want := []struct {
		start    time.Time
		requests int
	}{{utc(10, 11), 4}, {utc(10, 23), 1}}
	if len(got) != len(want) {
		t.Fatalf("got %d buckets %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if !got[i].Start.Equal(w.start) || got[i].Requests != w.requests {
			t.Errorf("bucket %d = %v with %d requests, want %v with %d", i, got[i].Start, got[i].Requests, w.start, w.requests)
		}
		if got[i].Start.Location() != time.UTC {
			t.Errorf("bucket %d start is not in UTC: %v", i, got[i].Start)
		}
	}
}

func TestHeldoutParseErrorLineNumbers(t *testing.T) {
	log := "# header\n\n" +
		`1.1.1.1 - - [10/Mar/2024:11:10:00 +0000] "GET /a HTTP/1.1" 200 1 0.001` + "\n" +
		"\n# more\nbroken\n" +
		`1.1.1.1 - - [10/Mar/2024:11:10:00 +0000] "GET /a HTTP/1.1" 200 1 0.001` + "\n" +
		"also broken\n"
	entries, bad, err := ReadAll(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || len(bad) != 2 {
		t.Fatalf("entries %d, bad %d", len(entries), len(bad))
	}
	for i, wantLine := range []int{6, 8} {
		var pe *ParseError
		if !errors.As(bad[i], &pe) || pe.Line != wantLine {
			t.Errorf("error %d = %v, want line %d", i, bad[i], wantLine)
		}
	}
}
