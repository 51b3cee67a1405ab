package main

import (
	"bytes"
	"strings"
	"testing"
)

const sample = `# proxy 1
203.0.113.9 - - [10/Mar/2024:11:05:00 +0000] "GET /api/items?id=3 HTTP/1.1" 200 512 0.043
203.0.113.9 - - [10/Mar/2024:11:10:00 +0000] "GET /api/items?id=4 HTTP/1.1" 503 0 0.120
this line is broken
203.0.113.7 - - [10/Mar/2024:11:59:59 +0000] "POST /login HTTP/1.1" 302 1024 0.010
`

func TestTextReport(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(nil, strings.NewReader(sample), &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	want := "hour (UTC)         requests  5xx  p50 ms  p95 ms     bytes\n" +
		"2024-03-10 11:00          3    1      43     120      1536\n"
	if out.String() != want {
		t.Fatalf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
	if !strings.Contains(errOut.String(), "line 4") {
		t.Fatalf("the bad line is not reported: %q", errOut.String())
	}
}

func TestTopPaths(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-top", "1"}, strings.NewReader(sample), &out, &errOut); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.HasSuffix(out.String(), "top paths\n       2  /api/items\n") {
		t.Fatalf("stdout:\n%s", out.String())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"-top", "-1"}, {"-nope"}, {"a", "b"}} {
		var out, errOut bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
