package physical

import (
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/planner/plan"
)

// Describe implementations.

func (n *Source) Describe() (string, []plan.Attr) {
	cols := make([]string, len(n.Ords))
	for i, o := range n.Ords {
		cols[i] = n.Object.Columns[o].Name
	}
	if n.Keep {
		cols = append(cols, n.Cols[len(n.Cols)-1].Name)
	}
	attrs := []plan.Attr{{Value: n.Object.Name}, {Key: "kind", Value: sourceKind(n.Object)}, {Key: "columns", Value: "[" + strings.Join(cols, ", ") + "]"}}
	if wm := n.Object.Watermark; wm != nil {
		attrs = append(attrs, plan.Attr{Key: "watermark", Value: "(" + wm.Text + ")"})
	}
	if n.Mode == plan.ScanSnapshot {
		attrs = append(attrs, plan.Attr{Key: "mode", Value: "snapshot"})
	}
	if len(n.Prune) > 0 {
		attrs = append(attrs, plan.Attr{Key: "prune", Value: pruneText(n.Prune)})
	}
	return "Source", attrs
}

func sourceKind(o *catalog.Object) string {
	switch {
	case o.Kind == catalog.View:
		return "view"
	case o.Connector() != "":
		return o.Connector()
	case o.Kind == catalog.Table:
		return "table"
	}
	return "insert"
}

func (n *HashJoin) Describe() (string, []plan.Attr) {
	attrs := []plan.Attr{{Value: n.Kind.String()}}
	if len(n.KeyText) > 0 {
		attrs = append(attrs, plan.Attr{Key: "keys", Value: "[" + strings.Join(n.KeyText, ", ") + "]"})
	}
	if n.Residual != nil {
		attrs = append(attrs, plan.Attr{Key: "cond", Value: n.Residual.String()})
	}
	if n.Windowed {
		attrs = append(attrs, plan.Attr{Key: "time", Value: n.TimeText})
		if n.Lo == 0 && n.Hi == 0 {
			return "WindowJoin", attrs // equal windows
		}
		return "IntervalJoin", attrs
	}
	if n.StateTTL > 0 && !n.Lookup {
		attrs = append(attrs, ttlAttr("join keys", n.StateTTL))
	}
	if n.Adaptive {
		attrs = append(attrs, plan.Attr{Value: "adaptive"})
	}
	if n.Lookup {
		return "LookupJoin", attrs
	}
	return "HashJoin", attrs
}

func (n *Values) Describe() (string, []plan.Attr) {
	return "Values", []plan.Attr{{Key: "rows", Value: strconv.Itoa(len(n.Rows))}}
}

func (n *Calc) Describe() (string, []plan.Attr) {
	var attrs []plan.Attr
	if n.Filter != nil {
		attrs = append(attrs, plan.Attr{Key: "filter", Value: n.Filter.String()})
	}
	projs := plan.AliasList(len(n.Projs), func(i int) (string, string) { return n.Projs[i].String(), n.Cols[i].Name })
	return "Calc", append(attrs, plan.Attr{Key: "project", Value: projs})
}

func (n *LocalAgg) Describe() (string, []plan.Attr) {
	var attrs []plan.Attr
	if len(n.GroupKeys) > 0 { // the group columns lead the output
		attrs = append(attrs, plan.Attr{Key: "group", Value: list(colNames(n.Cols[:len(n.GroupKeys)]))})
	}
	parts := make([]string, len(n.Partials))
	in := n.Inputs[0].Hdr().Cols
	for i, p := range n.Partials {
		arg := "*"
		if p.Arg >= 0 {
			arg = in[p.Arg].Name
		}
		parts[i] = p.Kind.String() + "(" + arg + ")"
	}
	return "LocalAggregate", append(attrs, plan.Attr{Key: "partials", Value: "[" + strings.Join(parts, ", ") + "]"})
}

func (n *HashAgg) Describe() (string, []plan.Attr) {
	var attrs []plan.Attr
	if len(n.GroupKeys) > 0 {
		attrs = append(attrs, plan.Attr{Key: "group", Value: list(colNames(n.Cols[:len(n.GroupKeys)]))})
	}
	attrs = append(attrs, plan.Attr{Key: "aggs", Value: aggsText(n.Aggs, n.Cols[len(n.GroupKeys):])})
	if shared := sharedDistinctText(n.Aggs, n.Cols[len(n.GroupKeys):]); shared != "" {
		attrs = append(attrs, plan.Attr{Key: "shared_distinct", Value: shared})
	}
	if n.Final {
		attrs = append(attrs, plan.Attr{Key: "phase", Value: "final"})
	}
	if n.AppendOnlyInput {
		attrs = append(attrs, plan.Attr{Key: "input", Value: "append-only"})
	}
	if n.CloseKey >= 0 {
		attrs = append(attrs, plan.CloseAttrs(n.Cols[n.CloseKey].Name, n.CloseOffset, n.EmitOnClose)...)
	}
	if len(n.PartKeys) > 0 {
		names := make([]string, len(n.PartKeys))
		for i, k := range n.PartKeys {
			names[i] = n.Cols[k].Name
		}
		attrs = append(attrs, plan.Attr{Key: "partitioned", Value: list(names)})
	}
	if n.StateTTL > 0 {
		attrs = append(attrs, ttlAttr("groups", n.StateTTL))
	}
	return "HashAggregate", attrs
}

func (n *WindowAssign) Describe() (string, []plan.Attr) {
	in := n.Inputs[0].Hdr().Cols
	attrs := []plan.Attr{{Value: n.Kind.String()}, {Key: "time", Value: in[n.TimeCol].Name}}
	return "WindowAssign", append(attrs, plan.WindowSizes(n.Kind, n.Size, n.Slide)...)
}

func (n *SessionAgg) Describe() (string, []plan.Attr) {
	var attrs []plan.Attr
	if len(n.Keys) > 0 {
		attrs = append(attrs, plan.Attr{Key: "group", Value: list(colNames(n.Cols[:len(n.Keys)]))})
	}
	in := n.Inputs[0].Hdr().Cols
	attrs = append(attrs, plan.Attr{Key: "time", Value: in[n.TimeCol].Name},
		plan.Attr{Key: "gap", Value: plan.IntervalText(n.Gap)},
		plan.Attr{Key: "aggs", Value: aggsText(n.Aggs, n.Cols[len(n.Keys)+2:])})
	if n.EmitOnClose {
		attrs = append(attrs, plan.Attr{Key: "emit", Value: "on-window-close"})
	}
	return "SessionAggregate", attrs
}

func (n *Upsert) Describe() (string, []plan.Attr) {
	return "Upsert", []plan.Attr{{Key: "key", Value: list(ordNames(n.Cols, n.Keys))}}
}

func (n *Dedup) Describe() (string, []plan.Attr) {
	in := n.Inputs[0].Hdr().Cols
	time := "processing"
	if n.TimeCol >= 0 {
		time = "event(" + in[n.TimeCol].Name + ")"
	}
	return "Dedup", []plan.Attr{{Key: "key", Value: list(ordNames(in, n.Keys))}, {Key: "window", Value: n.Window},
		{Key: "fpr", Value: strconv.FormatFloat(n.FPR, 'g', -1, 64)}, {Key: "time", Value: time}}
}

func (n *Exchange) Describe() (string, []plan.Attr) {
	d := n.Dist.String()
	if n.Dist == Hash {
		d += "(" + strings.Join(ordNames(n.Cols, n.Keys), ", ") + ")"
	}
	attrs := []plan.Attr{{Value: d}}
	if n.Project != nil {
		in := n.Inputs[0].Hdr().Cols
		cols := make([]string, len(n.Project))
		for i, k := range n.Project {
			cols[i] = in[k].Name
			if i < len(n.Cols) && n.Cols[i].Name != in[k].Name {
				cols[i] += " AS " + n.Cols[i].Name
			}
		}
		attrs = append(attrs, plan.Attr{Key: "columns", Value: "[" + strings.Join(cols, ", ") + "]"})
	}
	return "Exchange", attrs
}

func (n *Sort) Describe() (string, []plan.Attr) {
	return "Sort", []plan.Attr{{Value: strings.Join(keyNames(n.Cols, n.Keys), ", ")}}
}

func (n *Limit) Describe() (string, []plan.Attr) {
	attrs := []plan.Attr{{Value: strconv.FormatInt(n.Count, 10)}}
	if n.Offset > 0 {
		attrs = append(attrs, plan.Attr{Key: "offset", Value: strconv.FormatInt(n.Offset, 10)})
	}
	return "Limit", attrs
}

// list renders names as `[a, b]`.
func list(names []string) string { return "[" + strings.Join(names, ", ") + "]" }

// colNames returns the names of cs.
func colNames(cs []Col) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// ordNames returns the names of the columns of cs at ords.
func ordNames(cs []Col, ords []int) []string {
	out := make([]string, len(ords))
	for i, o := range ords {
		out[i] = cs[o].Name
	}
	return out
}

// keyNames renders sort keys over cs as their columns' names, with DESC
// where they descend.
func keyNames(cs []Col, keys []SortKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = plan.SortKeyText(cs[k.Ord].Name, k.Desc)
	}
	return out
}

// aggsText renders aggregates whose results are the columns out, each
// with its column's name where that is not its text.
func aggsText(aggs []AggSpec, out []Col) string {
	return plan.AliasList(len(aggs), func(i int) (string, string) { return aggs[i].Text, out[i].Name })
}

// partitionAttrs renders the partition attribute of an operator over the
// input columns in, when it has partition columns.
func partitionAttrs(in []Col, partition []int) []plan.Attr {
	if len(partition) == 0 {
		return nil
	}
	return []plan.Attr{{Key: "partition", Value: list(ordNames(in, partition))}}
}

// orderAttr renders the order attribute of an operator over the input
// columns in.
func orderAttr(in []Col, order []SortKey) plan.Attr {
	return plan.Attr{Key: "order", Value: list(keyNames(in, order))}
}

func (n *TopN) Describe() (string, []plan.Attr) {
	in := n.Inputs[0].Hdr().Cols
	attrs := append(partitionAttrs(in, n.Partition), orderAttr(in, n.Order),
		plan.Attr{Key: "limit", Value: strconv.FormatInt(n.Limit, 10)})
	if n.RowNumber {
		attrs = append(attrs, plan.Attr{Key: "row_number", Value: n.Cols[len(n.Cols)-1].Name})
	}
	if n.AppendOnlyInput {
		attrs = append(attrs, plan.Attr{Key: "input", Value: "append-only"})
	}
	if len(n.PartKeys) > 0 {
		names := make([]string, len(n.PartKeys))
		for i, k := range n.PartKeys {
			names[i] = in[n.Partition[k]].Name
		}
		attrs = append(attrs, plan.Attr{Key: "partitioned", Value: list(names)})
	}
	return "TopN", attrs
}

func (n *Union) Describe() (string, []plan.Attr) {
	return "Union", []plan.Attr{{Value: "ALL"}, {Key: "inputs", Value: strconv.Itoa(len(n.Inputs))}}
}
