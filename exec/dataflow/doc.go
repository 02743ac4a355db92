// Package dataflow is eddy's runtime: it runs a dataflow of operators
// (GraphSpec: stages of fused operator chains connected by exchanges) as a
// Job, one goroutine (task) per stage instance.
//
// A task reads its source or its inbox, aligns the control messages of
// its senders (watermarks as their minimum, barriers and flush markers
// once every sender has sent them, end of input once all have ended),
// drives its operators' chain — each operator's output goes straight into
// the next, and the runtime measures each one's rows, batches and busy
// time — and writes the chain's output to the next stage's inboxes through
// an exchange (forward, hash by key group, broadcast, single, round
// robin). Inboxes are bounded by messages and bytes, so a slow consumer
// back-pressures its producers down to the sources. Sources get event
// time here (watermarks and late rows, per split), operators processing-
// time timers, and the job's operators a shared state budget.
//
// A job with a state store checkpoints its stateful operators by key group
// (checkpoint.go) and resumes from a checkpoint at any parallelism; it can
// stop at a checkpoint (checkpoint_stop.go) for the job of the same query
// at another parallelism to go on from there (rescale.go).
//
// The package implements the contract of package exec and knows no
// operator: the plan-to-dataflow builder (exec/build) chooses them.
package dataflow
