// Package multiset compares two multisets of result rows whose values may
// be approximate (doubles computed in different orders, by different
// engines), for the engine's differential and property tests.
package multiset

import (
	"slices"
	"strconv"
)

// Diff returns the elements of a and of b left over when every element of
// one is matched with an equal element of the other: first exactly, by
// key, then the rest pairwise with equal, which may accept values a key
// rounds apart (see ApproxKey). Each result keeps its side's order.
func Diff[R any](a, b []R, key func(R) string, equal func(R, R) bool) (onlyA, onlyB []R) {
	counts := map[string]int{}
	for _, r := range b {
		counts[key(r)]++
	}
	for _, r := range a {
		if k := key(r); counts[k] > 0 {
			counts[k]--
		} else {
			onlyA = append(onlyA, r)
		}
	}
	for _, r := range b {
		if k := key(r); counts[k] > 0 {
			counts[k]--
			onlyB = append(onlyB, r)
		}
	}
	var leftA []R
	for _, r := range onlyA {
		if i := slices.IndexFunc(onlyB, func(s R) bool { return equal(r, s) }); i >= 0 {
			onlyB = slices.Delete(onlyB, i, i+1)
			continue
		}
		leftA = append(leftA, r)
	}
	return leftA, onlyB
}

// ApproxKey is the exact-match key of an approximate number: rounded to 9
// significant digits, -0 as 0, so that most equal values match by key and
// Diff's pairwise pass sees only the few that round apart.
func ApproxKey(f float64) string {
	if f == 0 {
		f = 0
	}
	return "~" + strconv.FormatFloat(f, 'g', 9, 64)
}
