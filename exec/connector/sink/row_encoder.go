package sink

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// RowEncoder encodes a chunk's rows one at a time, by the rules file and
// print sinks write their lines with: a JSON object, a CSV record, or the
// values as text (FormatText, where a string is written as it is). It is
// for sinks that write a message per row rather than lines: the Kafka
// sink encodes each message's value and key with one. A RowEncoder is
// used from one goroutine, and costs no allocation per chunk once its
// buffers have grown.
type RowEncoder struct {
	e *encoder
}

// NewRowEncoder returns an encoder of rows of the given column names and
// types in format (FormatJSON, FormatCSV or FormatText), without ops.
func NewRowEncoder(format string, names []string, ts []types.T) *RowEncoder {
	return &RowEncoder{e: newEncoder(format, false, names, ts)}
}

// Encode encodes every column of c; Row and Value then return its rows'
// text, valid until the next Encode.
func (r *RowEncoder) Encode(c exec.Chunk) error { return r.e.encodeColumns(c) }

// Row appends the text of row i of the chunk last encoded to dst, without
// the line break a file would hold, and returns it.
func (r *RowEncoder) Row(dst []byte, i int) []byte {
	dst = r.e.appendRow(dst, exec.Insert, i)
	return dst[:len(dst)-1]
}

// Value returns the text of column j of row i of the chunk last encoded.
func (r *RowEncoder) Value(j, i int) []byte { return r.e.value(j, i) }
