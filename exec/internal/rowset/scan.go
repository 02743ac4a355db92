package rowset

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
)

// Rows returns the rows held (a row held k times appears k times), in no
// particular order.
func (s *Set) Rows() [][]types.Datum {
	out := make([][]types.Datum, 0, s.live)
	for _, g := range s.segs {
		for r := range g.n {
			n := g.count(r)
			if n <= 0 {
				continue
			}
			vals := g.datums(r)
			for range n {
				out = append(out, vals)
			}
		}
	}
	return out
}

// Batches returns the rows held as record batches of the given schema
// holding columns ords of the set's (a row held k times appears k times):
// one batch per segment with live rows, but the segments whose values lie
// outside one of ranges (zone.go), which hold no row in all of them; the
// other batches may hold rows outside the ranges too. A sealed segment
// whose rows are all held once is handed out as it is stored, without a
// copy; the others are copied, so the batches stay valid however the set
// changes after. The caller releases them.
func (s *Set) Batches(schema *arrow.Schema, ords []int, ranges ...Range) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	var sel []int32
	for _, g := range s.segs {
		if g.n == g.dead || len(ranges) > 0 && g.outside(ranges) {
			continue
		}
		arrays := g.columns()
		plain := g.dead == 0 && g.counts == nil
		if !plain {
			sel = sel[:0]
			for r := range g.n {
				for range max(g.count(r), 0) {
					sel = append(sel, int32(r))
				}
			}
		}
		cols := make([]arrow.Array, len(ords))
		rows := g.n
		for k, o := range ords {
			switch {
			case plain && g.sealed:
				cols[k] = arrays[o]
				cols[k].Retain()
			case plain:
				c := newColumn(s.types[o])
				c.appendRange(arrays[o], 0, g.n)
				cols[k] = c.array(c.n)
			default:
				c := newColumn(s.types[o])
				c.appendSel(arrays[o], sel)
				cols[k], rows = c.array(c.n), c.n
			}
		}
		if !plain {
			rows = len(sel)
		}
		out = append(out, array.NewRecordBatch(schema, cols, int64(rows)))
		for _, c := range cols {
			c.Release()
		}
		if !g.sealed {
			for _, a := range arrays {
				a.Release()
			}
		}
	}
	return out
}
