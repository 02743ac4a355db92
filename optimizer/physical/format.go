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
//
// A sub-plan the query shares (ShareSubplans) is printed where it is
// first read, saying how many read it, and elsewhere as one line naming
// it.
func Format(root Node) string {
	var b strings.Builder
	f := &formatter{b: &b, shared: Shared(root), done: map[Node]bool{}}
	f.format(root, "", "")
	return b.String()
}

type formatter struct {
	b      *strings.Builder
	shared map[Node]int
	done   map[Node]bool
}

// SharedLine is the line that stands for a shared sub-plan, rooted at n,
// where it is read again.
func SharedLine(n Node) string {
	return "Shared " + Line(n) + "  (computed once: its output above)"
}

func (f *formatter) format(n Node, first, rest string) {
	b := f.b
	h := n.Hdr()
	b.WriteString(first)
	if f.done[n] {
		b.WriteString(SharedLine(n) + "\n")
		return
	}
	f.done[n] = true
	b.WriteString(Line(n))
	fmt.Fprintf(b, "  (parallelism=%d", h.Parallelism)
	if k := f.shared[n]; k > 0 {
		fmt.Fprintf(b, ", shared by %d inputs", k)
	}
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
			f.format(c, rest+"└── ", rest+"    ")
		} else {
			f.format(c, rest+"├── ", rest+"│   ")
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
