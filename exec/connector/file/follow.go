package file

import (
	"context"
	"fmt"
	"os"
	"time"
)

// pollInterval is how often Wait looks at a followed file: short enough that
// appended rows show up promptly, long enough that an idle stream costs one
// stat call per tick (eddy has no file-notification dependency).
const pollInterval = 50 * time.Millisecond

// Wait blocks until a followed file has grown past what was read, or was
// truncated or replaced (it is then read again from its beginning, with a
// warning), or ctx is done. For a bounded file it returns at once.
func (s *Source) Wait(ctx context.Context) error {
	if !s.cfg.Follow || s.file == nil || s.err != nil {
		return ctx.Err()
	}
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		if s.poll() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// poll reports whether the file has something new to read. The path is
// resolved again each time, so that a link moved to a new file (log
// rotation) is noticed, and a link moved out of the root fails the source.
func (s *Source) poll() bool {
	path, err := s.cfg.Resolve()
	if err != nil {
		s.err = err
		return true // Next returns the error
	}
	info, err := os.Stat(path)
	if err != nil {
		return false // gone for now (a log being rotated): keep waiting
	}
	switch {
	case !os.SameFile(info, s.info):
		return s.restart("was replaced")
	case info.Size() < s.rd.offset:
		return s.restart("was truncated")
	}
	return info.Size() > s.rd.offset
}

// restart reopens the file at its path and reads it from its beginning,
// dropping any incomplete last record of the old contents. The path is
// checked again, as at Open: a replaced file may now be a link out of the
// root, which fails the source.
func (s *Source) restart(what string) bool {
	path, err := s.cfg.Resolve()
	if err != nil {
		s.err = err
		return true // Next returns the error
	}
	f, info, err := openFile(path)
	if err != nil {
		return false // replaced again or removed meanwhile: look again later
	}
	s.file.Close()
	s.path, s.file, s.info = path, f, info
	s.start()
	s.env.Warnf("%s: the file %s; reading it again from the beginning", s.cfg.Path, what)
	return true
}

// openFile opens path for reading and returns its identity, refusing a
// directory; errors name the path.
func openFile(path string) (*os.File, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("file connector: %w", err)
	}
	info, err := f.Stat()
	if err == nil && info.IsDir() {
		err = fmt.Errorf("%s is a directory", path)
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("file connector: %w", err)
	}
	return f, info, nil
}

// start prepares to read the file from its beginning.
func (s *Source) start() {
	s.rd.reset(s.file)
	s.needHeader = s.cfg.Format == FormatCSV && s.cfg.Header
	s.nfields = len(s.cols)
	for j := range s.fieldOf {
		s.fieldOf[j] = j
	}
}
