// Package mathx holds small numeric helpers.
package mathx

// Clamp limits v to the closed interval [lo, hi]. It panics if lo > hi.
func Clamp(v, lo, hi float64) float64 {
	// TODO: implement
	return 0
}

// Lerp interpolates linearly between a (t = 0) and b (t = 1).
func Lerp(a, b, t float64) float64 {
	return a + (b-a)*t
}

// Sign is -1 for negative v, 1 for positive v and 0 for zero.
func Sign(v float64) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}
