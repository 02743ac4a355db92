// Package mem is an in-memory storage.DB for tests. It behaves like
// storage/badger, including its concurrency semantics and its validation of
// log entries (they are stored encoded), because both share the same cores
// (storage/internal/logcore and statecore) and differ only in where bytes
// live. Reopen simulates a process restart: the new DB sees what the old
// one had made durable — KV writes, log entries and committed state — and
// nothing else.
package mem
