//go:build !unix

package main

import "time"

// processCPU returns 0: this platform's CPU time is not read, and the
// table's CPU column for DuckDB shows 0.
func processCPU() (time.Duration, error) {
	return 0, nil
}
