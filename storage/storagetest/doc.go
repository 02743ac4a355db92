// Package storagetest is the test suite every storage.DB implementation
// passes (Run), with helpers that build Arrow batches for tests and the
// shared log benchmark (BenchLogAppendRead).
package storagetest
