package plan

import (
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
)

// Describe implementations.

func (n *Scan) Describe(md *Metadata) (string, []Attr) {
	name := n.Object.Name
	if n.Alias != "" && !strings.EqualFold(n.Alias, n.Object.Name) {
		name += " AS " + n.Alias
	}
	attrs := []Attr{{"", name}, {"columns", colNames(md, n.Output())}}
	if n.Mode == ScanSnapshot {
		attrs = append(attrs, Attr{"mode", "snapshot"})
	}
	return "Scan", attrs
}

func (n *Values) Describe(md *Metadata) (string, []Attr) {
	return "Values", []Attr{{"rows", strconv.Itoa(len(n.Rows))}, {"columns", colNames(md, n.Cols)}}
}

func (n *Filter) Describe(md *Metadata) (string, []Attr) {
	return "Filter", []Attr{{"", n.Pred.String()}}
}

func (n *Project) Describe(md *Metadata) (string, []Attr) {
	return "Project", []Attr{{"", projText(md, n.Items)}}
}

func (n *Calc) Describe(md *Metadata) (string, []Attr) {
	var attrs []Attr
	if n.Pred != nil {
		attrs = append(attrs, Attr{"filter", n.Pred.String()})
	}
	return "Calc", append(attrs, Attr{"project", projText(md, n.Items)})
}

func (n *Aggregate) Describe(md *Metadata) (string, []Attr) {
	attrs := []Attr{}
	if len(n.Group) > 0 {
		attrs = append(attrs, Attr{"group", colNames(md, n.Group)})
	}
	attrs = append(attrs, Attr{"aggs", aggsText(md, n.Aggs)})
	if n.WindowClose != 0 {
		attrs = append(attrs, CloseAttrs(md.Column(n.WindowClose).Name, n.WindowCloseOffset, n.EmitOnClose)...)
	}
	return "Aggregate", attrs
}

func (n *Sort) Describe(md *Metadata) (string, []Attr) {
	return "Sort", []Attr{{"", strings.Join(keyNames(md, n.Keys), ", ")}}
}

func (n *Limit) Describe(md *Metadata) (string, []Attr) {
	attrs := []Attr{{"", strconv.FormatInt(n.Count, 10)}}
	if n.Offset > 0 {
		attrs = append(attrs, Attr{"offset", strconv.FormatInt(n.Offset, 10)})
	}
	return "Limit", attrs
}

// colNames renders the names of cols as a list.
func colNames(md *Metadata, cols ColList) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = md.Column(c).Name
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// projText renders projection items as a list of their expressions,
// each with its column's name where that is not the expression's text.
func projText(md *Metadata, items []ProjItem) string {
	return AliasList(len(items), func(i int) (string, string) { return items[i].Expr.String(), md.Column(items[i].ID).Name })
}

// aggsText renders aggregate calls as projText renders items.
func aggsText(md *Metadata, aggs []AggCall) string {
	return AliasList(len(aggs), func(i int) (string, string) { return aggs[i].String(), md.Column(aggs[i].Out).Name })
}

// keyNames renders sort keys as their columns' names, with DESC where
// they descend.
func keyNames(md *Metadata, keys []SortKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = SortKeyText(md.Column(k.Col).Name, k.Desc)
	}
	return out
}

// partitionOrder renders the partition (when there is one) and order
// attributes of a node that numbers or ranks rows.
func partitionOrder(md *Metadata, part ColList, order []SortKey) []Attr {
	var attrs []Attr
	if len(part) > 0 {
		attrs = append(attrs, Attr{"partition", colNames(md, part)})
	}
	return append(attrs, Attr{"order", "[" + strings.Join(keyNames(md, order), ", ") + "]"})
}

// AliasList renders n items as `[text AS name, ...]`, where item(i) gives
// the text and the name of item i; an item named as its text shows its
// text alone. EXPLAIN shows projections and aggregates so in both the
// logical and the physical plan.
func AliasList(n int, item func(i int) (text, name string)) string {
	parts := make([]string, n)
	for i := range parts {
		text, name := item(i)
		if name != text {
			text += " AS " + name
		}
		parts[i] = text
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// SortKeyText renders a sort key on the column named name.
func SortKeyText(name string, desc bool) string {
	if desc {
		return name + " DESC"
	}
	return name
}

// CloseAttrs renders when an aggregate closes its windows: when the
// watermark passes column col plus offset, emitting each window once then
// when emitOnClose.
func CloseAttrs(col string, offset int64, emitOnClose bool) []Attr {
	if offset != 0 {
		col += " + " + IntervalText(offset)
	}
	attrs := []Attr{{"closes", col}}
	if emitOnClose {
		attrs = append(attrs, Attr{"emit", "on-window-close"})
	}
	return attrs
}

// WindowSizes renders the size attributes of a window of kind k.
func WindowSizes(k WindowKind, size, slide int64) []Attr {
	switch k {
	case Hop:
		return []Attr{{"slide", IntervalText(slide)}, {"size", IntervalText(size)}}
	case Cumulate:
		return []Attr{{"step", IntervalText(slide)}, {"size", IntervalText(size)}}
	}
	return []Attr{{"size", IntervalText(size)}}
}

// IntervalText renders a day-time interval as `10 SECOND`.
func IntervalText(ms int64) string {
	return strings.ReplaceAll(strings.TrimPrefix(types.FormatInterval(ms), "INTERVAL "), "'", "")
}
