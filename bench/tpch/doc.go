// Package tpch generates TPC-H data for eddy's tests and benchmarks, with
// github.com/pingcap/go-tpc's port of the official dbgen (v2.4.0), and
// holds the 22 TPC-H queries in eddy's dialect.
//
// dbgen takes whole scale factors; the small scales the tests want (the
// issues name SF 0.01: 2,000 parts, 100 suppliers, 1,500 customers and
// 15,000 orders with their 60,000 line items) are the first rows of each
// table at SF 1, with the foreign keys folded onto the rows kept as dbgen
// would have drawn them at that scale (fold in gen.go): every line item's
// part and supplier are a row of partsupp, and a third of the customers
// have no orders. Values are dbgen's (prices in dollars, discounts and
// taxes as fractions); a line item's extended price is priced by its part
// key at SF 1, before folding.
//
// The tests (go test ./bench/tpch) check each query, as a materialized
// view, against SQLite's answer over the same rows; -args -tpch.sf=0.05
// runs them, and the benchmarks, at another scale.
package tpch
