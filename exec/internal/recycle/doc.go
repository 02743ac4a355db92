// Package recycle is an Arrow allocator that hands the buffers released
// by a batch's readers out again, so that the next batch is written into
// memory a batch just left — in the processor's caches — rather than into
// fresh memory, whose first writes are cache misses and, while the heap
// grows, page faults. On this project's machines a page fault costs about
// as much as copying a few kilobytes, and a stream of fresh output
// buffers spent a tenth to a seventh of a query's CPU faulting them in
// (the generator's batches in q7, q9, q16 and q18; a join's output in
// q20).
//
// Each task of a dataflow allocates its source's batches and its
// operators' output from its own Pool; a buffer goes back to the pool that
// allocated it, whichever task releases it.
package recycle
