// Package tpch generates TPC-H data for eddy's tests and benchmarks, with
// github.com/pingcap/go-tpc's port of the official dbgen (v2.4.0), and
// holds the TPC-H queries eddy runs over it.
//
// dbgen takes whole scale factors; the small scales the tests want (the
// issues name SF 0.01: 2,000 parts and 60,000 line items) are the first
// rows of SF 1, with every line item's part key folded onto the parts
// generated (((k − 1) mod parts) + 1), so that each line item has its part
// as at that scale. Values are dbgen's (prices in dollars, discounts and
// taxes as fractions).
package tpch
