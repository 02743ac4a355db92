package expr

import "testing"

func TestNumericPrefix(t *testing.T) {
	for s, want := range map[string]float64{
		"12": 12, " 12abc": 12, "abc": 0, "": 0, "-3.5x": -3.5, "+.5": 0.5, "1e3": 1000,
		"1e": 1, "1e+": 1, "2.5e-1z": 0.25, ".": 0, "-": 0, "7.": 7, "  -0012.50 ": -12.5,
	} {
		if got := numericPrefix(s); got != want {
			t.Errorf("numericPrefix(%q) = %v, want %v", s, got, want)
		}
	}
}
