//go:build cgo

package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"time"

	// duckdb-go registers the "duckdb" driver; its prebuilt library
	// comes with duckdb-go-bindings' package for the platform.
	_ "github.com/duckdb/duckdb-go/v2"
)

// haveDuckDB reports whether this binary has DuckDB, which it has only
// when built with cgo.
const haveDuckDB = true

// DuckDB runs queries in-process, each run in a new in-memory database.
type DuckDB struct {
	// Threads is DuckDB's threads setting (0: its default, one per CPU).
	Threads int
}

// Run opens a new in-memory database, declares the views over the data
// set's files, and measures CREATE TABLE v AS q alone: reading and
// parsing the file, running the query and materializing its result in a
// table. The check over v runs after the measured span.
func (d DuckDB) Run(ctx context.Context, ds Dataset, q Query) (Measurement, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return Measurement{}, fmt.Errorf("opening DuckDB: %w", err)
	}
	defer db.Close()
	// One connection: the views and the table belong to one session.
	db.SetMaxOpenConns(1)
	setup := duckDBViews(ds)
	if d.Threads > 0 {
		setup = append(setup, fmt.Sprintf("SET threads = %d", d.Threads))
	}
	for _, s := range setup {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return Measurement{}, fmt.Errorf("DuckDB: %s: %w", s, err)
		}
	}
	cpu0, err := processCPU()
	if err != nil {
		return Measurement{}, err
	}
	start := time.Now()
	if _, err := db.ExecContext(ctx, "CREATE TABLE v AS "+q.DuckDB); err != nil {
		return Measurement{}, fmt.Errorf("DuckDB query %s: %w", q.Name, err)
	}
	wall := time.Since(start)
	cpu1, err := processCPU()
	if err != nil {
		return Measurement{}, err
	}
	check, err := duckDBCheck(ctx, db, q.Check)
	if err != nil {
		return Measurement{}, fmt.Errorf("DuckDB check of %s: %w", q.Name, err)
	}
	return Measurement{Wall: wall, CPU: cpu1 - cpu0, Check: check}, nil
}

// ThreadsInUse returns DuckDB's threads setting as a new database with
// d's settings has it.
func (d DuckDB) ThreadsInUse(ctx context.Context) (int, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return 0, fmt.Errorf("opening DuckDB: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if d.Threads > 0 {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("SET threads = %d", d.Threads)); err != nil {
			return 0, fmt.Errorf("DuckDB: setting threads: %w", err)
		}
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&n); err != nil {
		return 0, fmt.Errorf("DuckDB: reading threads: %w", err)
	}
	return n, nil
}

// duckDBCheck computes the select list check over v and returns its
// values as text, printed as eddy prints them (integers in decimal,
// HUGEINT sums included).
func duckDBCheck(ctx context.Context, db *sql.DB, check string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT "+check+" FROM v")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("no row")
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case nil:
			out[i] = "NULL"
		case *big.Int:
			out[i] = v.String()
		default:
			out[i] = fmt.Sprint(v)
		}
	}
	return out, rows.Err()
}
