package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestDump(t *testing.T) {
	var out, errOut bytes.Buffer
	code := dump(strings.NewReader("debug = yes\n[Server]\nname = a\nport=1\n"), &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if got, want := out.String(), "debug=yes\nserver.name=a\nserver.port=1\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
