// Package queries holds the Nexmark queries in eddy's dialect (q0.sql …
// q22.sql, see README.md here) and the data files they read
// (side_input.csv), embedded in every binary that imports it, so that
// `eddy bench nexmark` runs wherever the binary is, without a checkout.
//
// The files live in this package's directory rather than under testdata/
// because go:embed, like every Go tool, ignores directories named
// testdata.
package queries

import "embed"

// FS holds the query files (qN.sql) and the data files beside them (every
// .csv), at its root. The README is documentation and is left out.
//
//go:embed *.sql *.csv
var FS embed.FS
