package rowset

import (
	"math"

	"github.com/eddysql/eddy/catalog/types"
)

// Zone maps. A pull query's filter on a column of a view often selects a
// range of it — a time range of an append-only view, whose segments
// hold consecutive times — and a segment whose values all lie outside
// the range holds no row the filter keeps. Batches skips such segments
// (Range): it reads each numeric column's least and greatest value of a
// segment, computed once when the segment is sealed and first asked
// (its rows are not written again), and every time for the segment still
// filling. The bounds take every slot of the segment, NULLs' and dead
// rows' included, so they may be wider than the values held, never
// narrower: a skipped segment holds no row the filter keeps, whatever its
// NULLs and counts.

// Range bounds a column's values, both ends included: a filter's
// conjuncts on the column (col > 5 AND col <= 9: [6, 9]). A BIGINT,
// TIMESTAMP, INTERVAL or DATE column compares Lo and Hi; a DOUBLE column
// compares LoF and HiF.
type Range struct {
	Col      int // the set's column
	Lo, Hi   int64
	LoF, HiF float64
}

// zone is a column's least and greatest value in a segment; ok is false
// for a column it does not bound (not numeric, or a DOUBLE NaN among its
// slots).
type zone struct {
	lo, hi   int64
	loF, hiF float64
	ok       bool
}

// zoneOf returns column c's zone over its n slots.
func zoneOf(c *column, n int) zone {
	if n == 0 {
		return zone{}
	}
	switch c.t.Physical() {
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		return intZone(c.i64[:n])
	case types.PhysDate32:
		vs := c.i32[:n]
		lo, hi := vs[0], vs[0]
		for _, v := range vs[1:] {
			lo, hi = min(lo, v), max(hi, v)
		}
		return zone{lo: int64(lo), hi: int64(hi), ok: true}
	case types.PhysFloat64:
		vs := c.f64[:n]
		lo, hi := vs[0], vs[0]
		for _, v := range vs {
			if math.IsNaN(v) {
				return zone{}
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		return zone{loF: lo, hiF: hi, ok: true}
	}
	return zone{}
}

func intZone(vs []int64) zone {
	lo, hi := vs[0], vs[0]
	for _, v := range vs[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return zone{lo: lo, hi: hi, ok: true}
}

// zone returns column i's zone in g: cached once g is sealed.
func (g *segment) zone(i int) zone {
	if !g.sealed {
		return zoneOf(&g.cols[i], g.n)
	}
	if g.zones == nil {
		g.zones = make([]zone, len(g.cols))
		g.zoned = make([]bool, len(g.cols))
	}
	if !g.zoned[i] {
		g.zones[i], g.zoned[i] = zoneOf(&g.cols[i], g.n), true
	}
	return g.zones[i]
}

// outside reports whether every value of g lies outside one of ranges: no
// row of g is in all of them.
func (g *segment) outside(ranges []Range) bool {
	for _, r := range ranges {
		z := g.zone(r.Col)
		if !z.ok {
			continue
		}
		if g.cols[r.Col].t.Physical() == types.PhysFloat64 {
			if z.hiF < r.LoF || z.loF > r.HiF {
				return true
			}
			continue
		}
		if z.hi < r.Lo || z.lo > r.Hi {
			return true
		}
	}
	return false
}
