// Package rowset keeps the integral of a changelog: the distinct rows it
// holds, with their counts. It is what a materialized view stores and what
// a pull query's Sort and Limit collect before they order and cut.
package rowset

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/rowkey"
)

// Set is the integral of the changes applied to it: rows keyed by the
// encoding of their unique key (every column when there is none), each
// with its count. It is not safe for concurrent use.
type Set struct {
	types  []types.T
	key    []int // ordinals of a unique key; nil: rows form a multiset
	rows   map[string]*row
	bytes  int64 // estimated memory of rows
	keyBuf []byte
	keyCol []arrow.Array
	// track is set once the set's changes are tracked: from the first
	// call of Changes or Load on (a set never snapshotted keeps no list).
	track bool
	// changed lists the keys of the rows changed since the last call of
	// Changes (row.changed says a row is listed), the rows since removed
	// included: those are in gone, so that a row removed and added again
	// is listed once.
	changed []string
	gone    map[string]bool
	// upsert makes an insert of a key held replace its row (SetUpsert);
	// replaced lists the rows the last Apply replaced.
	upsert   bool
	replaced []Replaced
}

// Replaced is a row an insert replaced in an upsert set: the insert's
// index in the chunk, and the values it replaced.
type Replaced struct {
	Row int
	Old []types.Datum
}

// SetUpsert makes a keyed set replace the row of a key it holds when an
// insert of that key arrives, rather than hold the key twice: the query
// feeding it may forget a key's row without retracting it (a state TTL's
// eviction) and later insert a new row for the key.
func (s *Set) SetUpsert() { s.upsert = s.key != nil }

// Replaced returns the rows the last Apply replaced, in order.
func (s *Set) Replaced() []Replaced { return s.replaced }

type row struct {
	vals    []types.Datum
	count   int64
	changed bool // listed in Set.changed
	// others are other values of a keyed row's key held at once, each
	// with its count: a key's changes may come from several parallel
	// instances of the query, so its new row can arrive before its old
	// one leaves (a window function partitioned by a column the key's row
	// moves between). They are transient: the rows of a key come back to
	// one when every instance has caught up.
	others []valued
}

// valued is one of a key's values and its count.
type valued struct {
	vals  []types.Datum
	count int64
}

// New returns an empty set of rows of types ts. key lists the ordinals of
// a unique key of the rows, if they have one.
func New(ts []types.T, key []int) *Set {
	return &Set{types: ts, key: key, rows: map[string]*row{}, gone: map[string]bool{}}
}

// rowOverhead estimates the memory of a row besides its key's bytes and its
// values: the map entry (the key's string header, the pointer, and the
// map's load factor), the row and the allocations' rounding.
const rowOverhead = 96

// datumSize is the size of a types.Datum.
var datumSize = int64(unsafe.Sizeof(types.Datum{}))

// datumsBytes estimates the memory of a row's values.
func datumsBytes(vals []types.Datum) int64 {
	n := datumSize * int64(len(vals))
	for i := range vals {
		n += int64(len(vals[i].S))
	}
	return n
}

// Len returns the number of distinct rows held.
func (s *Set) Len() int { return len(s.rows) }

// Bytes returns the estimated memory of the rows held.
func (s *Set) Bytes() int64 { return s.bytes }

// Apply integrates a chunk of changes. A retraction of a row the set does
// not hold is a broken invariant of the query that feeds it and is
// reported as an error; the rows before it stay applied.
func (s *Set) Apply(c exec.Chunk) error {
	s.replaced = s.replaced[:0]
	n := c.NumRows()
	if n == 0 {
		return nil
	}
	cols := c.Batch.Columns()
	keyCols := cols
	if s.key != nil {
		s.keyCol = s.keyCol[:0]
		for _, k := range s.key {
			s.keyCol = append(s.keyCol, cols[k])
		}
		keyCols = s.keyCol
	}
	for i := 0; i < n; i++ {
		s.keyBuf = rowkey.Append(s.keyBuf[:0], keyCols, i)
		w := c.Op(i).Weight()
		r, ok := s.rows[string(s.keyBuf)]
		if !ok {
			if w < 0 {
				return fmt.Errorf("exec: retraction of a row the result does not hold: (%s)", s.format(s.rowAt(cols, i)))
			}
			r = &row{}
			s.rows[string(s.keyBuf)] = r
			s.bytes += rowOverhead + int64(len(s.keyBuf))
			if s.gone[string(s.keyBuf)] {
				// Removed and back since the last snapshot: listed once.
				delete(s.gone, string(s.keyBuf))
				r.changed = true
			}
		}
		if s.track && !r.changed {
			r.changed = true
			s.changed = append(s.changed, string(s.keyBuf))
		}
		if s.upsert && w > 0 && r.count > 0 {
			s.replaced = append(s.replaced, Replaced{Row: i, Old: r.vals})
			r.count = 0
			for _, o := range r.others {
				s.bytes -= datumsBytes(o.vals)
			}
			r.others = nil
		}
		if s.key != nil && !s.upsert && r.count > 0 && !s.equalAt(r.vals, cols, i) {
			s.applyOther(r, cols, i, w)
		} else {
			r.count += w
			if w > 0 {
				s.bytes -= datumsBytes(r.vals)
				r.vals = s.rowAt(cols, i)
				s.bytes += datumsBytes(r.vals)
			}
		}
		if r.count <= 0 && len(r.others) > 0 {
			// The key's row left; one that arrived first takes its place.
			s.bytes -= datumsBytes(r.vals)
			r.vals, r.count = r.others[0].vals, r.count+r.others[0].count
			r.others = r.others[1:]
		}
		if r.count == 0 && len(r.others) == 0 {
			if r.changed {
				s.gone[string(s.keyBuf)] = true
			}
			delete(s.rows, string(s.keyBuf))
			s.bytes -= rowOverhead + int64(len(s.keyBuf)) + datumsBytes(r.vals)
		}
	}
	return nil
}

// applyOther applies weight w of row i of cols, a value of r's key other
// than r.vals, to r.others: the change of another instance arriving before
// the key's current row leaves.
func (s *Set) applyOther(r *row, cols []arrow.Array, i int, w int64) {
	for k := range r.others {
		if s.equalAt(r.others[k].vals, cols, i) {
			r.others[k].count += w
			if r.others[k].count == 0 {
				s.bytes -= datumsBytes(r.others[k].vals)
				r.others = append(r.others[:k], r.others[k+1:]...)
			}
			return
		}
	}
	if w < 0 {
		// A retraction of values the key does not hold: as before values
		// were kept apart, it counts against the key.
		r.count += w
		return
	}
	vals := s.rowAt(cols, i)
	s.bytes += datumsBytes(vals)
	r.others = append(r.others, valued{vals: vals, count: w})
}

// equalAt reports whether row i of cols holds vals.
func (s *Set) equalAt(vals []types.Datum, cols []arrow.Array, i int) bool {
	for j, col := range cols {
		d := types.DatumAt(col, i, s.types[j])
		if d.Null != vals[j].Null || !d.Null && types.Compare(d, vals[j], s.types[j]) != 0 {
			return false
		}
	}
	return true
}

// format renders a row's values as SQL prints them, for errors.
func (s *Set) format(row []types.Datum) string {
	parts := make([]string, len(row))
	for j, d := range row {
		parts[j] = types.Format(d, s.types[j])
	}
	return strings.Join(parts, ", ")
}

func (s *Set) rowAt(cols []arrow.Array, i int) []types.Datum {
	vals := make([]types.Datum, len(cols))
	for j, col := range cols {
		vals[j] = types.DatumAt(col, i, s.types[j])
	}
	return vals
}

// Each calls fn for every distinct row held: its key in the set, its
// count and its values (shared with the set: fn must not modify them), in
// no particular order.
func (s *Set) Each(fn func(key string, count int64, vals []types.Datum)) {
	for k, r := range s.rows {
		fn(k, r.count, r.vals)
	}
}

// Lookup returns the count and values of the row whose key in the set is
// key, if the set holds it.
func (s *Set) Lookup(key string) (count int64, vals []types.Datum, ok bool) {
	r, ok := s.rows[key]
	if !ok {
		return 0, nil, false
	}
	return r.count, r.vals, true
}

// Rows returns the rows held (a row held k times appears k times), in no
// particular order. The rows share their values with the set: callers
// must not modify them.
func (s *Set) Rows() [][]types.Datum {
	out := make([][]types.Datum, 0, len(s.rows))
	for _, r := range s.rows {
		for k := int64(0); k < r.count; k++ {
			out = append(out, r.vals)
		}
		for _, o := range r.others {
			for k := int64(0); k < o.count; k++ {
				out = append(out, o.vals)
			}
		}
	}
	return out
}
