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
// four rules, whether to change anything:
//
//   - Warm-up: the WarmUp intervals after a change of parallelism (the
//     controller's, or anyone's: it notices the parallelism it is shown
//     change) and the first intervals it sees are ignored, since a
//     rescaled query restores state and drains backlog before its figures
//     mean anything.
//   - Dead band: an operator scales up only when it cannot keep up with
//     its target rate (DS2's π exceeds its parallelism), and then to π with
//     UpHeadroom spare capacity but at most one instance more than π; it
//     scales down only when fewer instances would still keep DownHeadroom
//     spare capacity, and then to the fewest that do. With the defaults
//     (15% and 25%) an operator that just scaled sits 15–25% below its
//     capacity, so noise of a few percent changes nothing, while a ±1
//     change that a noisy interval suggests is not taken.
//   - Skew guard: an operator whose busiest instance is Saturated (95%)
//     busy or more never scales down.
//   - Activation: a change must be proposed in Activation consecutive
//     intervals (in the same direction for every operator) before it is
//     applied, except that scale-ups proposed while a source is clearly
//     backpressured — taking less than 1−Lag of its target rate — apply at
//     once, since the true rates are exact precisely then.
//
// Operators sharing a Stage (chained in one task) share one parallelism:
// the highest any of them wants. Sources are rescaled like any operator
// unless Fixed. Every interval's Decision — the estimates it was made
// from, the old and new parallelism of every operator and the reason — is
// kept in a bounded log (Controller.Log) and prints as text for SHOW
// AUTOSCALE.
package autoscale
