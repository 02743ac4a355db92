// Package damagetest damages copies of data directories, for tests that
// check that eddy reports every kind of damage instead of panicking or
// opening a partial database: each file deleted, emptied, cut in half, and
// with single bytes flipped at a few offsets.
package damagetest

import (
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/eddysql/eddy/storage/internal/sparse"
)

// Damage is one way of damaging one file of a data directory.
type Damage struct {
	File string // the file's name in the directory
	Kind string // "deleted", "emptied", "cut to N bytes", "byte N flipped"
	// apply damages the file at path.
	apply func(path string) error
}

func (d Damage) String() string { return d.File + " " + d.Kind }

// Apply damages the file in dir.
func (d Damage) Apply(dir string) error { return d.apply(filepath.Join(dir, d.File)) }

// flips is how many random offsets of each file get a flipped byte, besides
// its first, middle and last byte.
const flips = 2

// All returns every damage to every regular file of dir, in a fixed order:
// per file, deletion, truncation to 0 bytes and to half its size, and a
// flipped byte at its first, middle and last offset and at flips offsets
// drawn from rng. Empty files get only deletion.
func All(dir string, rng *rand.Rand) ([]Damage, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Damage
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return nil, err
		}
		name, size := e.Name(), info.Size()
		out = append(out, Damage{File: name, Kind: "deleted", apply: os.Remove})
		if size == 0 {
			continue
		}
		out = append(out,
			Damage{File: name, Kind: "emptied", apply: func(p string) error { return os.Truncate(p, 0) }},
			Damage{File: name, Kind: fmt.Sprintf("cut to %d bytes", size/2), apply: func(p string) error { return os.Truncate(p, size/2) }})
		offs := []int64{0, size / 2, size - 1}
		for range flips {
			offs = append(offs, rng.Int64N(size))
		}
		slices.Sort(offs)
		for _, off := range slices.Compact(offs) {
			out = append(out, Damage{File: name, Kind: fmt.Sprintf("byte %d flipped", off), apply: func(p string) error { return flip(p, off) }})
		}
	}
	return out, nil
}

// flip inverts the byte at off.
func flip(path string, off int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var b [1]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		return err
	}
	b[0] ^= 0xff
	_, err = f.WriteAt(b[:], off)
	return err
}

// CopyDir copies the regular files of src and, recursively, of its
// directories into dst, which it creates. It
// copies only the data regions of sparse files (Badger preallocates its
// logs), so copying a directory of a database that is still open is cheap;
// the copy then is what a crash at that moment would leave.
func CopyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		var err error
		switch {
		case e.IsDir():
			err = CopyDir(from, to)
		case e.Type().IsRegular():
			err = copyFile(from, to)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if err := out.Truncate(st.Size()); err != nil {
		out.Close()
		return err
	}
	for lo, hi := range sparse.DataRegions(in, 0, st.Size()) {
		if _, err := out.Seek(lo, io.SeekStart); err != nil {
			out.Close()
			return err
		}
		if _, err := io.Copy(out, io.NewSectionReader(in, lo, hi-lo)); err != nil {
			out.Close()
			return err
		}
	}
	return out.Close()
}

// Fingerprint describes the regular files of dir, their sizes and the
// contents of their data regions, so that a test can check that opening
// a damaged directory changed nothing. Files named in skip are left out.
func Fingerprint(dir string, skip ...string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	h := fnv.New64a()
	n := 0
	for _, e := range ents {
		if !e.Type().IsRegular() || slices.Contains(skip, e.Name()) {
			continue
		}
		n++
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", err
		}
		st, err := f.Stat()
		if err == nil {
			fmt.Fprintf(h, "%s %d\n", e.Name(), st.Size())
			for lo, hi := range sparse.DataRegions(f, 0, st.Size()) {
				if _, err = io.Copy(h, io.NewSectionReader(f, lo, hi-lo)); err != nil {
					break
				}
			}
		}
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%d files, %x", n, h.Sum64()), nil
}
