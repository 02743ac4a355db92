// Package autoscale decides how many parallel instances each operator of a
// continuous query needs, with the DS2 policy (Kalavri et al., "Three
// steps is all you need: fast, accurate, automatic scaling decisions for
// distributed streaming dataflows", OSDI 2018), and wraps the policy in a
// controller that makes it safe to run every interval.
//
// The package knows nothing of the runtime. Each policy interval the
// caller describes the dataflow as an Interval: its operators in any
// order, each with its upstream edges and, per parallel instance, the rows
// it processed and produced and its useful (busy) time in the interval,
// and each source's target rate. The engine builds it from the deltas of
// dataflow.Job.InstanceStats between two intervals, and applies a
// Decision that changes parallelism through the live rescaling of a view.
//
// # The policy
//
// Policy estimates, per operator, its true processing rate λp (rows
// processed per second of busy time) and true output rate λo (rows
// produced per second of busy time): what one instance would do if it
// never waited for input or for a blocked output. Busy time excludes
// waiting, so the true rates are right even when the dataflow is
// backpressured and its observed rates are capped by a bottleneck — the
// property that lets DS2 leave a badly under-provisioned configuration in
// one step. Then, in topological order from the sources, it propagates
// target rates: a source's target input rate is its stated rate (or its
// observed one), an operator's target output rate is its target input
// rate times its selectivity λo/λp, and an operator's target input rate
// is the sum of its upstream operators' target output rates. Its optimal
// parallelism is π = ⌈target input rate / capacity of one instance⌉,
// bounded by [1, Max].
//
// Skew. An operator is as fast as its busiest instance: the capacity of
// one instance is taken from the instance that would saturate first (with
// hash partitioning, the one with the highest busy fraction), not from the
// mean, so an operator whose keys are skewed, or one of whose instances is
// slower, asks for more instances, never fewer. The imbalance it observes
// is assumed to persist at the new parallelism. Rows arriving over a
// broadcast edge reach every instance, and only the other rows divide.
//
// # The controller
//
// Controller.Observe runs the policy on each interval and decides, under
// these rules, whether to change anything:
//
//   - Warm-up: the WarmUp intervals after a change of parallelism (the
//     controller's, or anyone's: it notices the parallelism it is shown
//     change) and the first intervals it sees are ignored, since a
//     rescaled query restores state and drains backlog before its figures
//     mean anything.
//   - Dead band: an operator scales up only when it cannot keep up with
//     its target rate (DS2's π exceeds its parallelism), and down only
//     when fewer instances would still keep DownHeadroom spare capacity;
//     either way it goes to π with UpHeadroom spare, but at most one
//     instance more than π. When a change is made anyway, an operator
//     that keeps up with less than UpHeadroom spare takes it too (the
//     query restarts once either way). With the defaults (15% and 40%) an
//     operator that has just scaled runs at most 87% busy, scales up again
//     only past 100% and down only if one instance fewer would run at
//     most 71% busy: a ±1 change that a noisy interval suggests is not
//     taken.
//   - Check: the first interval after the warm-up checks the change. An
//     operator it changed that is left with less than half its
//     UpHeadroom spare — its new instances slower than those measured,
//     or the measure behind the change off — scales up at once, as does
//     any operator that cannot keep up.
//   - Skew guard: an operator whose busiest instance is Saturated (95%)
//     busy or more never scales down. A skewed one (its busiest instance
//     Skew, 1.5, times as busy as the mean) scales down only as far as a
//     bound allows: instances own contiguous ranges of eddy's 256 key
//     groups, so an instance of fewer takes at most the rows of the few
//     instances now whose ranges its own overlaps, and must keep
//     UpHeadroom spare with them — its hot keys may gather on one
//     instance, which DS2's assumption that the imbalance persists
//     misses.
//   - Activation: a change must be proposed in Activation consecutive
//     intervals (in the same direction for every operator) before it is
//     applied, except that scale-ups proposed while a source is clearly
//     backpressured — taking less than 1−Lag of its target rate — apply at
//     once, since the true rates are exact precisely then, and so do
//     those of a check. A scale-up that applies at once leaves the
//     scale-downs proposed with it to later intervals.
//
// Operators sharing a Stage (chained in one task) share one parallelism:
// the highest any of them wants. Sources are rescaled like any operator
// unless Fixed. Every interval's Decision — the estimates it was made
// from, the old and new parallelism of every operator and the reason — is
// kept in a bounded log (Controller.Log) and prints as text for SHOW
// AUTOSCALE.
package autoscale
