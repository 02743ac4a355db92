// Package kvlog is an in-memory log of key-value writes: each write's key
// and value are copied into large byte chunks and described by a 16-byte
// record, so that buffering millions of writes costs a copy of their bytes
// and no allocation per write, and no byte is copied again as the log
// grows (a new chunk is added instead, where a single growing slice would
// copy everything written so far at each doubling). The state store's
// buffer of a checkpoint's writes and a task's final snapshot keep their
// writes in one.
package kvlog
