package mathx

import "testing"

func TestClamp(t *testing.T) {
	cases := []struct{ v, lo, hi, want float64 }{
		{5, 0, 10, 5},
		{-3, 0, 10, 0},
		{12, 0, 10, 10},
	}
	for _, c := range cases {
		if got := Clamp(c.v, c.lo, c.hi); got != c.want {
			t.Errorf("Clamp(%v, %v, %v) = %v, want %v", c.v, c.lo, c.hi, got, c.want)
		}
	}
}

func TestLerp(t *testing.T) {
	if got := Lerp(2, 4, 0.5); got != 3 {
		t.Fatalf("Lerp = %v", got)
	}
}

func TestSign(t *testing.T) {
	if Sign(-2) != -1 || Sign(0) != 0 || Sign(3) != 1 {
		t.Fatal("Sign is wrong")
	}
}
