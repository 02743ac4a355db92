package physical

import (
	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// TemporalFilter keeps the rows whose time column TimeCol is later than
// NOW() + Offset (at or later when Inclusive), retracting each when the
// processing time passes it (plan.TemporalFilter). Over an input that
// retracts, a hash exchange on every column routes a row and its
// retraction to the same instance, which keeps the row in the key group of
// that hash; over an append-only input it runs in its input's stage.
type TemporalFilter struct {
	Header
	TimeCol   int
	Inclusive bool
	Delay     bool // bounds TimeCol from above: holds rows until their time (plan.TemporalFilter)
	Offset    int64
	NowUnit   int64
	Cond      string // the condition as written, for EXPLAIN
	Expires   string // when a row leaves, for EXPLAIN
}

// Describe implements Node.
func (n *TemporalFilter) Describe() (string, []plan.Attr) {
	return "TemporalFilter", []plan.Attr{{Value: n.Cond}, {Key: "state", Value: n.Expires}}
}

func (b *builder) buildTemporalFilter(n *plan.TemporalFilter) (Node, error) {
	in, err := b.build(n.Input)
	if err != nil {
		return nil, err
	}
	inCols := n.Input.Output()
	p := in.Hdr().Parallelism
	if !n.Input.Props().AppendOnly {
		all := make([]int, len(inCols))
		for i := range all {
			all[i] = i
		}
		in, p = b.exchange(in, Hash, all, b.opts.Parallelism), b.opts.Parallelism
	}
	_, attrs := n.Describe(b.md)
	t := &TemporalFilter{Header: b.header(n.Output(), p, in), TimeCol: inCols.Find(n.Col), Inclusive: n.Inclusive,
		Delay: n.Delay, Offset: n.Offset, NowUnit: n.NowUnit, Cond: attrs[0].Value, Expires: attrs[1].Value}
	rate := in.Hdr().Est.RowsPerSec
	// The rows kept are those of the last -Offset of processing time (a
	// delaying filter: of the next Offset).
	rows := rate * float64(max(-n.Offset, 0)) / 1000
	if n.Delay {
		rows = rate * float64(max(n.Offset, 0)) / 1000
	}
	if n.Input.Props().Bounded {
		rows = min(rows, cost.DefaultSnapshotRows)
	}
	t.Est = Estimate{RowsPerSec: rate, Stateful: true, StateBounded: true, StateRows: rows,
		StateBytes: rows * cost.RowWidth(t.Types())}
	return t, nil
}
