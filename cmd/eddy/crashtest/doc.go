// Package crashtest is eddy's crash harness: a test that runs eddy as a
// child process on a workload of every kind of stateful query, kills it
// with SIGKILL at random moments, starts it again on the same data, and
// checks that the views and the file sink's committed output end up
// identical, row for row, to those of a run that never crashed — nothing
// lost, nothing counted twice — and that injected task failures (a panic
// in an operator, EDDY_TEST_TASK_PANIC_RATE) leave them identical too.
//
// The workload (workload.go) mixes a Nexmark source, an INSERT-fed stream
// and a followed CSV file into aggregates, a windowed aggregate with EMIT
// ON WINDOW CLOSE, an interval join, a regular join, Top-N and a file
// sink. Each run goes in rounds: the harness starts a process that
// FLUSHes and kills it after a random delay — during its start (a
// restore), its processing, a checkpoint or its closing — then appends
// lines to the file and INSERTs rows (a process that is never killed, so
// what was inserted is known). The reference run does the same rounds
// without kills. Every process checkpoints every 100 ms and runs its
// queries at parallelism 2 (the sink at 1, so its file has one order);
// its aggregates write their snapshots in the background whenever their
// state allows it, however few groups changed
// (EDDY_TEST_BACKGROUND_SNAPSHOT_SLOTS).
//
// TestKafkaCrashHarness (kafka_test.go) does the same for a Kafka-to-Kafka
// workload on an in-process cluster (kfake): a stream over a topic into
// an append-only and an updating Kafka sink. The killed run's committed
// messages (read_committed) must be the reference run's, each exactly
// once, and its updating sink's latest value per key the same.
//
// `go test ./cmd/eddy/crashtest` kills a few times; `-crash.n=50` kills
// fifty times (docs/benchmarks.md has its result).
package crashtest
