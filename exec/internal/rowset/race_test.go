//go:build race

package rowset_test

// modelSteps is TestSetMatchesModel's number of chunks: fewer under the
// race detector, which makes the test ten times slower and whose point is
// not the set's (single-goroutine) logic.
const modelSteps = 25
