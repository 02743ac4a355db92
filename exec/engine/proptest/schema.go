package proptest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Type is the SQL type of a generated column or expression. The generator
// tracks types exactly so that every expression it writes is well typed.
type Type uint8

// The types the generator uses.
const (
	Int     Type = iota // BIGINT
	Double              // DOUBLE
	Decimal             // DECIMAL(10,2) in sources; any scale in expressions
	String              // VARCHAR
	Bool                // BOOLEAN
	Time                // TIMESTAMP(3)
)

// SQL returns the column type as a CREATE statement spells it.
func (t Type) SQL() string {
	return [...]string{"BIGINT", "DOUBLE", "DECIMAL(10,2)", "VARCHAR", "BOOLEAN", "TIMESTAMP(3)"}[t]
}

// numeric reports whether t is one of the number types.
func (t Type) numeric() bool { return t == Int || t == Double || t == Decimal }

// Column is a named, typed column of a source or of a query's result.
type Column struct {
	Name string
	Type Type
	// Inexact marks a DOUBLE computed with rounding (an AVG, a division):
	// aggregates over it could differ in the last bits between plans that
	// add in different orders, so aggregate arguments avoid it.
	Inexact bool
}

// Source is one INSERT-fed stream or table of a case.
type Source struct {
	Name    string
	Table   bool     // a TABLE with a PRIMARY KEY rather than a STREAM
	Key     string   // the primary key of a table; the unique id column of a stream
	Columns []Column // in declaration (and INSERT) order
	// WatermarkSec is the delay of the stream's watermark in seconds; 0
	// declares none.
	WatermarkSec int
}

// TimeCol returns the source's TIMESTAMP column, or "" when it has none.
func (s *Source) TimeCol() string {
	for _, c := range s.Columns {
		if c.Type == Time {
			return c.Name
		}
	}
	return ""
}

// DDL returns the statement that creates the source. Streams never go
// idle (idle_timeout = '0'), so that no watermark depends on how long a
// run takes.
func (s *Source) DDL() string {
	var parts []string
	for _, c := range s.Columns {
		parts = append(parts, c.Name+" "+c.Type.SQL())
	}
	if s.Table {
		parts = append(parts, "PRIMARY KEY ("+s.Key+")")
		return fmt.Sprintf("CREATE TABLE %s (%s);", s.Name, strings.Join(parts, ", "))
	}
	with := ""
	if s.WatermarkSec > 0 {
		tc := s.TimeCol()
		parts = append(parts, fmt.Sprintf("WATERMARK FOR %s AS %s - INTERVAL '%d' SECOND", tc, tc, s.WatermarkSec))
		with = " WITH (idle_timeout = '0')"
	}
	return fmt.Sprintf("CREATE STREAM %s (%s)%s;", s.Name, strings.Join(parts, ", "), with)
}

// Schema is the set of sources a case's queries read.
type Schema struct {
	Sources []*Source
}

// Source returns the source called name, or nil.
func (s *Schema) Source(name string) *Source {
	for _, src := range s.Sources {
		if src.Name == name {
			return src
		}
	}
	return nil
}

// Streams returns the schema's streams, in declaration order.
func (s *Schema) Streams() []*Source { return s.filter(false) }

// Tables returns the schema's tables, in declaration order.
func (s *Schema) Tables() []*Source { return s.filter(true) }

func (s *Schema) filter(table bool) []*Source {
	var out []*Source
	for _, src := range s.Sources {
		if src.Table == table {
			out = append(out, src)
		}
	}
	return out
}

// GenSchema returns the sources of a case. Their columns are fixed, with
// shared names (k, g, v, x, d) so that any two sources can be joined; which
// streams declare a watermark, and with what delay, is random.
func GenSchema(r *rand.Rand) *Schema {
	wm := func() int {
		// Two streams in three are watermarked, 1 to 4 seconds behind.
		if r.IntN(3) == 0 {
			return 0
		}
		return 1 + r.IntN(4)
	}
	return &Schema{Sources: []*Source{
		{Name: "s1", Key: "id", WatermarkSec: wm(),
			Columns: columns("id k g v x d b ts", Int, Int, String, Int, Double, Decimal, Bool, Time)},
		{Name: "s2", Key: "id", WatermarkSec: wm(),
			Columns: columns("id k g v x ts", Int, Int, String, Int, Double, Time)},
		{Name: "s3", Key: "id", WatermarkSec: wm(),
			Columns: columns("id k g d ts", Int, Int, String, Decimal, Time)},
		{Name: "t1", Table: true, Key: "k",
			Columns: columns("k g v x d b", Int, String, Int, Double, Decimal, Bool)},
		{Name: "t2", Table: true, Key: "id",
			Columns: columns("id k g v ts", Int, Int, String, Int, Time)},
	}}
}

// columns pairs space-separated names with types.
func columns(names string, ts ...Type) []Column {
	var out []Column
	for i, n := range strings.Fields(names) {
		out = append(out, Column{Name: n, Type: ts[i]})
	}
	return out
}
