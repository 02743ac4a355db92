package file

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog"
)

// Decoder parses records one at a time — a JSON object, or one CSV record
// whose fields are the columns in order — into typed Arrow columns, by the
// rules the file source reads its lines with (NULLs, timestamps, ranges,
// UTF-8). It is for sources whose input comes in messages rather than
// lines: the Kafka source decodes each message's value with one. It is
// used from one goroutine.
type Decoder struct {
	cols    []column
	cells   []cell
	json    *jsonParser
	csv     csvScanner
	fieldOf []int
	bat     *batch
}

// DecodeError says why a record could not be decoded: the column at fault
// ("" for a fault of the whole record, such as malformed JSON or a wrong
// field count) and what was wrong.
type DecodeError struct {
	Column string
	Msg    string
}

// Error returns "column name: msg", or msg for a record fault.
func (e *DecodeError) Error() string {
	if e.Column == "" {
		return e.Msg
	}
	return "column " + e.Column + ": " + e.Msg
}

// NewDecoder returns a decoder of records of format (FormatCSV or
// FormatJSON; delim separates CSV fields, 0 meaning ',') into cols,
// whose batches hold at most size rows allocated from alloc.
func NewDecoder(format string, delim byte, cols []catalog.Column, alloc memory.Allocator, size int) (*Decoder, error) {
	if format != FormatCSV && format != FormatJSON {
		return nil, fmt.Errorf("file decoder: invalid format %q", format)
	}
	if size <= 0 {
		size = DefaultBatchSize
	}
	if delim == 0 {
		delim = ','
	}
	d := &Decoder{cells: make([]cell, len(cols)), fieldOf: make([]int, len(cols))}
	for j, c := range cols {
		col, err := newColumn(c)
		if err != nil {
			return nil, err
		}
		d.cols = append(d.cols, col)
		d.fieldOf[j] = j
	}
	d.csv.delim = delim
	if format == FormatJSON {
		d.json = newJSONParser(d.cols)
	}
	d.bat = newBatch(alloc, d.cols, size)
	return d, nil
}

// CheckColumn reports whether a column of c's type can be decoded, with an
// error naming the column when it cannot.
func CheckColumn(c catalog.Column) error {
	_, err := newColumn(c)
	return err
}

// Decode parses rec and appends it as a row, or returns why it cannot,
// appending nothing. The good path allocates nothing.
func (d *Decoder) Decode(rec []byte) *DecodeError {
	if err := d.Parse(rec); err != nil {
		return err
	}
	d.Append()
	return nil
}

// Parse parses rec as the next row without appending it (Append does),
// or returns why it cannot. The parsed row may point into rec, which must
// stay unchanged until Append; the next Parse replaces it.
func (d *Decoder) Parse(rec []byte) *DecodeError {
	var f fault
	if d.json != nil {
		f = d.json.parse(rec, d.cells)
	} else {
		f = d.parseCSV(rec)
	}
	if f.code != faultNone {
		if f.code == faultRecord {
			return &DecodeError{Msg: f.msg}
		}
		return &DecodeError{Column: d.cols[f.col].name, Msg: f.message(&d.cols[f.col])}
	}
	return nil
}

// Text returns the text of column j, a VARCHAR, in the row Parse parsed
// last (a nested JSON value's own text), or false when it is NULL. It is
// valid as long as that row is.
func (d *Decoder) Text(j int) ([]byte, bool) {
	if d.cells[j].null || d.cols[j].kind != kindString {
		return nil, false
	}
	return d.cells[j].s, true
}

// Append appends the row Parse parsed last.
func (d *Decoder) Append() { d.bat.appendRow(d.cells) }

// AppendNulls appends a row whose every value is NULL, NOT NULL columns
// included: the row of a deletion, of which only a key is known.
func (d *Decoder) AppendNulls() {
	for j := range d.cells {
		d.cells[j].null = true
	}
	d.bat.appendRow(d.cells)
}

// parseCSV parses rec as one CSV record; a line break may end it.
func (d *Decoder) parseCSV(rec []byte) fault {
	n, _, st, msg := d.csv.scan(rec, true)
	switch {
	case st == scanBad:
		return fault{code: faultRecord, msg: msg}
	case st != scanRecord && len(d.cols) > 0:
		return fault{code: faultRecord, msg: "empty CSV record"}
	case !isBlank(rec[n:]) && !(len(rec[n:]) == 1 && rec[n] == '\n'):
		return fault{code: faultRecord, msg: "more than one CSV record in one message"}
	}
	return parseFields(d.cols, d.csv.fields, d.fieldOf, len(d.cols), d.cells)
}

// Rows returns the rows appended since the last Finish.
func (d *Decoder) Rows() int { return d.bat.rows }

// Full reports whether the batch holds its most rows.
func (d *Decoder) Full() bool { return d.bat.full() }

// Finish returns the columns of the rows appended since the last Finish
// (nil when there are none), which the caller releases, and starts a new
// batch.
func (d *Decoder) Finish() []arrow.Array {
	rec := d.bat.finish()
	if rec == nil {
		return nil
	}
	arrs := make([]arrow.Array, rec.NumCols())
	for j := range arrs {
		arrs[j] = rec.Column(j)
		arrs[j].Retain()
	}
	rec.Release()
	return arrs
}

// Release frees the builders. It is idempotent.
func (d *Decoder) Release() {
	if d.bat != nil {
		d.bat.release()
		d.bat = nil
	}
}
