package heldoutcheck_test

import (
	"strings"
	"testing"

	"example.com/iniconf"
)

func TestHeldoutRenamedGetters(t *testing.T) {
	f, err := iniconf.Parse(strings.NewReader("debug = on\n[server]\nname = \"  x  \"\nport = 8443 ; TLS\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.String("server", "name", ""); got != "  x  " {
		t.Fatalf("String = %q", got)
	}
	if got := f.String("server", "absent", "dflt"); got != "dflt" {
		t.Fatalf("String default = %q", got)
	}
	if port, err := f.Int("server", "port", 0); err != nil || port != 8443 {
		t.Fatalf("Int = %d, %v", port, err)
	}
	if n, err := f.Int("server", "absent", 7); err != nil || n != 7 {
		t.Fatalf("Int default = %d, %v", n, err)
	}
	if debug, err := f.Bool("", "debug", false); err != nil || !debug {
		t.Fatalf("Bool = %v, %v", debug, err)
	}
	if _, err := f.Bool("server", "name", false); err == nil {
		t.Fatal("Bool of a non-boolean did not fail")
	}
}
