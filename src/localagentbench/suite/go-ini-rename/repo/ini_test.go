package iniconf

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const sample = `; global settings
debug = yes
name: top level

[Server]
  name = example.org
port = 8443
# comment
[paths]
root=/srv/www
`

func mustParse(t *testing.T, text string) *File {
	t.Helper()
	f, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestSectionsAndKeys(t *testing.T) {
	f := mustParse(t, sample)
	if got, want := f.Sections(), []string{"", "server", "paths"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Sections = %v, want %v", got, want)
	}
	if got, want := f.Keys("SERVER"), []string{"name", "port"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Keys = %v, want %v", got, want)
	}
}

func TestTypedGetters(t *testing.T) {
	f := mustParse(t, sample)
	if got := f.GetString("server", "name", ""); got != "example.org" {
		t.Fatalf("name = %q", got)
	}
	if got := f.GetString("server", "missing", "dflt"); got != "dflt" {
		t.Fatalf("missing = %q", got)
	}
	if port, err := f.GetInt("server", "port", 0); err != nil || port != 8443 {
		t.Fatalf("port = %d, %v", port, err)
	}
	if debug, err := f.GetBool("", "debug", false); err != nil || !debug {
		t.Fatalf("debug = %v, %v", debug, err)
	}
	if _, err := f.GetInt("paths", "root", 0); err == nil {
		t.Fatal("GetInt of a path did not fail")
	}
}

func TestSyntaxErrorLine(t *testing.T) {
	_, err := Parse(strings.NewReader("a = 1\n\n[broken\n"))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 3 {
		t.Fatalf("err = %v, want a SyntaxError on line 3", err)
	}
}

func TestLastValueWins(t *testing.T) {
	f := mustParse(t, "[a]\nx = 1\nx = 2\n")
	if got := f.GetString("a", "x", ""); got != "2" {
		t.Fatalf("x = %q", got)
	}
	if got := f.Keys("a"); len(got) != 1 {
		t.Fatalf("keys = %v", got)
	}
}

func TestQuotedValueKeepsSpaces(t *testing.T) {
	f := mustParse(t, "[motd]\ntext = \"  Welcome!  \"\n")
	if got := f.GetString("motd", "text", ""); got != "  Welcome!  " {
		t.Fatalf("text = %q", got)
	}
}

func TestInlineComment(t *testing.T) {
	f := mustParse(t, "[server]\nport = 8443 ; TLS\n")
	if port, err := f.GetInt("server", "port", 0); err != nil || port != 8443 {
		t.Fatalf("port = %d, %v", port, err)
	}
}
