package iniconf

import (
	"errors"
	"strings"
	"testing"
)

func heldoutParse(t *testing.T, text string) *File {
	t.Helper()
	f, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	return f
}

func TestHeldoutQuotedValues(t *testing.T) {
	cases := map[string]string{
		`v = "  padded  "`:          "  padded  ",
		`v = "semi ; colon # hash"`: "semi ; colon # hash",
		`v = "say \"hi\""`:          `say "hi"`,
		`v = "back\\slash"`:         `back\slash`,
		`v = "line1\nline2\tend"`:   "line1\nline2\tend",
		`v = ""`:                    "",
		`v = "a=b: c"`:              "a=b: c",
		`v = "x"   ; trailing note`: "x",
		`v = "x" # trailing note`:   "x",
	}
	for line, want := range cases {
		f := heldoutParse(t, "[s]\n"+line+"\n")
		if got := f.GetString("s", "v", "MISSING"); got != want {
			t.Errorf("%s: got %q, want %q", line, got, want)
		}
	}
}

func TestHeldoutInlineComments(t *testing.T) {
	cases := map[string]string{
		"v = 8443 ; TLS":            "8443",
		"v = on\t# tab before hash": "on",
		"v = http://x/#top":         "http://x/#top",
		"v = a;b":                   "a;b",
		"v =    ; only a comment":   "",
		"v = two words  ":           "two words",
	}
	for line, want := range cases {
		f := heldoutParse(t, "[s]\n"+line+"\n")
		if got := f.GetString("s", "v", "MISSING"); got != want {
			t.Errorf("%q: got %q, want %q", line, got, want)
		}
	}
}

func TestHeldoutQuotedSyntaxErrors(t *testing.T) {
	for _, line := range []string{
		`v = "never closed`,
		`v = "ends with backslash\`,
		`v = "bad \q escape"`,
		`v = "x" trailing`,
	} {
		_, err := Parse(strings.NewReader("[s]\nok = 1\n" + line + "\n"))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: err = %v, want a *SyntaxError", line, err)
			continue
		}
		if se.Line != 3 {
			t.Errorf("%s: line %d, want 3", line, se.Line)
		}
	}
}

func TestHeldoutTypedGettersSeeCleanValues(t *testing.T) {
	f := heldoutParse(t, "[s]\nport = 80 ; http\ndebug = \"yes\"\n")
	if port, err := f.GetInt("s", "port", 0); err != nil || port != 80 {
		t.Fatalf("port = %d, %v", port, err)
	}
	if debug, err := f.GetBool("s", "debug", false); err != nil || !debug {
		t.Fatalf("debug = %v, %v", debug, err)
	}
}
