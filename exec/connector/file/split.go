package file

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"sync/atomic"

	"github.com/eddysql/eddy/exec"
)

// Parallel reading. A bounded file read at parallelism P is cut into P
// splits of about equal bytes: split i's nominal bounds are the bytes
// size*i/P and size*(i+1)/P, and it reads the records that start after
// its lower bound and at or before its upper one (the first split from the
// file's start, the last to its end). So a split starts at the first
// record after its lower bound (after the first line break at or after
// it, in a file whose records are lines) and ends with the record that
// holds its upper bound, which the next split skips: every record is read
// by exactly one split, whatever the line ends, wherever the bounds fall,
// however long the lines. A CSV record may span lines (a line break in a
// quoted field): a split finds its first record by scanning the records
// before it (quickly over lines without quotes), so that it never starts
// inside one. A CSV header is read by every split, which match their
// columns to it, and only the first returns the rows after it.
//
// A split numbers lines from the file's start: while it skips to its
// first record it counts the line breaks before it, so its bad rows and
// positions name true lines.

// split is the part of the file one source instance reads: the records
// that start after byte lo and at or before byte hi.
type split struct {
	instance, parallelism int
	// size is the file size the bounds divide (0 for the whole file).
	size   int64
	lo, hi int64
}

// wholeFile is the split of a file read as one.
var wholeFile = split{parallelism: 1, lo: -1, hi: math.MaxInt64}

// splitOf returns split instance of parallelism of a file of size bytes.
func splitOf(instance, parallelism int, size int64) split {
	if parallelism <= 1 {
		return wholeFile
	}
	sp := split{instance: instance, parallelism: parallelism, size: size, lo: -1, hi: math.MaxInt64}
	if instance > 0 {
		sp.lo = nominal(size, instance, parallelism)
	}
	if instance < parallelism-1 {
		sp.hi = nominal(size, instance+1, parallelism)
	}
	return sp
}

// nominal returns floor(size*i/p) without overflowing.
func nominal(size int64, i, p int) int64 {
	q, r := size/int64(p), size%int64(p)
	return q*int64(i) + r*int64(i)/int64(p)
}

// end returns the byte offset the split's data ends near, for progress:
// its upper bound, or the file's size.
func (sp split) end(size int64) int64 { return min(sp.hi, size) }

// splitShared is what the splits of one scan share through exec.Env's
// Shared: the size they divide, taken when the first of them opened, and
// the count of bad-row warnings they issued together.
type splitShared struct {
	size    int64
	reports atomic.Int64
}

// sharedKey keys a file's splitShared in exec.Shared.
type sharedKey struct{ path string }

// sharedOf returns what the splits reading path in env's stage share,
// created with size if this split is the first: a split that runs alone
// (env.Shared nil) shares with no one.
func sharedOf(env *exec.Env, path string, size int64) *splitShared {
	if env.Shared == nil {
		return &splitShared{size: size}
	}
	return env.Shared.Value(sharedKey{path}, func() any { return &splitShared{size: size} }).(*splitShared)
}

// skipToSplit moves the reader, at the start of the file's records (after
// any header), to the first record after the split's lower bound,
// counting the lines it passes. In a file smaller than that bound it ends
// at the file's end.
func (s *Source) skipToSplit(ctx context.Context) error {
	switch {
	case s.split.lo < 0:
		return nil
	case s.json != nil:
		return s.skipLines(ctx)
	}
	return s.skipRecords(ctx)
}

// skipLines skips, in a file of lines (JSON lines), to just after the
// first line break at or after the lower bound, counting the line breaks
// it passes.
func (s *Source) skipLines(ctx context.Context) error {
	for {
		data := s.rd.data()
		k := max(s.split.lo-s.rd.consumed(), 0)
		if k < int64(len(data)) {
			if nl := bytes.IndexByte(data[k:], '\n'); nl >= 0 {
				n := int(k) + nl + 1
				s.rd.advance(n, bytes.Count(data[:n], nlByte))
				return nil
			}
		}
		s.rd.advance(len(data), bytes.Count(data, nlByte))
		if atEOF, err := s.more(ctx); atEOF || err != nil {
			return err
		}
	}
}

// skipRecords skips CSV records until the next one starts after the
// lower bound, or to the file's end. Lines without a quote are whole
// records: it passes them by their line breaks. A record whose first line
// has a quote may span lines: it scans it as reading would.
func (s *Source) skipRecords(ctx context.Context) error {
	atEOF := false
	for {
		base := s.rd.recordStart()
		if base > s.split.lo {
			return nil
		}
		data := s.rd.data()
		q := bytes.IndexByte(data, '"')
		if q < 0 {
			q = len(data)
		}
		whole := bytes.LastIndexByte(data[:q], '\n') + 1 // data[:whole] is lines without quotes
		// The bound is at data[k] (or before data, in a byte-order mark).
		if k := max(s.split.lo-s.rd.consumed(), 0); k < int64(whole) {
			// The first line break at or after the bound ends one of
			// them (data[whole-1] is a line break at or after it).
			n := int(k) + bytes.IndexByte(data[k:whole], '\n') + 1
			s.rd.advance(n, bytes.Count(data[:n], nlByte))
			return nil
		}
		if whole > 0 {
			s.rd.advance(whole, bytes.Count(data[:whole], nlByte))
			continue
		}
		if n, lines, st, _ := s.csv.scan(data, atEOF); st != scanMore {
			s.rd.advance(n, lines)
			continue
		}
		if atEOF {
			return nil
		}
		var err error
		if atEOF, err = s.more(ctx); err != nil {
			return err
		}
	}
}

// more reads more of the file for skipping, and reports whether the file
// has nothing more.
func (s *Source) more(ctx context.Context) (atEOF bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := s.rd.fill(); err == io.EOF {
		return true, nil
	} else if err != nil {
		return false, fmt.Errorf("file connector: read %s: %w", s.path, err)
	}
	return false, nil
}
