//go:build !race

package rowset_test

// modelSteps is TestSetMatchesModel's number of chunks.
const modelSteps = 80
