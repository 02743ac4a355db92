// Package vec holds the slice helpers of eddy's vectorized operators.
package vec

// Resize returns s with length n, reusing its array when it is large
// enough; otherwise a new array with a quarter more room, so that a slice
// resized to slowly growing lengths is reallocated only now and then. The
// elements are not cleared.
func Resize[E any](s []E, n int) []E {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]E, n, n+n/4)
}
