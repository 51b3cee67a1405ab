package mathx

import "testing"

func TestHeldoutClampEdges(t *testing.T) {
	cases := []struct{ v, lo, hi, want float64 }{
		{0, 0, 10, 0},
		{10, 0, 10, 10},
		{-5, -10, -1, -5},
		{-20, -10, -1, -10},
		{3, 3, 3, 3},
		{0.25, 0, 1, 0.25},
	}
	for _, c := range cases {
		if got := Clamp(c.v, c.lo, c.hi); got != c.want {
			t.Errorf("Clamp(%v, %v, %v) = %v, want %v", c.v, c.lo, c.hi, got, c.want)
		}
	}
}

func TestHeldoutClampPanicsOnInvertedBounds(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Clamp(1, 5, 0) did not panic")
		}
	}()
	Clamp(1, 5, 0)
}
