//go:build !race

package difftest

// raceEnabled says the tests run under the race detector.
const raceEnabled = false
