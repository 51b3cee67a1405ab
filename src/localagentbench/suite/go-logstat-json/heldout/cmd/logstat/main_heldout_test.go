package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const heldoutLog = `203.0.113.9 - - [10/Mar/2024:11:05:00 +0000] "GET /api/items?id=3 HTTP/1.1" 200 512 0.043
203.0.113.9 - - [10/Mar/2024:11:10:00 +0000] "GET /api/items?id=4 HTTP/1.1" 503 0 0.120
203.0.113.7 - - [10/Mar/2024:14:59:59 +0200] "POST /login HTTP/1.1" 302 1024 0.010
203.0.113.7 - - [10/Mar/2024:13:00:00 +0000] "GET /ping HTTP/1.1" 200 2 0.0005
`

func runJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(args, strings.NewReader(heldoutLog), &out, &errOut); code != 0 {
		t.Fatalf("%v: exit %d, stderr %q", args, code, errOut.String())
	}
	dec := json.NewDecoder(&out)
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, out.String())
	}
	var extra any
	if err := dec.Decode(&extra); err == nil {
		t.Fatalf("stdout holds more than one JSON document")
	}
	return doc
}

func TestHeldoutJSONHours(t *testing.T) {
	doc := runJSON(t, "-format", "json")
	want := []any{
		map[string]any{"hour": "2024-03-10T11:00:00Z", "requests": 2.0, "errors": 1.0, "p50_ms": 43.0, "p95_ms": 120.0, "bytes": 512.0},
		map[string]any{"hour": "2024-03-10T12:00:00Z", "requests": 1.0, "errors": 0.0, "p50_ms": 10.0, "p95_ms": 10.0, "bytes": 1024.0},
		map[string]any{"hour": "2024-03-10T13:00:00Z", "requests": 1.0, "errors": 0.0, "p50_ms": 1.0, "p95_ms": 1.0, "bytes": 2.0},
	}
	if !reflect.DeepEqual(doc["hours"], want) {
		t.Fatalf("hours = %#v\nwant %#v", doc["hours"], want)
	}
	if _, ok := doc["top"]; ok {
		t.Fatalf("top present without -top: %#v", doc["top"])
	}
}

func TestHeldoutJSONTop(t *testing.T) {
	doc := runJSON(t, "-top", "2", "-format", "json")
	want := []any{
		map[string]any{"path": "/api/items", "count": 2.0},
		map[string]any{"path": "/login", "count": 1.0},
	}
	if !reflect.DeepEqual(doc["top"], want) {
		t.Fatalf("top = %#v\nwant %#v", doc["top"], want)
	}
}

func TestHeldoutJSONEmpty(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-format", "json"}, strings.NewReader("# nothing\n"), &out, &errOut); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v: %q", err, out.String())
	}
	hours, ok := doc["hours"].([]any)
	if !ok || len(hours) != 0 {
		t.Fatalf("hours = %#v, want []", doc["hours"])
	}
}

func TestHeldoutTextStaysDefault(t *testing.T) {
	for _, args := range [][]string{nil, {"-format", "text"}} {
		var out, errOut bytes.Buffer
		if code := run(args, strings.NewReader(heldoutLog), &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		if !strings.HasPrefix(out.String(), "hour (UTC)") {
			t.Fatalf("%v: stdout %q", args, out.String())
		}
	}
}

func TestHeldoutUnknownFormatIsUsageError(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-format", "yaml"}, strings.NewReader(heldoutLog), &out, &errOut); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if out.Len() != 0 || errOut.Len() == 0 {
		t.Fatalf("stdout %q, stderr %q", out.String(), errOut.String())
	}
}
