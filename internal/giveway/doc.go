// Package giveway lets background work give way to the engine's tasks.
//
// A checkpoint's work off the processing path (an aggregate's snapshot
// writer, the state store's commit and compaction) runs on goroutines
// that Go's scheduler treats like any other: with the cores full, a task
// the scheduler preempted (every 10 ms of running, whatever it is doing)
// waits behind them, in the middle of its batch. Go has no goroutine
// priorities, so such work asks instead: between units of its work a
// Pacer checks whether a task cannot keep up with its input (a Demand
// that has not run out of input for 20 ms) and, if one cannot, sleeps
// while goroutines wait for a processor, leaving them its own. It still
// takes a share of the processor (a quarter of its time at least) so
// that a checkpoint ends however busy the cores are. While every task
// keeps up, background work runs on the room the tasks leave.
package giveway
