// Package guard tracks the operations in flight on a storage handle so that
// Close can refuse new ones, wait for running ones and wake blocked ones.
package guard
