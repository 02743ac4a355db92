// Package giveway lets background work give way to the engine's tasks.
//
// A checkpoint's work off the processing path (an aggregate's snapshot
// writer, the state store's commit and compaction) runs on goroutines
// that Go's scheduler treats like any other: with the cores full, a task
// the scheduler preempted (every 10 ms of running, whatever it is doing)
// waits behind them, in the middle of its batch. Go has no goroutine
// priorities, so such work asks instead: between units of its work it
// checks whether goroutines wait for a processor and, if so, sleeps
// while they do, leaving them its processor. It still takes a share of
// the processor (a quarter of its time at least) so that a checkpoint
// ends however busy the cores are.
package giveway
