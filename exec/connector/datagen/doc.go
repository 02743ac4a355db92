// Package datagen is the datagen source connector (SQL.md, "Connectors"):
// a stream or table whose rows eddy makes up from per-column generators,
// for demos, tests and load, as Flink's and RisingWave's datagen do.
//
//	CREATE STREAM orders (
//	    id BIGINT, customer VARCHAR, amount DECIMAL(10,2), ts TIMESTAMP(3),
//	    WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
//	) WITH (connector = 'datagen', rows = 1000000, rate = 10000, seed = 7,
//	        'fields.id.kind' = 'sequence', 'fields.id.start' = 1,
//	        'fields.customer.kind' = 'list', 'fields.customer.values' = 'ann,bob,cy',
//	        'fields.amount.min' = 1, 'fields.amount.max' = 500,
//	        'fields.ts.step' = '10ms');
//
// Options: rows (how many rows; absent, the stream is unbounded unless a
// sequence with an end bounds it), rate (rows per wall-clock second across
// every split; 0 or absent, as fast as they are read), seed (the values;
// default 0), batch_size. Each column takes 'fields.<column>.<property>'
// options (Field): kind = 'random' (min, max; length for text), 'sequence'
// (start, end, step) or 'list' (values, comma-separated), and null_rate
// for a nullable column. A column without any gets a default for its type
// (defaults.go): TIMESTAMP columns count up from 2025-01-01 00:00:00 one
// millisecond a row, so that event time advances as rows are made.
//
// Row n of the global sequence is a pure function of the seed, the
// column's place and n (a counter-based hash, gen.go), so the rows do not
// depend on the parallelism: instance i of P generates rows i, i+P, i+2P,
// and together the instances make the same rows at any P. A position
// (position.go) is the split's next row number; seeking to it is O(1).
package datagen
