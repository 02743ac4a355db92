package cost

import (
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/planner/plan"
)

// TableStats are the statistics of a stream or table the cost model reads.
// A zero field is unknown.
type TableStats struct {
	Rows       float64 // rows it holds (a bounded input) or has seen
	RowsPerSec float64 // its observed input rate
	RowBytes   float64
	Distinct   map[string]float64 // by lower-case column name
	NullFrac   map[string]float64
}

// Statistics looks up the statistics of an object; false when it has none.
type Statistics func(o *catalog.Object) (TableStats, bool)

// Estimator estimates rates, distinct counts and selectivities from the
// catalog's statistics, falling back to the defaults. A nil Estimator, or
// one without Stats, uses the defaults only.
type Estimator struct {
	Md    *plan.Metadata
	Stats Statistics

	// sizes memoizes Size per node (plans are immutable, statistics fixed
	// for a statement): physical planning asks the size of each join's
	// sides, which would otherwise walk each side's whole subtree.
	sizes map[plan.Node]float64
}

func (e *Estimator) stats(o *catalog.Object) (TableStats, bool) {
	if e == nil || e.Stats == nil || o == nil {
		return TableStats{}, false
	}
	return e.Stats(o)
}

// SourceRate estimates the rows per second a scan of o produces: the
// observed rate of a stream, the size of a bounded input read in about a
// second, or the defaults.
func (e *Estimator) SourceRate(o *catalog.Object, bounded bool) float64 {
	if s, ok := e.stats(o); ok {
		switch {
		case bounded && s.Rows > 0:
			return s.Rows
		case !bounded && s.RowsPerSec > 0:
			return s.RowsPerSec
		}
	}
	return SourceRate(o, bounded)
}

// Rows estimates the rows of o's current contents (for state sizes): its
// statistics' row count, a bounded source's as its connector estimates
// it (a file table's from the file's size), or the default.
func (e *Estimator) Rows(o *catalog.Object) float64 {
	if s, ok := e.stats(o); ok && s.Rows > 0 {
		return s.Rows
	}
	if o.Traits.Bounded && o.Traits.Rows > 0 {
		return o.Traits.Rows
	}
	return DefaultDistinct
}

// Distinct estimates the distinct values of column id: the statistics of
// the source column it comes from, or DefaultDistinct.
func (e *Estimator) Distinct(id plan.ColumnID) float64 {
	d, _ := e.distinct(id)
	return d
}

// DistinctKnown is Distinct, reporting whether statistics gave it (false:
// the default).
func (e *Estimator) DistinctKnown(id plan.ColumnID) (float64, bool) { return e.distinct(id) }

// distinct is Distinct, reporting whether statistics gave it.
func (e *Estimator) distinct(id plan.ColumnID) (float64, bool) {
	if e != nil && e.Md != nil {
		c := e.Md.Column(id)
		if s, ok := e.stats(c.Object); ok && c.Object != nil && c.Ord >= 0 && c.Ord < len(c.Object.Columns) {
			if d := s.Distinct[strings.ToLower(c.Object.Columns[c.Ord].Name)]; d >= 1 {
				return d, true
			}
		}
	}
	return DefaultDistinct, false
}

// nullFrac estimates the fraction of NULLs of column id.
func (e *Estimator) nullFrac(id plan.ColumnID) (float64, bool) {
	if e != nil && e.Md != nil {
		c := e.Md.Column(id)
		if s, ok := e.stats(c.Object); ok && c.Object != nil && c.Ord >= 0 && c.Ord < len(c.Object.Columns) {
			f, ok := s.NullFrac[strings.ToLower(c.Object.Columns[c.Ord].Name)]
			return f, ok
		}
	}
	return 0, false
}

// Selectivity estimates the fraction of rows for which pred is TRUE: an
// equality of a column with a constant keeps one of its distinct values,
// IS NULL its NULL fraction; the rest as the package-level Selectivity.
func (e *Estimator) Selectivity(pred plan.Expr) float64 {
	switch p := pred.(type) {
	case *plan.And:
		s := 1.0
		for _, a := range p.Args {
			s *= e.Selectivity(a)
		}
		return s
	case *plan.Or:
		miss := 1.0
		for _, a := range p.Args {
			miss *= 1 - e.Selectivity(a)
		}
		return 1 - miss
	case *plan.Not:
		return 1 - e.Selectivity(p.Arg)
	case *plan.Binary:
		if col, ok := colAndConst(p); ok && (p.Op == plan.OpEq || p.Op == plan.OpNe) {
			if d, known := e.distinct(col); known {
				s := 1 / d
				if p.Op == plan.OpNe {
					return 1 - s
				}
				return s
			}
		}
	case *plan.In:
		if c, ok := p.Arg.(*plan.ColRef); ok {
			if d, known := e.distinct(c.ID); known {
				s := min(float64(len(p.List))/d, 1)
				if p.Negated {
					return 1 - s
				}
				return s
			}
		}
	case *plan.IsNull:
		if c, ok := p.Arg.(*plan.ColRef); ok {
			if f, ok := e.nullFrac(c.ID); ok {
				if p.Negated {
					return 1 - f
				}
				return f
			}
		}
	}
	return Selectivity(pred)
}

// colAndConst matches `column op constant` (either way round).
func colAndConst(b *plan.Binary) (plan.ColumnID, bool) {
	if c, ok := b.L.(*plan.ColRef); ok {
		if _, ok := b.R.(*plan.Const); ok {
			return c.ID, true
		}
	}
	if c, ok := b.R.(*plan.ColRef); ok {
		if _, ok := b.L.(*plan.Const); ok {
			return c.ID, true
		}
	}
	return 0, false
}
