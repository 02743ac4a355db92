package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/eddysql/eddy/exec/dataflow"
)

// State layouts. What a query's checkpoint holds, table by table, decides
// whether a plan can resume it: the same query planned at another
// parallelism can (its tables keep their names and their keys), another
// plan cannot (checkpoints.go drops its checkpoint; a rescale is refused).

// layoutVersion starts every state layout: a checkpoint written before
// state tables were named by their operator's place in the plan (by stage
// and chain position instead) has no layout of this version, and is
// dropped.
const layoutVersion = "state layout 2\n"

// stateLayout lists what a checkpoint of the dataflow g holds, one line a
// table, sorted: each operator's table (exec/build names it by the
// operator's place in the plan) with the operator's configuration (its
// EXPLAIN line), and each source's table of positions with the source's
// line and its parallelism, since a position is its split's. The
// parallelism of the other stages is not in it — a checkpoint is keyed by
// key group and serves any — except a broadcast join's, whose replicas
// restore only at the parallelism they were written at, unless the join
// is adaptive (its distribution may switch at run time): it restores any
// layout its left input allows, which joinMoves checks. Two plans of a
// query with the same layout resume each other's checkpoints: the same
// query at another parallelism (a rescale), whose exchanges differ.
func stateLayout(g dataflow.GraphSpec) []string {
	var lines []string
	for si, s := range g.Stages {
		if s.Source != nil {
			lines = append(lines, fmt.Sprintf("%s %s parallelism=%d", s.SourceTable(si), s.SourceName, s.Parallelism))
		}
		broadcast := false
		for _, in := range s.Inputs {
			broadcast = broadcast || in.Dist == dataflow.DistBroadcast
		}
		for i, op := range s.Ops {
			line := s.StateTable(si, i) + " " + op.Name
			if i == 0 && broadcast && !op.AnyDistribution {
				line += fmt.Sprintf(" broadcast parallelism=%d", s.Parallelism)
			}
			lines = append(lines, line)
		}
	}
	slices.Sort(lines)
	return lines
}

// statePlacement describes how g places the state its adaptive joins'
// key groups do not (exec.Env.Relayout): each such join's distribution,
// and a broadcast join's parallelism. A job restoring a checkpoint whose
// plan placed it otherwise tells its operators to move their state.
func statePlacement(g dataflow.GraphSpec) string {
	var lines []string
	for si, s := range g.Stages {
		for i, op := range s.Ops {
			if i != 0 || !op.AnyDistribution {
				continue
			}
			place := "hash"
			for _, in := range s.Inputs {
				if in.Dist == dataflow.DistBroadcast {
					place = fmt.Sprintf("broadcast parallelism=%d", s.Parallelism)
				}
			}
			lines = append(lines, s.StateTable(si, i)+" "+place)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// layoutFingerprint identifies a state layout.
func layoutFingerprint(layout []string) string {
	h := sha256.New()
	h.Write([]byte(layoutVersion))
	for _, l := range layout {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// layoutChange says why a query whose checkpoints have the state layout
// was (stateLayout) cannot resume them with the layout now, or returns
// "" when it can (the layouts are equal).
func layoutChange(was, now []string) string {
	gone, added := missingFrom(was, now), missingFrom(now, was)
	if gone == "" && added == "" {
		return ""
	}
	table := func(line string) string { t, _, _ := strings.Cut(line, " "); return t }
	what := func(line string) string {
		_, rest, _ := strings.Cut(line, " ")
		if i := strings.LastIndex(rest, " parallelism="); i >= 0 {
			rest = rest[:i]
		}
		return strings.TrimSuffix(rest, " broadcast")
	}
	switch {
	case strings.HasPrefix(gone, "source/") && table(gone) == table(added):
		return fmt.Sprintf("its source (%s) is read in parallel splits, one per instance, and a split's position does not carry over to another parallelism", what(gone))
	case strings.Contains(gone, " broadcast parallelism="), strings.Contains(added, " broadcast parallelism="):
		line := gone
		if !strings.Contains(line, " broadcast parallelism=") {
			line = added
		}
		return fmt.Sprintf("its join (%s) broadcasts one side at one parallelism and not at the other, or to another number of replicas, which restore only at the parallelism they were written at", what(line))
	case gone != "" && added != "":
		return fmt.Sprintf("its plan keeps other state there: %s instead of %s", what(added), what(gone))
	case gone != "":
		return fmt.Sprintf("its plan there keeps no state for %s", what(gone))
	}
	return fmt.Sprintf("its plan there keeps state its checkpoints have none of, for %s", what(added))
}

// missingFrom returns the first line of a, sorted, that b, sorted, does
// not have, or "".
func missingFrom(a, b []string) string {
	j := 0
	for _, line := range a {
		for j < len(b) && b[j] < line {
			j++
		}
		if j == len(b) || b[j] != line {
			return line
		}
	}
	return ""
}
