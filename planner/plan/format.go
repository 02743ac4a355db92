package plan

import (
	"strings"
)

// FormatLine renders one node as `Op v k=v ...`.
func FormatLine(md *Metadata, n Node) string {
	op, attrs := n.Describe(md)
	return FormatAttrs(op, attrs)
}

// FormatAttrs renders an operator and its attributes as FormatLine does
// (the physical plan's lines, too).
func FormatAttrs(op string, attrs []Attr) string {
	var b strings.Builder
	b.WriteString(op)
	for _, a := range attrs {
		b.WriteByte(' ')
		if a.Key != "" {
			b.WriteString(a.Key)
			b.WriteByte('=')
		}
		b.WriteString(a.Value)
	}
	return b.String()
}

// Format renders a plan as an indented tree, one node a line, children
// below their parent with box-drawing connectors. The output is
// deterministic: EXPLAIN LOGICAL, golden tests and traces all use it.
func Format(md *Metadata, n Node) string {
	var b strings.Builder
	formatTree(&b, md, n, "", "")
	return b.String()
}

func formatTree(b *strings.Builder, md *Metadata, n Node, first, rest string) {
	b.WriteString(first)
	b.WriteString(FormatLine(md, n))
	b.WriteByte('\n')
	in := n.Inputs()
	for i, c := range in {
		if i == len(in)-1 {
			formatTree(b, md, c, rest+"└── ", rest+"    ")
		} else {
			formatTree(b, md, c, rest+"├── ", rest+"│   ")
		}
	}
}
