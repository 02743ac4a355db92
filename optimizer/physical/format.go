package physical

import (
	"fmt"
	"math"
	"strings"

	"github.com/eddysql/eddy/planner/plan"
)

// Line renders one operator without its estimates.
func Line(n Node) string {
	op, attrs := n.Describe()
	return plan.FormatAttrs(op, attrs)
}

// Format renders the plan as EXPLAIN prints it: an indented tree, one
// operator a line, each with its parallelism, estimated output rate and, for
// stateful operators, estimated state — followed by a warning line under
// every operator whose state is unbounded.
func Format(root Node) string {
	var b strings.Builder
	format(&b, root, "", "")
	return b.String()
}

func format(b *strings.Builder, n Node, first, rest string) {
	h := n.Hdr()
	b.WriteString(first)
	b.WriteString(Line(n))
	fmt.Fprintf(b, "  (parallelism=%d", h.Parallelism)
	if _, ok := n.(*Exchange); !ok {
		fmt.Fprintf(b, ", rate≈%s rows/s", Human(h.Est.RowsPerSec))
		if h.Est.Stateful {
			fmt.Fprintf(b, ", state≈%s rows/%sB", Human(h.Est.StateRows), Human(h.Est.StateBytes))
		}
	}
	b.WriteString(")\n")
	in := h.Inputs
	childRest := rest + "    "
	if len(in) > 0 {
		childRest = rest + "│   "
	}
	if h.Est.Stateful && !h.Est.StateBounded {
		growth := h.Est.Growth
		if growth == "" {
			growth = "with every distinct key"
		}
		fmt.Fprintf(b, "%s! unbounded state: grows %s and is never freed\n", childRest, growth)
	}
	for i, c := range in {
		if i == len(in)-1 {
			format(b, c, rest+"└── ", rest+"    ")
		} else {
			format(b, c, rest+"├── ", rest+"│   ")
		}
	}
}

// Human renders a non-negative estimate compactly: 0, 12, 3.4K, 1.2M.
func Human(v float64) string {
	switch {
	case v <= 0 || math.IsNaN(v):
		return "0"
	case v < 1:
		return fmt.Sprintf("%.2g", v)
	case v < 1e3:
		return fmt.Sprintf("%.0f", v)
	case v < 1e6:
		return trimZero(fmt.Sprintf("%.1fK", v/1e3))
	case v < 1e9:
		return trimZero(fmt.Sprintf("%.1fM", v/1e6))
	}
	return trimZero(fmt.Sprintf("%.1fG", v/1e9))
}

func trimZero(s string) string { return strings.Replace(s, ".0", "", 1) }
