//go:build !cgo

package main

import (
	"context"
	"errors"
)

// haveDuckDB reports whether this binary has DuckDB, which it has only
// when built with cgo.
const haveDuckDB = false

// errNoCgo says why a binary built without cgo cannot run DuckDB.
var errNoCgo = errors.New(noCgoHelp)

// DuckDB stands in for the cgo-built runner, which needs DuckDB's C++
// library; every method fails with errNoCgo.
type DuckDB struct {
	// Threads is DuckDB's threads setting (0: its default).
	Threads int
}

// Run fails: there is no DuckDB without cgo.
func (DuckDB) Run(context.Context, Dataset, Query) (Measurement, error) {
	return Measurement{}, errNoCgo
}

// ThreadsInUse fails: there is no DuckDB without cgo.
func (DuckDB) ThreadsInUse(context.Context) (int, error) {
	return 0, errNoCgo
}
