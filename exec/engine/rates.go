package engine

import (
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/sql"
)

// A continuous query's rates: its job samples its operators' counters
// every policy interval (dataflow's sampler) and keeps the last
// interval's figures, from which EXPLAIN ANALYZE and SHOW QUERIES show
// each operator's true and observed rates and the diagnosis — bottleneck,
// capacity, stragglers, key skew (dataflow.Diagnose) — and, with latency
// markers on, the latency from the sources to the sink. The policy
// interval is the engine's (Config.PolicyInterval) unless the session
// that created the query SET policy_interval; latency markers are off
// unless it SET latency_interval. Both are stored with the query, so a
// restart keeps them.

// DefaultPolicyInterval is the policy interval when the engine's Config
// sets none: long enough that an interval's figures average over many
// batches and checkpoints, short enough for a controller to react within
// a minute (DS2 decides over intervals of this order).
const DefaultPolicyInterval = 10 * time.Second

// minPolicyInterval and minLatencyInterval bound what SET accepts: an
// interval shorter than the first measures the scheduler more than the
// operators, and markers more often than the second cost the sources a
// wake-up for little more information.
const (
	minPolicyInterval  = 10 * time.Millisecond
	minLatencyInterval = time.Millisecond
)

// setRateInterval is SET policy_interval and SET latency_interval.
// latency_interval also takes 'off' (or '0').
func (s *Session) setRateInterval(st *sql.Set) (*Result, error) {
	name := strings.ToLower(st.Name.Name)
	v := strings.ToLower(strings.TrimSpace(st.Value))
	if name == "latency_interval" && v == "off" {
		s.latency = 0
		return ok("SET"), nil
	}
	d, err := connector.ParseDuration(st.Value)
	switch {
	case name == "policy_interval" && (err != nil || d < minPolicyInterval):
		return nil, bindErr(st.ValuePos, st.Source(), "policy_interval must be a duration of at least %v such as '10s', got '%s'",
			minPolicyInterval, st.Value)
	case name == "latency_interval" && (err != nil || d > 0 && d < minLatencyInterval):
		return nil, bindErr(st.ValuePos, st.Source(), "latency_interval must be a duration of at least %v such as '1s', or off, got '%s'",
			minLatencyInterval, st.Value)
	case name == "policy_interval":
		s.policy = &d
	default:
		s.latency = d
	}
	return ok("SET"), nil
}

// rateIntervals returns the policy and latency intervals of obj's query:
// those stored with it, the engine's policy interval where it has none.
func (e *Engine) rateIntervals(obj *catalog.Object) (policy, latency time.Duration) {
	policy = e.cfg.PolicyInterval
	if policy <= 0 {
		policy = DefaultPolicyInterval
	}
	if st := obj.Settings; st != nil {
		if st.PolicyIntervalMs != nil && *st.PolicyIntervalMs > 0 {
			policy = time.Duration(*st.PolicyIntervalMs) * time.Millisecond
		}
		latency = time.Duration(st.LatencyIntervalMs) * time.Millisecond
	}
	return policy, latency
}

// QueryRates are a continuous query's figures over its job's last policy
// interval, and what they tell: the API a controller (a DS2 autoscaling
// policy) reads. Interval.Ops lists every operator in the order of
// dataflow.Job.Stats with, per parallel instance, the rows it took and
// made and its busy, idle and backpressured time in the interval
// (Interval.Ops[k].Instances); dataflow.RatesOf turns one into true
// processing and output rates (rows per busy second) and observed ones.
type QueryRates struct {
	// Interval is the last interval's figures (Seq numbers the intervals,
	// so that a caller polling can tell a new one).
	Interval dataflow.Interval
	// Diagnosis names the bottleneck, its capacity, the stragglers and
	// the skewed instances of the interval.
	Diagnosis dataflow.Diagnosis
	// Policy and Latency are the query's policy and latency intervals
	// (Latency 0: no latency markers).
	Policy, Latency time.Duration
}

// QueryRates returns the rates of the continuous query behind the view,
// sink, derived stream or continuous insert called name, and false when
// it has no job or no interval has ended since its job started.
func (e *Engine) QueryRates(name string) (QueryRates, bool) {
	e.mu.Lock()
	q := e.queries[lower(name)]
	e.mu.Unlock()
	if q == nil || q.job == nil {
		return QueryRates{}, false
	}
	return queryRates(e, q)
}

// queryRates returns q's rates, and false before its first interval ends.
func queryRates(e *Engine, q *runningQuery) (QueryRates, bool) {
	iv, ok := q.job.LastInterval()
	_, latency := e.rateIntervals(q.obj)
	r := QueryRates{Policy: q.job.PolicyInterval(), Latency: latency}
	if !ok {
		return r, false
	}
	r.Interval, r.Diagnosis = iv, dataflow.Diagnose(iv)
	return r, true
}
