package badger

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/storage"
)

// The identity file, EDDY, marks a data directory as eddy's. It is written
// once, after Badger first opened the directory, so a directory that has
// it but no MANIFEST lost its database files rather than being new. A
// directory written before the identity file existed has none; it gets
// one after its files pass the checks.
const (
	identityLine  = "eddy data directory"
	formatVersion = 1
)

// identityContents is what the identity file holds.
var identityContents = fmt.Sprintf("%s\nformat %d\n", identityLine, formatVersion)

// ErrNewerFormat is returned by Open for a data directory written by a
// newer eddy, in a format this one does not read.
var ErrNewerFormat = errors.New("storage: the data directory was written by a newer eddy")

// checkIdentity checks the identity file at path.
func checkIdentity(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	if string(b) == identityContents {
		return nil
	}
	if first, rest, ok := strings.Cut(string(b), "\n"); ok && first == identityLine {
		if v, ok := strings.CutPrefix(strings.TrimSpace(rest), "format "); ok {
			if n, err := strconv.Atoi(v); err == nil && n > formatVersion {
				return fmt.Errorf("%w (format %d; this eddy reads format %d): %s", ErrNewerFormat, n, formatVersion, path)
			}
		}
	}
	return &storage.CorruptionError{Path: path, What: "eddy's mark on its data directories", Err: fmt.Errorf("it holds %q, not what eddy writes", clip(b)),
		Hint: "eddy has not changed it; if the rest of the directory is intact, delete it and eddy writes it again after checking every other file"}
}

// clip shortens b for an error message.
func clip(b []byte) []byte {
	if len(b) > 40 {
		return append(bytes.Clone(b[:40]), "..."...)
	}
	return b
}

// writeIdentity writes the identity file into dir durably: to a temporary
// file that is synced and renamed into place, then the directory synced.
func writeIdentity(dir string) error {
	tmp := filepath.Join(dir, identityFile+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("storage: writing the identity file: %w", err)
	}
	_, err = f.WriteString(identityContents)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, identityFile))
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("storage: writing the identity file: %w", err)
	}
	return nil
}

// syncDir makes the directory's entries durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
