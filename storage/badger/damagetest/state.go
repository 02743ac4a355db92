package damagetest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	bdg "github.com/dgraph-io/badger/v4"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/runs"
)

// DamageState rewrites the stored blocks of job's checkpoint runs in the
// closed data directory dir, as damage that leaves the files sound would
// (a bit flipped in memory before a write, a block cut short): damage is
// called with each block's key within the job and its stored bytes (the
// entries followed by their checksum, see storage/internal/runs), and a
// non-nil result replaces the stored block. It returns how many blocks it
// replaced. The layout mirrors storage/badger's layout.go and
// state_files.go: a block's key is r, the run's id (8 bytes), b and the
// block's number (4 bytes), under s and the job's name as
// storage.AppendString encodes it in Badger, or the block is in the run's
// file, runs/<the first 16 bytes of the SHA-256 of the job's name, in
// hex>/<the run's id, 16 hex digits>.run, which is rewritten.
func DamageState(dir, job string, damage func(key, stored []byte) []byte) (int, error) {
	n, err := damageBadgerRuns(dir, job, damage)
	if err != nil {
		return n, err
	}
	m, err := damageRunFiles(dir, job, damage)
	return n + m, err
}

// damageRunFiles is DamageState for the runs kept in files.
func damageRunFiles(dir, job string, damage func(key, stored []byte) []byte) (int, error) {
	sum := sha256.Sum256([]byte(job))
	runDir := filepath.Join(dir, "runs", hex.EncodeToString(sum[:16]))
	ents, err := os.ReadDir(runDir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	total := 0
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".run")
		if !ok {
			continue
		}
		id, err := strconv.ParseUint(name, 16, 64)
		if err != nil {
			continue
		}
		n, err := damageRunFile(filepath.Join(runDir, e.Name()), id, damage)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// damageRunFile rewrites the run file at path with the blocks damage
// replaces.
func damageRunFile(path string, id uint64, damage func(key, stored []byte) []byte) (int, error) {
	f, err := runs.OpenFile(path, id)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var blocks [][]byte
	n := 0
	for no := range uint32(f.Blocks()) {
		b, err := f.Fetch(no, nil)
		if err != nil {
			return 0, err
		}
		key := binary.BigEndian.AppendUint32(append(binary.BigEndian.AppendUint64([]byte{'r'}, id), 'b'), no)
		if nb := damage(key, b); nb != nil {
			b = nb
			n++
		}
		blocks = append(blocks, b)
	}
	if n == 0 {
		return 0, nil
	}
	tmp := path + ".damaged"
	w, err := runs.CreateFile(tmp)
	if err != nil {
		return 0, err
	}
	for no, b := range blocks {
		if err := w.WriteBlock(uint32(no), b); err != nil {
			w.Abort()
			return 0, err
		}
	}
	if err := w.Finish(); err != nil {
		return 0, err
	}
	return n, os.Rename(tmp, path)
}

// damageBadgerRuns is DamageState for the runs kept in Badger.
func damageBadgerRuns(dir, job string, damage func(key, stored []byte) []byte) (int, error) {
	opts := bdg.DefaultOptions(dir).WithValueThreshold(64 << 10).WithLogger(nil).WithSyncWrites(true)
	db, err := bdg.Open(opts)
	if err != nil {
		return 0, fmt.Errorf("damagetest: opening %s: %w", dir, err)
	}
	prefix := append(storage.AppendString([]byte{'s'}, job), 'r')
	type entry struct{ key, val []byte }
	var damaged []entry
	err = db.View(func(txn *bdg.Txn) error {
		it := txn.NewIterator(bdg.IteratorOptions{Prefix: prefix, PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			k := it.Item().KeyCopy(nil)
			if len(k) != len(prefix)+8+1+4 || k[len(prefix)+8] != 'b' {
				continue // a run's index
			}
			if nv := damage(k[len(prefix)-1:], v); nv != nil {
				damaged = append(damaged, entry{k, nv})
			}
		}
		return nil
	})
	if err == nil {
		err = db.Update(func(txn *bdg.Txn) error {
			for _, e := range damaged {
				if err := txn.Set(e.key, e.val); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return len(damaged), err
}
