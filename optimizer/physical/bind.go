package physical

import (
	"fmt"

	"github.com/eddysql/eddy/planner/plan"
)

// Binding turns the column references of logical expressions (by ID) into
// references to their input's ordinals, which is all the runtime sees.

// bind replaces column references by ordinals into in.
func bind(e plan.Expr, in *ordinals) (plan.Expr, error) {
	var err error
	out := plan.MapColRefs(e, func(c *plan.ColRef) plan.Expr {
		i := in.find(c.ID)
		if i < 0 {
			err = fmt.Errorf("physical: column %s (#%d) is not produced by the input", c.Name, c.ID)
			return c
		}
		return &plan.InputRef{Ord: i, Name: c.Name, Typ: c.Typ, Null: c.Null}
	})
	return out, err
}

// ordinals finds columns in a node's input: by scanning a narrow input,
// through an index built once for a wide one, so that binding a select
// list of thousands of columns costs a lookup per reference.
type ordinals struct {
	cols plan.ColList
	byID map[plan.ColumnID]int
}

// indexOrdinalsFrom is the input width from which ordinals builds an
// index: below it a scan is as fast as hashing.
const indexOrdinalsFrom = 32

func ordinalsOf(cols plan.ColList) *ordinals {
	o := &ordinals{cols: cols}
	if len(cols) >= indexOrdinalsFrom {
		o.byID = make(map[plan.ColumnID]int, len(cols))
		for i := len(cols) - 1; i >= 0; i-- { // the first position wins, as Find's
			o.byID[cols[i]] = i
		}
	}
	return o
}

// find returns the position of id, or -1.
func (o *ordinals) find(id plan.ColumnID) int {
	if o.byID == nil {
		return o.cols.Find(id)
	}
	if i, ok := o.byID[id]; ok {
		return i
	}
	return -1
}
