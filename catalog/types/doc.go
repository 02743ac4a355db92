// Package types defines eddy's SQL types, their mapping onto Arrow, and Datum,
// the representation of a single scalar value (a literal, an INSERT value, a
// cell of a query result).
//
// Every SQL type maps onto one physical Arrow type: all integer types are
// int64, FLOAT and DOUBLE are float64, DECIMAL(p,s) is decimal128, VARCHAR and
// TEXT are utf8, DATE is date32, TIMESTAMP and DATETIME are timestamp[ms]
// (without a time zone) and INTERVAL is duration[ms]. The SQL type (its name,
// decimal precision and scale, timestamp fractional-seconds precision) is kept
// beside the Arrow type in T so that values print and cast as declared.
package types
