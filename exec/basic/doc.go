// Package basic holds the operators without state of their own or with
// only a pull query's, and the table's Upsert: Calc (a fused filter and
// projection over compiled expressions), Upsert (a keyed changelog from a
// table's inserts, whose latest row per key is checkpointed), Sort
// and Limit (which order and cut a pull query's result), the Values
// source, and PushSink (which turns a push query's chunks into rows with
// their ops).
package basic
