package physical

import (
	"fmt"
	"time"

	"github.com/eddysql/eddy/planner/plan"
)

// A query's state TTL (Options.StateTTL, a view's or sink's state_ttl)
// bounds the state of its regular joins and of its aggregates whose
// groups no watermark frees: the keys no row has reached for the TTL, in
// processing time, are evicted (exec/agg, exec/join). Their state is then
// bounded, and EXPLAIN says so instead of warning.

// ttlAggApplies reports whether a hash aggregate's groups are evicted by a
// state TTL: it has group keys, and its windows (if any) are not freed by
// the watermark (exec/build makes an aggregate windowed only when its
// windows close with EMIT ON WINDOW CLOSE or over an append-only input).
func ttlAggApplies(a *HashAgg) bool {
	return len(a.GroupKeys) > 0 && !(a.CloseKey >= 0 && (a.EmitOnClose || a.AppendOnlyInput))
}

// aggTTL gives a hash aggregate the builder's state TTL, if it applies.
func (b *builder) aggTTL(a *HashAgg) {
	if b.opts.StateTTL > 0 && ttlAggApplies(a) {
		a.StateTTL = b.opts.StateTTL
		a.Est.StateBounded = true
	}
}

// joinTTL gives a regular hash join the builder's state TTL.
func (b *builder) joinTTL(j *HashJoin) {
	if b.opts.StateTTL > 0 && !j.Windowed && !j.Lookup {
		j.StateTTL = b.opts.StateTTL
		j.Est.StateBounded = true
	}
}

// ttlAttr is the EXPLAIN attribute of a state TTL over what: "state=bounded:
// groups idle for 1h are evicted".
func ttlAttr(what string, d time.Duration) plan.Attr {
	return plan.Attr{Key: "state", Value: "bounded: " + what + " idle for " + DurationText(d) + " are evicted"}
}

// DurationText renders a duration in its largest whole unit: 1h, 90m, 45s,
// 200ms (and 1h30m as 90m).
func DurationText(d time.Duration) string {
	ms := d.Milliseconds()
	switch {
	case ms == 0:
		return "0"
	case ms%(24*3600_000) == 0:
		return fmt.Sprintf("%dd", ms/(24*3600_000))
	case ms%3600_000 == 0:
		return fmt.Sprintf("%dh", ms/3600_000)
	case ms%60_000 == 0:
		return fmt.Sprintf("%dm", ms/60_000)
	case ms%1000 == 0:
		return fmt.Sprintf("%ds", ms/1000)
	}
	return fmt.Sprintf("%dms", ms)
}
