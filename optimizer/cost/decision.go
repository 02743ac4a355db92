package cost

import (
	"fmt"
	"strings"
)

// Decision is one cost-based choice, for EXPLAIN VERBOSE: what was
// decided, the alternatives considered with their costs, and which won.
type Decision struct {
	What string
	// Search says how the alternatives were found when they are not all
	// the possibilities (a join order's exhaustive or greedy search).
	Search       string
	Alternatives []Alternative
	Chosen       int
	Why          string
}

// Alternative is one candidate of a Decision.
type Alternative struct {
	Desc string
	Cost float64
}

// FormatDecisions renders decisions as EXPLAIN VERBOSE prints them: each
// with its alternatives and costs, the chosen one marked, and why.
func FormatDecisions(ds []Decision) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s:\n", d.What)
		if d.Search != "" {
			fmt.Fprintf(&b, "  search: %s\n", d.Search)
		}
		for i, a := range d.Alternatives {
			mark := " "
			if i == d.Chosen {
				mark = "*"
			}
			fmt.Fprintf(&b, "  %s %s  (cost %s)\n", mark, a.Desc, humanCost(a.Cost))
		}
		fmt.Fprintf(&b, "  why: %s\n", d.Why)
	}
	return b.String()
}

func humanCost(c float64) string {
	switch {
	case c >= 1e12:
		return fmt.Sprintf("%.3g", c)
	case c >= 1e9:
		return fmt.Sprintf("%.1fG", c/1e9)
	case c >= 1e6:
		return fmt.Sprintf("%.1fM", c/1e6)
	case c >= 1e3:
		return fmt.Sprintf("%.1fK", c/1e3)
	}
	return fmt.Sprintf("%.0f", c)
}
