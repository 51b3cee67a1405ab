package runewidth

import "testing"

var heldoutTruncateLeft = []struct {
	s      string
	w      int
	prefix string
	out    string
}{
	{"Aあいうえお", 4, "", " うえお"},
	{"Aあいうえお", 2, ">", "> いうえお"},
	{"あいうえお", 1, "", " いうえお"},
	{"ab😀cd", 3, "", " cd"},
	{"ab😀cd", 2, "", "😀cd"},
	{"日本語abc", 5, "<", "< abc"},
	{"a", 0, "", "a"},
}

func TestHeldoutTruncateLeftHalfWide(t *testing.T) {
	for _, tt := range heldoutTruncateLeft {
		if out := TruncateLeft(tt.s, tt.w, tt.prefix); out != tt.out {
			t.Errorf("TruncateLeft(%q, %d, %q) = %q, want %q", tt.s, tt.w, tt.prefix, out, tt.out)
		}
	}
}

func TestHeldoutTruncateLeftKeepsWidth(t *testing.T) {
	for _, s := range []string{"あいうえお", "Aあいうえお", "aあbいcう", "日本語abc"} {
		total := StringWidth(s)
		for w := 0; w <= total; w++ {
			out := TruncateLeft(s, w, "")
			if got := StringWidth(out); got != total-w {
				t.Errorf("TruncateLeft(%q, %d) = %q, width %d, want %d", s, w, out, got, total-w)
			}
		}
	}
}
