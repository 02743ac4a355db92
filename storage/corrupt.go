package storage

import (
	"fmt"
	"strings"
)

// CorruptionError reports damage found in a data directory: a file that is
// missing, truncated or fails its checksums, or an item read from the
// database that fails its own. Nothing is repaired: the damaged file is left
// as it was found, and the error says what it held so that a person can
// decide what to restore. errors.Is(err, ErrCorrupt) is true for it.
type CorruptionError struct {
	// Path is the damaged file. For an item the database returned (a
	// catalog object, say) it is the data directory, or "" where the
	// directory is not known.
	Path string
	// What says what the file or item holds, for a person: "the
	// catalog", "the log of stream 3", "the database's list of table
	// files".
	What string
	// Err says what is wrong with it.
	Err error
	// Hint says what to do; empty means restoring the data directory
	// from a copy (DefaultCorruptionHint).
	Hint string
}

// DefaultCorruptionHint is the advice of a CorruptionError without a Hint
// of its own.
const DefaultCorruptionHint = "eddy has not modified the damaged data; restore the data directory from a copy"

func (e *CorruptionError) Error() string {
	var b strings.Builder
	b.WriteString("damaged data: ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(", which holds ")
	}
	b.WriteString(e.What)
	fmt.Fprintf(&b, ": %v", e.Err)
	hint := e.Hint
	if hint == "" {
		hint = DefaultCorruptionHint
	}
	b.WriteString(" (")
	b.WriteString(hint)
	b.WriteString(")")
	return b.String()
}

// Unwrap returns the underlying error.
func (e *CorruptionError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrCorrupt) true for a *CorruptionError.
func (e *CorruptionError) Is(target error) bool { return target == ErrCorrupt }
