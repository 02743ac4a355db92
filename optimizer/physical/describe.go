package physical

import (
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Describe implementations.

func (n *Source) Describe() (string, []plan.Attr) {
	cols := make([]string, len(n.Ords))
	for i, o := range n.Ords {
		cols[i] = n.Object.Columns[o].Name
	}
	attrs := []plan.Attr{{Value: n.Object.Name}, {Key: "kind", Value: sourceKind(n.Object)}, {Key: "columns", Value: "[" + strings.Join(cols, ", ") + "]"}}
	if wm := n.Object.Watermark; wm != nil {
		attrs = append(attrs, plan.Attr{Key: "watermark", Value: "(" + wm.Text + ")"})
	}
	if n.Mode == plan.ScanSnapshot {
		attrs = append(attrs, plan.Attr{Key: "mode", Value: "snapshot"})
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
	projs := make([]string, len(n.Projs))
	for i, p := range n.Projs {
		projs[i] = p.String()
		if name := n.Cols[i].Name; name != projs[i] {
			projs[i] += " AS " + name
		}
	}
	return "Calc", append(attrs, plan.Attr{Key: "project", Value: "[" + strings.Join(projs, ", ") + "]"})
}

func (n *LocalAgg) Describe() (string, []plan.Attr) {
	var attrs []plan.Attr
	if len(n.GroupKeys) > 0 { // the group columns lead the output
		attrs = append(attrs, plan.Attr{Key: "group", Value: "[" + strings.Join(cols(n.Cols[:len(n.GroupKeys)]).names(), ", ") + "]"})
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
		attrs = append(attrs, plan.Attr{Key: "group", Value: "[" + strings.Join(cols(n.Cols[:len(n.GroupKeys)]).names(), ", ") + "]"})
	}
	aggs := make([]string, len(n.Aggs))
	for i, a := range n.Aggs {
		aggs[i] = a.Text
		if name := n.Cols[len(n.GroupKeys)+i].Name; name != a.Text {
			aggs[i] += " AS " + name
		}
	}
	attrs = append(attrs, plan.Attr{Key: "aggs", Value: "[" + strings.Join(aggs, ", ") + "]"})
	if n.Final {
		attrs = append(attrs, plan.Attr{Key: "phase", Value: "final"})
	}
	if n.AppendOnlyInput {
		attrs = append(attrs, plan.Attr{Key: "input", Value: "append-only"})
	}
	if n.CloseKey >= 0 {
		close := n.Cols[n.CloseKey].Name
		if n.CloseOffset != 0 {
			close += " + " + intervalText(n.CloseOffset)
		}
		attrs = append(attrs, plan.Attr{Key: "closes", Value: close})
		if n.EmitOnClose {
			attrs = append(attrs, plan.Attr{Key: "emit", Value: "on-window-close"})
		}
	}
	return "HashAggregate", attrs
}

func (n *WindowAssign) Describe() (string, []plan.Attr) {
	in := n.Inputs[0].Hdr().Cols
	attrs := []plan.Attr{{Value: n.Kind.String()}, {Key: "time", Value: in[n.TimeCol].Name}}
	switch n.Kind {
	case plan.Hop:
		attrs = append(attrs, plan.Attr{Key: "slide", Value: intervalText(n.Slide)}, plan.Attr{Key: "size", Value: intervalText(n.Size)})
	case plan.Cumulate:
		attrs = append(attrs, plan.Attr{Key: "step", Value: intervalText(n.Slide)}, plan.Attr{Key: "size", Value: intervalText(n.Size)})
	default:
		attrs = append(attrs, plan.Attr{Key: "size", Value: intervalText(n.Size)})
	}
	return "WindowAssign", attrs
}

func (n *SessionAgg) Describe() (string, []plan.Attr) {
	var attrs []plan.Attr
	if len(n.Keys) > 0 {
		attrs = append(attrs, plan.Attr{Key: "group", Value: "[" + strings.Join(cols(n.Cols[:len(n.Keys)]).names(), ", ") + "]"})
	}
	in := n.Inputs[0].Hdr().Cols
	attrs = append(attrs, plan.Attr{Key: "time", Value: in[n.TimeCol].Name},
		plan.Attr{Key: "gap", Value: intervalText(n.Gap)})
	aggs := make([]string, len(n.Aggs))
	for i, a := range n.Aggs {
		aggs[i] = a.Text
		if name := n.Cols[len(n.Keys)+2+i].Name; name != a.Text {
			aggs[i] += " AS " + name
		}
	}
	attrs = append(attrs, plan.Attr{Key: "aggs", Value: "[" + strings.Join(aggs, ", ") + "]"})
	if n.EmitOnClose {
		attrs = append(attrs, plan.Attr{Key: "emit", Value: "on-window-close"})
	}
	return "SessionAggregate", attrs
}

func (n *Upsert) Describe() (string, []plan.Attr) {
	keys := make([]string, len(n.Keys))
	for i, k := range n.Keys {
		keys[i] = n.Cols[k].Name
	}
	return "Upsert", []plan.Attr{{Key: "key", Value: "[" + strings.Join(keys, ", ") + "]"}}
}

func (n *Exchange) Describe() (string, []plan.Attr) {
	d := n.Dist.String()
	if n.Dist == Hash {
		in := n.Inputs[0].Hdr().Cols
		keys := make([]string, len(n.Keys))
		for i, k := range n.Keys {
			keys[i] = in[k].Name
		}
		d += "(" + strings.Join(keys, ", ") + ")"
	}
	return "Exchange", []plan.Attr{{Value: d}}
}

func (n *Sort) Describe() (string, []plan.Attr) {
	keys := make([]string, len(n.Keys))
	for i, k := range n.Keys {
		keys[i] = n.Cols[k.Ord].Name
		if k.Desc {
			keys[i] += " DESC"
		}
	}
	return "Sort", []plan.Attr{{Value: strings.Join(keys, ", ")}}
}

func (n *Limit) Describe() (string, []plan.Attr) {
	attrs := []plan.Attr{{Value: strconv.FormatInt(n.Count, 10)}}
	if n.Offset > 0 {
		attrs = append(attrs, plan.Attr{Key: "offset", Value: strconv.FormatInt(n.Offset, 10)})
	}
	return "Limit", attrs
}

type cols []Col

func (cs cols) names() []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// intervalText renders a day-time interval as `10 SECOND`.
func intervalText(ms int64) string {
	return strings.ReplaceAll(strings.TrimPrefix(types.FormatInterval(ms), "INTERVAL "), "'", "")
}

func (n *TopN) Describe() (string, []plan.Attr) {
	in := n.Inputs[0].Hdr().Cols
	var attrs []plan.Attr
	if len(n.Partition) > 0 {
		names := make([]string, len(n.Partition))
		for i, p := range n.Partition {
			names[i] = in[p].Name
		}
		attrs = append(attrs, plan.Attr{Key: "partition", Value: "[" + strings.Join(names, ", ") + "]"})
	}
	keys := make([]string, len(n.Order))
	for i, k := range n.Order {
		keys[i] = in[k.Ord].Name
		if k.Desc {
			keys[i] += " DESC"
		}
	}
	attrs = append(attrs, plan.Attr{Key: "order", Value: "[" + strings.Join(keys, ", ") + "]"},
		plan.Attr{Key: "limit", Value: strconv.FormatInt(n.Limit, 10)})
	if n.RowNumber {
		attrs = append(attrs, plan.Attr{Key: "row_number", Value: n.Cols[len(n.Cols)-1].Name})
	}
	if n.AppendOnlyInput {
		attrs = append(attrs, plan.Attr{Key: "input", Value: "append-only"})
	}
	return "TopN", attrs
}

func (n *Union) Describe() (string, []plan.Attr) {
	return "Union", []plan.Attr{{Value: "ALL"}, {Key: "inputs", Value: strconv.Itoa(len(n.Inputs))}}
}
