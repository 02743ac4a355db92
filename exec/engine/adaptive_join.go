package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/sql"
)

// Adaptive joins: a join the optimizer could broadcast (a table or a
// bounded input on its right) switches between hash partitioning and
// broadcasting while it runs, when the size of its right side crosses over
// (adaptive_switch.go watches it). A switch re-plans the query with the
// join's distribution forced (physical.Options.JoinSwitches, stored with
// the query's settings so that a restart plans it again) and moves the
// query at a checkpoint as a rescale does (moveAtCheckpoint); the join
// restores the other distribution's state (exec/join's Config.Relayout).
// The state layout of an adaptive join does not record its distribution
// (a switch keeps it), so joinMoves checks the moves a layout allows: a
// broadcast join takes another layout's left rows only when its left input
// never retracts.

// adaptiveOff is SET adaptive_join's value that turns switching off.
const adaptiveOff = "off"

// setAdaptiveJoin is SET adaptive_join = 'on' | 'off'.
func (s *Session) setAdaptiveJoin(st *sql.Set) (*Result, error) {
	switch v := strings.ToLower(strings.TrimSpace(st.Value)); v {
	case "on", "true", "1":
		s.adaptiveJoin = ""
		return ok("SET"), nil
	case adaptiveOff, "false", "0":
		s.adaptiveJoin = adaptiveOff
		return ok("SET"), nil
	}
	return nil, bindErr(st.ValuePos, st.Source(), "adaptive_join must be 'on' or 'off', got '%s'", st.Value)
}

// setBroadcastBudget is SET broadcast_budget = '<size>' | 'default'.
func (s *Session) setBroadcastBudget(st *sql.Set) (*Result, error) {
	v := strings.TrimSpace(st.Value)
	if strings.EqualFold(v, "default") {
		s.broadcastBudget = 0
		return ok("SET"), nil
	}
	n, err := parseByteSize(v)
	if err != nil || n <= 0 {
		return nil, bindErr(st.ValuePos, st.Source(), "broadcast_budget must be a size such as '64MB' or 'default', got '%s'", st.Value)
	}
	s.broadcastBudget = n
	return ok("SET"), nil
}

// byteUnits are the units parseByteSize takes, powers of 1024.
var byteUnits = []struct {
	suffix string
	shift  uint
}{{"kib", 10}, {"mib", 20}, {"gib", 30}, {"kb", 10}, {"mb", 20}, {"gb", 30}, {"k", 10}, {"m", 20}, {"g", 30}, {"b", 0}}

// parseByteSize parses a size: an integer, optionally followed by B, KB,
// MB or GB (powers of 1024; KiB, MiB, GiB and K, M, G too).
func parseByteSize(v string) (int64, error) {
	low := strings.ToLower(strings.TrimSpace(v))
	shift := uint(0)
	for _, u := range byteUnits {
		if strings.HasSuffix(low, u.suffix) {
			low, shift = strings.TrimSpace(strings.TrimSuffix(low, u.suffix)), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(low, 10, 64)
	if err != nil {
		return 0, err
	}
	if n < 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("size %s out of range", v)
	}
	return n << shift, nil
}

// physicalSwitches converts the latest stored switch of each join for the
// planner.
func physicalSwitches(cs []catalog.JoinSwitch) []physical.JoinSwitch {
	var out []physical.JoinSwitch
	for i, c := range cs {
		if latestOf(cs, i) {
			out = append(out, physical.JoinSwitch{Join: c.Join, Broadcast: c.Distribution == distBroadcast, Why: c.Why})
		}
	}
	return out
}

// The distributions a join switches between, as stored and shown.
const (
	distHash      = "hash"
	distBroadcast = "broadcast"
)

// distName names a join's distribution.
func distName(j *physical.HashJoin) string {
	if j.Broadcasts() {
		return distBroadcast
	}
	return distHash
}

// switchHistory is how many switches a query keeps (the latest of each
// join is planned; EXPLAIN ANALYZE lists them all).
const switchHistory = 16

// withSwitch returns cs with sw appended, dropping the oldest switches of
// other joins beyond switchHistory (the latest of each join stays).
func withSwitch(cs []catalog.JoinSwitch, sw catalog.JoinSwitch) []catalog.JoinSwitch {
	out := append(append([]catalog.JoinSwitch(nil), cs...), sw)
	for i := 0; len(out) > switchHistory && i < len(out); {
		if latestOf(out, i) {
			i++
			continue
		}
		out = append(out[:i], out[i+1:]...)
	}
	return out
}

// latestOf reports whether cs[i] is the latest switch of its join.
func latestOf(cs []catalog.JoinSwitch, i int) bool {
	for _, c := range cs[i+1:] {
		if c.Join == cs[i].Join {
			return false
		}
	}
	return true
}

// joinName names a join for notices: its sides, as its distribution
// decision does.
func joinName(j *physical.HashJoin) string {
	for _, d := range j.Decisions {
		if name, ok := strings.CutPrefix(d.What, "distribution of the join "); ok {
			return fmt.Sprintf("join %d (%s)", j.Ordinal, name)
		}
	}
	return fmt.Sprintf("join %d", j.Ordinal)
}

// joinMoves says why the state of an adaptive join of the plan was cannot
// move to the plan now (resuming its checkpoint), or returns "". A hash
// join restores any layout; a broadcast join another than its own (hash,
// or broadcast at another parallelism) only over a left input that never
// retracts, as each instance then takes the left rows of its key groups
// while a retraction would reach the instance its upstream forwards to.
func joinMoves(was, now physical.Node) string {
	before := map[int]*physical.HashJoin{}
	for _, j := range physical.AdaptiveJoins(was) {
		before[j.Ordinal] = j
	}
	for _, j := range physical.AdaptiveJoins(now) {
		old := before[j.Ordinal]
		if old == nil || !j.Broadcasts() || j.LeftAppendOnly {
			continue
		}
		if old.Broadcasts() && old.Parallelism == j.Parallelism {
			continue
		}
		from := fmt.Sprintf("hash partitioning at parallelism %d", old.Parallelism)
		if old.Broadcasts() {
			from = fmt.Sprintf("broadcast to %d instances", old.Parallelism)
		}
		return fmt.Sprintf("its %s would move from %s to broadcast to %d instances, and its left input retracts rows: a retraction reaches the instance its upstream forwards it to, not the one a move gives the row",
			joinName(j), from, j.Parallelism)
	}
	return ""
}
