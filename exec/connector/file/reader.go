package file

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// readBufferSize is the reader's initial buffer: large reads amortize system
// calls, and records rarely approach it (the buffer grows for one that does).
const readBufferSize = 256 << 10

// maxRecordBytes bounds one record (a CSV record or a JSON line). A file
// without line breaks would otherwise make the reader buffer all of it.
const maxRecordBytes = 64 << 20

// utf8BOM is the byte-order mark some tools put at the start of a text file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// errRecordTooLong is returned by fill when a record exceeds maxRecordBytes.
var errRecordTooLong = errors.New("record longer than 64 MiB")

// reader buffers a file for the record scanners, which parse in place from
// data() and then advance past what they consumed. It tracks the physical
// line number of the first unconsumed byte and how far into the file it has
// read, which tells a followed file's growth.
type reader struct {
	f          *os.File
	buf        []byte
	pos, end   int   // unconsumed data is buf[pos:end]
	offset     int64 // bytes read from the file so far
	line       int   // 1-based line number of buf[pos]
	bomChecked bool
	bomEnd     int64 // the offset after a byte-order mark dropped at the file's start, or 0
	readLimit  int   // tests: the most bytes one read returns (0: no limit)
}

// reset starts reading f from its beginning (f is positioned at 0).
func (r *reader) reset(f *os.File) {
	r.f = f
	if r.buf == nil {
		r.buf = make([]byte, readBufferSize)
	}
	r.pos, r.end, r.offset, r.line, r.bomChecked, r.bomEnd = 0, 0, 0, 1, false, 0
}

// consumed returns the file offset of the first unconsumed byte: how far
// the records scanned so far reach, whatever was read ahead.
func (r *reader) consumed() int64 { return r.offset - int64(r.end-r.pos) }

// recordStart returns where the next record starts, for the bounds of
// splits: consumed, except that the first record starts at 0 even when a
// byte-order mark before it was dropped.
func (r *reader) recordStart() int64 {
	if c := r.consumed(); c != r.bomEnd {
		return c
	}
	return 0
}

// seek starts reading r's file at offset, which is on line line. At
// offset 0 a byte-order mark is dropped again.
func (r *reader) seek(offset int64, line int) error {
	if _, err := r.f.Seek(offset, io.SeekStart); err != nil {
		return err
	}
	r.pos, r.end, r.offset, r.line, r.bomChecked, r.bomEnd = 0, 0, offset, line, offset > 0, 0
	return nil
}

// data returns the bytes read but not yet consumed.
func (r *reader) data() []byte { return r.buf[r.pos:r.end] }

// advance consumes n bytes containing lines line breaks.
func (r *reader) advance(n, lines int) {
	r.pos += n
	r.line += lines
}

// fill reads more of the file after the unconsumed data, moving that data to
// the front of the buffer (or growing the buffer when it is all unconsumed).
// It returns io.EOF when the file has nothing more for now.
func (r *reader) fill() error {
	if r.pos > 0 {
		r.end = copy(r.buf, r.buf[r.pos:r.end])
		r.pos = 0
	}
	if r.end == len(r.buf) {
		if len(r.buf) >= maxRecordBytes {
			return fmt.Errorf("line %d: %w", r.line, errRecordTooLong)
		}
		grown := make([]byte, 2*len(r.buf))
		copy(grown, r.buf[:r.end])
		r.buf = grown
	}
	into := r.buf[r.end:]
	if r.readLimit > 0 && len(into) > r.readLimit {
		into = into[:r.readLimit]
	}
	n, err := r.f.Read(into)
	r.end += n
	r.offset += int64(n)
	if !r.bomChecked {
		r.checkBOM(err != nil)
	}
	if n > 0 {
		return nil // a read error, if any, recurs on the next call
	}
	if err == nil {
		return nil // no progress but no error: the caller retries
	}
	return err
}

// checkBOM drops a byte-order mark at the start of the file once enough of
// the file is read to tell.
func (r *reader) checkBOM(atEnd bool) {
	d := r.data()
	if len(d) >= len(utf8BOM) || atEnd || !bytes.HasPrefix(utf8BOM, d) {
		if bytes.HasPrefix(d, utf8BOM) {
			r.pos += len(utf8BOM)
			r.bomEnd = int64(len(utf8BOM))
		}
		r.bomChecked = true
	}
}
