// Package jsonpath reads JSON text the way MySQL's JSON functions do,
// without building a tree: a MySQL path ($.a.b[0], $.items[*].price,
// $."key with spaces"[last]) is compiled once (Parse) and walked over a
// document's bytes (Extract), skipping what it does not need; values come
// out in MySQL's normalized spelling ({"a": 1, "b": [true, null]}).
// Unquote, Type, Length and Keys are the other functions of the SQL
// dialect's JSON support (docs/dialect-notes.md, "JSON").
//
// A document that is not valid JSON (RFC 8259; nesting at most MaxDepth
// deep) is reported as ErrInvalid, whatever part of it a path reads, so a
// function's answer never depends on where the damage is.
package jsonpath
