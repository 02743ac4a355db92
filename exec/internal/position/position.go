// Package position encodes the positions of eddy's sources
// (exec.Positioned). A position is the source's kind (a short tag such as
// "nexmark"), a format version, the source's fields as unsigned varints
// and length-prefixed strings, and a CRC-32 of all that, so that a
// position that was truncated, flipped or made by another kind of source
// is refused with an *Error instead of being misread.
package position

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// version is the format version every position carries.
const version = 1

// Error reports a position a source refuses to seek to: Source names the
// source (its kind, and the file or stream where there is one), Msg says
// why.
type Error struct {
	Source string
	Msg    string
}

// Error returns "source: cannot seek to the position: msg".
func (e *Error) Error() string {
	return fmt.Sprintf("%s: cannot seek to the position: %s", e.Source, e.Msg)
}

// Errorf returns an *Error of source with a formatted message.
func Errorf(source, format string, args ...any) *Error {
	return &Error{Source: source, Msg: fmt.Sprintf(format, args...)}
}

// Writer builds a position.
type Writer struct{ b []byte }

// NewWriter starts a position of the source kind tag.
func NewWriter(tag string) *Writer {
	w := &Writer{b: make([]byte, 0, 32+len(tag))}
	w.String(tag)
	w.b = append(w.b, version)
	return w
}

// Uint appends an unsigned integer.
func (w *Writer) Uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }

// String appends a string.
func (w *Writer) String(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

// Bytes returns the position, its checksum appended.
func (w *Writer) Bytes() []byte {
	return binary.BigEndian.AppendUint32(w.b, crc32.ChecksumIEEE(w.b))
}

// Reader reads a position's fields in the order they were written. Its
// first error sticks: later reads return zero values, and Done returns it.
type Reader struct {
	source string
	b      []byte
	err    error
}

// NewReader checks pos's checksum, kind tag and version, and returns a
// reader of its fields. source names the seeking source in errors.
func NewReader(pos []byte, tag, source string) *Reader {
	r := &Reader{source: source}
	if len(pos) < 4 {
		r.err = Errorf(source, "%d bytes is too short to be a position", len(pos))
		return r
	}
	body, sum := pos[:len(pos)-4], binary.BigEndian.Uint32(pos[len(pos)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		r.err = Errorf(source, "the position is damaged or truncated (checksum mismatch)")
		return r
	}
	r.b = body
	if got := r.String(); r.err == nil && got != tag {
		r.err = Errorf(source, "the position is a %s source's, not a %s source's", quoteTag(got), tag)
		return r
	}
	if len(r.b) == 0 {
		r.fail()
		return r
	}
	if v := r.b[0]; v != version {
		r.err = Errorf(source, "position format version %d is not supported (want %d)", v, version)
	}
	r.b = r.b[1:]
	return r
}

// quoteTag renders a tag read from a foreign position.
func quoteTag(s string) string {
	if s == "" {
		return "unknown"
	}
	return fmt.Sprintf("%q", s)
}

// Uint reads an unsigned integer.
func (r *Reader) Uint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// String reads a string.
func (r *Reader) String() string {
	n := r.Uint()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// fail records a position that ends before its fields do.
func (r *Reader) fail() {
	if r.err == nil {
		r.err = Errorf(r.source, "the position is malformed (it ends before its fields)")
	}
}

// More reports whether fields remain to be read (and no error occurred):
// a source that added fields at the end of its positions reads them only
// when they are there, so that its older positions stay readable.
func (r *Reader) More() bool { return r.err == nil && len(r.b) > 0 }

// Done returns the first error, or an *Error if bytes are left over.
func (r *Reader) Done() error {
	if r.err == nil && len(r.b) > 0 {
		r.err = Errorf(r.source, "the position is malformed (%d bytes after its fields)", len(r.b))
	}
	return r.err
}
