package file

import (
	"context"
	"errors"
	"fmt"

	"github.com/eddysql/eddy/exec/internal/position"
)

// positionTag is the kind tag of a file source's positions.
const positionTag = "file"

// location is a place in the file: a byte offset and the 1-based line it
// is on.
type location struct {
	offset int64
	line   int
}

// Position implements exec.Positioned. A file position is the byte offset
// and line number just after the last record the returned rows came from
// (bad rows skipped included; read-ahead not), whether the CSV header was
// read, how many bad rows were reported (so that a resumed source warns no
// more than an uninterrupted one), and what identifies the file and its
// reading: the path option, the format, header and delimiter. With
// on_error = 'fail', a source that met a bad row is positioned before it.
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
// CSV header; a file that shrank below it, a position of another file or
// of other options is refused with a *position.Error naming the file.
func (s *Source) Seek(ctx context.Context, pos []byte) error {
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
	if err := r.Done(); err != nil {
		return err
	}
	switch {
	case path != s.cfg.Path:
		return position.Errorf(src, "the position is of file %s", quote(path))
	case ident != s.identity():
		return position.Errorf(src, "the position is of a source with %s, not %s", ident, s.identity())
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
	if size := info.Size(); at.offset > size {
		return position.Errorf(src, "the file has %d bytes, fewer than the position's %d: it was truncated or replaced", size, at.offset)
	}
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
	case at.offset < here.offset:
		return position.Errorf(src, "byte %d is within the CSV header, which ends at byte %d", at.offset, here.offset)
	default:
		if err := s.atLineStart(src, at.offset, info.Size()); err != nil {
			return err
		}
		if err := s.rd.seek(at.offset, at.line); err != nil {
			return fmt.Errorf("file connector: seek in %s: %w", s.path, err)
		}
	}
	s.reported = reported
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
