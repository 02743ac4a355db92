// Package opcheck holds the checks a single-input operator makes at the
// start of Process, before its typed loops trust a chunk: the same in
// every family that has them.
package opcheck

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// ErrNotOpen is returned by Chunk for an operator that is not open.
var ErrNotOpen = errors.New("Process before Open")

// IDs returns the Arrow type of each of ts, which Chunk compares a
// chunk's columns with.
func IDs(ts []types.T) []arrow.Type {
	ids := make([]arrow.Type, len(ts))
	for i, t := range ts {
		ids[i] = t.Arrow().ID()
	}
	return ids
}

// Chunk checks the start of Process of the operator name, which has one
// input, open when open is set: that it is open and in is 0, and, unless
// c is empty, that c has one op per row (or none) and, when ids is not
// nil, len(ids) columns, column i of Arrow type ids[i] (input are their
// SQL types, for messages). It reports whether c is empty: then there is
// nothing to check or do.
func Chunk(name string, open bool, in int, c exec.Chunk, ids []arrow.Type, input []types.T) (empty bool, err error) {
	switch {
	case !open:
		return false, fmt.Errorf("%s: %w", name, ErrNotOpen)
	case in != 0:
		return false, fmt.Errorf("%s: no input %d", name, in)
	case c.NumRows() == 0:
		return true, nil
	case c.Ops != nil && len(c.Ops) != c.NumRows():
		return false, fmt.Errorf("%s: chunk has %d rows but %d ops", name, c.NumRows(), len(c.Ops))
	case ids == nil:
		return false, nil
	}
	if got := int(c.Batch.NumCols()); got != len(ids) {
		return false, fmt.Errorf("%s: batch has %d columns, want %d", name, got, len(ids))
	}
	for i, want := range ids {
		if got := c.Batch.Column(i).DataType(); got.ID() != want {
			return false, fmt.Errorf("%s: column %d is %s, want %s", name, i, got, input[i])
		}
	}
	return false, nil
}
