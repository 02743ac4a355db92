package difftest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
)

// Kind is the kind of a generated value; it fixes how the value is written
// as an eddy literal and bound as a SQLite parameter.
type Kind uint8

// The value kinds.
const (
	KNull    Kind = iota // SQL NULL
	KInt                 // an integer
	KFloat               // a DOUBLE
	KDecimal             // a DECIMAL, kept as its literal text
	KString              // a VARCHAR
	KBool                // a BOOLEAN
	KTime                // a TIMESTAMP, in milliseconds since the epoch
	KDate                // a DATE, in milliseconds since the epoch (midnight)
)

// Value is one generated value.
type Value struct {
	Kind Kind
	I    int64   // KInt, KBool (0/1), KTime, KDate
	F    float64 // KFloat
	S    string  // KString, KDecimal (the literal, e.g. "-12.345")
}

// Null is the NULL value.
var Null = Value{}

// Int returns an integer value.
func Int(v int64) Value { return Value{Kind: KInt, I: v} }

// Float returns a DOUBLE value.
func Float(v float64) Value { return Value{Kind: KFloat, F: v} }

// Dec returns a DECIMAL value written as lit.
func Dec(lit string) Value { return Value{Kind: KDecimal, S: lit} }

// Str returns a VARCHAR value.
func Str(v string) Value { return Value{Kind: KString, S: v} }

// Time returns a TIMESTAMP value, ms milliseconds after the epoch.
func Time(ms int64) Value { return Value{Kind: KTime, I: ms} }

// Date returns a DATE value; ms is its midnight in milliseconds since the
// epoch.
func Date(ms int64) Value { return Value{Kind: KDate, I: ms} }

// Bool returns a BOOLEAN value.
func Bool(v bool) Value {
	if v {
		return Value{Kind: KBool, I: 1}
	}
	return Value{Kind: KBool}
}

// Literal renders v as an eddy SQL literal for an INSERT.
func (v Value) Literal() string {
	switch v.Kind {
	case KInt:
		return strconv.FormatInt(v.I, 10)
	case KFloat:
		return strconv.FormatFloat(v.F, 'g', -1, 64)
	case KDecimal:
		return v.S
	case KString:
		return "'" + strings.ReplaceAll(v.S, "'", "''") + "'"
	case KBool:
		if v.I != 0 {
			return "TRUE"
		}
		return "FALSE"
	case KTime:
		return "'" + types.FormatTimestamp(v.I, 3) + "'"
	case KDate:
		return "'" + types.FormatDate(int32(v.I/types.MsPerDay)) + "'"
	}
	return "NULL"
}

// SQLite returns v as SQLite stores it: temporal values as epoch
// milliseconds, booleans as 0/1, decimals as REAL.
func (v Value) SQLite() any {
	switch v.Kind {
	case KInt, KBool, KTime, KDate:
		return v.I
	case KFloat:
		return v.F
	case KDecimal:
		f, err := strconv.ParseFloat(v.S, 64)
		if err != nil {
			panic(fmt.Sprintf("difftest: bad decimal literal %q", v.S))
		}
		return f
	case KString:
		return v.S
	}
	return nil
}

// Row is one generated row, in the column order of its source.
type Row []Value

// Batch is the rows one INSERT statement writes into one source.
type Batch struct {
	Source string
	Rows   []Row
}

// Round is one step of ingestion: the upserts of every table, then the
// rows of every stream, and whether a FLUSH follows the round.
type Round struct {
	Tables  []Batch
	Streams []Batch
	Flush   bool
}

// Data is the whole generated input: the sources and the rounds that feed
// them.
type Data struct {
	Sources []*Source
	Rounds  []Round
}

// Source returns the source called name, or nil.
func (d *Data) Source(name string) *Source {
	for _, s := range d.Sources {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// History returns every row written to source, in order, with the index
// of the round that wrote it.
func (d *Data) History(source string) (rows []Row, rounds []int) {
	for r, rd := range d.Rounds {
		for _, b := range append(append([]Batch(nil), rd.Tables...), rd.Streams...) {
			if b.Source != source {
				continue
			}
			for _, row := range b.Rows {
				rows = append(rows, row)
				rounds = append(rounds, r)
			}
		}
	}
	return rows, rounds
}

// Final returns the rows a source holds after every round: all rows of a
// stream, the latest row per key of a table (in first-insertion order).
func (d *Data) Final(source string) []Row {
	rows, _ := d.History(source)
	s := d.Source(source)
	if !s.Table {
		return rows
	}
	latest := map[string]int{}
	var out []Row
	for _, row := range rows {
		k := s.keyOf(row)
		if i, ok := latest[k]; ok {
			out[i] = row
			continue
		}
		latest[k] = len(out)
		out = append(out, row)
	}
	return out
}

// AsOfRounds returns, for a table, the latest row per key at the end of
// each round that changed it: the rows with the round they became current
// in. A lookup join against the table as of round r reads, per key, the
// row with the largest such round not after r.
func (d *Data) AsOfRounds(source string) (rows []Row, rounds []int) {
	all, rs := d.History(source)
	s := d.Source(source)
	type at struct {
		key   string
		round int
	}
	idx := map[at]int{}
	for i, row := range all {
		k := at{s.keyOf(row), rs[i]}
		if j, ok := idx[k]; ok {
			rows[j] = row
			continue
		}
		idx[k] = len(rows)
		rows, rounds = append(rows, row), append(rounds, rs[i])
	}
	return rows, rounds
}

// newRand returns the generator's random source for one stream of values,
// so that changing how one source is generated leaves the others alone.
func newRand(seed uint64, stream string) *rand.Rand {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(stream); i++ {
		h = (h ^ uint64(stream[i])) * 1099511628211
	}
	return rand.New(rand.NewPCG(seed, h))
}

// pick returns one of vals, vals[i] with weight w[i].
func pick[T any](r *rand.Rand, vals []T, w []int) T {
	total := 0
	for _, x := range w {
		total += x
	}
	n := r.IntN(total)
	for i, x := range w {
		if n < x {
			return vals[i]
		}
		n -= x
	}
	return vals[len(vals)-1]
}

// maybeNull returns Null with probability pct percent, v otherwise.
func maybeNull(r *rand.Rand, pct int, v Value) Value {
	if r.IntN(100) < pct {
		return Null
	}
	return v
}

// split cuts rows into n nearly equal consecutive parts.
func split(rows []Row, n int) [][]Row {
	out := make([][]Row, n)
	for i := range n {
		out[i] = rows[i*len(rows)/n : (i+1)*len(rows)/n]
	}
	return out
}
