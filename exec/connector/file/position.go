package file

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/eddysql/eddy/exec/internal/position"
)

// positionTag is the kind tag of a file source's positions.
const positionTag = "file"

// maxSplits bounds the parallelism a position may name: the engine's
// parallelism is at most 256, and a position naming more is damaged.
const maxSplits = 1 << 16

// location is a place in the file: a byte offset and the 1-based line it
// is on.
type location struct {
	offset int64
	line   int
}

// Position implements exec.Positioned. A file position is the byte offset
// and line number just after the last record the returned rows came from
// (bad rows skipped included; read-ahead not), whether the CSV header was
// read, how many bad rows this source reported (so that a resumed scan
// warns no more than an uninterrupted one), what identifies the file and
// its reading (the path option, the format, header and delimiter), and
// the split: its instance, the parallelism and the file size the splits
// divided (0 for a file read as one). With on_error = 'fail', a source
// that met a bad row is positioned before it.
func (s *Source) Position() ([]byte, error) {
	if s.file == nil {
		return nil, errNotOpen
	}
	at := location{offset: s.rd.consumed(), line: s.rd.line}
	if s.failAt != nil {
		at = *s.failAt
	}
	w := position.NewWriter(positionTag)
	w.String(s.cfg.Path)
	w.String(s.identity())
	w.Uint(uint64(at.offset))
	w.Uint(uint64(at.line))
	w.Uint(boolUint(!s.needHeader))
	w.Uint(uint64(s.reported))
	w.Uint(uint64(s.split.instance))
	w.Uint(uint64(s.split.parallelism))
	w.Uint(uint64(s.split.size))
	return w.Bytes(), nil
}

// identity describes the options that decide how the file reads.
func (s *Source) identity() string {
	return fmt.Sprintf("format=%s header=%t delimiter=%q", s.cfg.Format, s.cfg.Header, s.cfg.Delimiter)
}

func boolUint(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Seek implements exec.Positioned: the source reads on from the
// position's offset, numbering lines from its line. The file is not
// checked by size or time (a followed file grows), but the offset must be
// within it, at the start of a line (or its very end), and not within the
// CSV header or before the split's first record; a file that shrank below
// it, a position of another file, of other options or of another split
// (another instance or parallelism) is refused with a *position.Error
// naming the file. A position written before files were read in splits
// is of the file read as one: split 0 of 1. A split keeps the bounds its
// position was read with: when the file grew since, its splits divide the
// size they divided before, and the last one reads what was appended.
func (s *Source) Seek(ctx context.Context, pos []byte) (err error) {
	switch {
	case s.file == nil:
		return errNotOpen
	case s.started:
		return errors.New("file connector: Seek after Next")
	}
	src := "file source " + s.cfg.Path
	r := position.NewReader(pos, positionTag, src)
	path, ident := r.String(), r.String()
	at := location{offset: int64(r.Uint()), line: int(r.Uint())}
	headerRead, reported := r.Uint() == 1, int(r.Uint())
	sp := wholeFile
	if r.More() { // a position written before files were read in splits has none
		inst, par, size := r.Uint(), r.Uint(), r.Uint()
		if inst >= par || par > maxSplits || size > math.MaxInt64 {
			return position.Errorf(src, "the position's split (%d of %d of %d bytes) is malformed", inst, par, size)
		}
		sp = splitOf(int(inst), int(par), int64(size))
	}
	if err := r.Done(); err != nil {
		return err
	}
	switch {
	case path != s.cfg.Path:
		return position.Errorf(src, "the position is of file %s", quote(path))
	case ident != s.identity():
		return position.Errorf(src, "the position is of a source with %s, not %s", ident, s.identity())
	case sp.instance != s.split.instance || sp.parallelism != s.split.parallelism:
		return position.Errorf(src, "the position is of %s, not of %s", sp, s.split)
	case at.offset < 0 || at.line < 1 || int64(at.line) > at.offset+1:
		return position.Errorf(src, "line %d cannot start at byte %d", at.line, at.offset)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := s.file.Stat()
	if err != nil {
		return fmt.Errorf("file connector: %w", err)
	}
	switch size := info.Size(); {
	case at.offset > size:
		return position.Errorf(src, "the file has %d bytes, fewer than the position's %d: it was truncated or replaced", size, at.offset)
	case sp.size > size:
		return position.Errorf(src, "the file has %d bytes, fewer than the %d its splits divided: it was truncated or replaced", size, sp.size)
	}
	if sp != s.split {
		// The file grew since the position's splits divided it: this
		// split keeps its bounds, which the others keep too.
		prev, back := s.split, location{offset: s.rd.consumed(), line: s.rd.line}
		defer func() {
			if err != nil { // where Open left it, as if Seek was not called
				s.split = prev
				if err2 := s.rd.seek(back.offset, back.line); err2 != nil {
					err = errors.Join(err, fmt.Errorf("file connector: seek in %s: %w", s.path, err2))
				}
			}
		}()
		if err := s.resplit(ctx, sp); err != nil {
			return err
		}
	}
	if err := s.seekIn(src, at, headerRead, info.Size()); err != nil {
		return err
	}
	// A split's records are those starting at or before its upper bound.
	s.exhausted = at.offset >= info.Size() || at.offset > s.split.hi
	s.shared.reports.Add(int64(reported - s.reported))
	s.reported = reported
	return nil
}

// Exhausted implements exec.Exhausted: Seek found nothing left of the
// split after its position (for a followed file, nothing yet).
func (s *Source) Exhausted() bool { return s.exhausted }

// resplit moves the source, open at split sp's instance of the same
// parallelism, to the first record of sp.
func (s *Source) resplit(ctx context.Context, sp split) error {
	s.split = sp
	if err := s.rd.seek(s.body.offset, s.body.line); err != nil {
		return fmt.Errorf("file connector: seek in %s: %w", s.path, err)
	}
	return s.skipToSplit(ctx)
}

// seekIn moves the reader, which is where Open left it (at the split's
// first record), to at in a file of size bytes, checking that at can be
// where a source of this split stopped. headerRead says the CSV header
// was read before at.
func (s *Source) seekIn(src string, at location, headerRead bool, size int64) error {
	here := location{offset: s.rd.consumed(), line: s.rd.line}
	switch {
	case !headerRead && s.cfg.Format == FormatCSV && s.cfg.Header:
		// Nothing was read yet, not even the header: whether Open read it
		// since or not, the source is where that one was.
		if at.line != 1 || at.offset > int64(len(utf8BOM)) {
			return position.Errorf(src, "the position at line %d is past a header it did not read", at.line)
		}
	case at == here:
	case s.needHeader:
		return position.Errorf(src, "the file has no complete CSV header before byte %d", at.offset)
	case at.offset < here.offset && s.split.lo < 0:
		return position.Errorf(src, "byte %d is within the CSV header, which ends at byte %d", at.offset, here.offset)
	case at.offset < here.offset:
		return position.Errorf(src, "byte %d is before byte %d, where %s starts", at.offset, here.offset, s.split)
	default:
		if err := s.atLineStart(src, at.offset, size); err != nil {
			return err
		}
		if err := s.rd.seek(at.offset, at.line); err != nil {
			return fmt.Errorf("file connector: seek in %s: %w", s.path, err)
		}
	}
	return nil
}

// atLineStart checks that offset is at the start of a line of the file or
// at its end.
func (s *Source) atLineStart(src string, offset, size int64) error {
	if offset == 0 || offset == size {
		return nil
	}
	var b [1]byte
	if _, err := s.file.ReadAt(b[:], offset-1); err != nil {
		return fmt.Errorf("file connector: read %s: %w", s.path, err)
	}
	if b[0] != '\n' {
		return position.Errorf(src, "byte %d is not at the start of a line: the file was changed or replaced", offset)
	}
	return nil
}

// String names the split in messages: "split 2 of 4", or "the file read
// as one".
func (sp split) String() string {
	if sp.parallelism <= 1 {
		return "the file read as one"
	}
	return fmt.Sprintf("split %d of %d", sp.instance, sp.parallelism)
}
