package badger

import (
	"errors"
	"fmt"
	"os"
	"strings"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"

	"github.com/eddysql/eddy/storage"
)

// tableBlockSize is Badger's default block size, which eddy does not
// change; opening a compressed table needs it.
const tableBlockSize = 4 << 10

// openTable opens the table file at path read-only with Badger's table
// reader, in this goroutine so that its panics can be recovered (Badger
// opens tables in goroutines of its own, where a panic ends the process),
// and calls fn with it. It never releases the table's last reference,
// which would delete the file. A panic is returned as an error saying
// stage went wrong.
func openTable(path string, compression options.CompressionType, fn func(t *table.Table, stage *string) error) (err error) {
	mf, err := z.OpenMmapFile(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer mf.Close(-1)
	stage := "its footer or index is unreadable (is it cut short?)"
	defer func() {
		if p := recover(); p != nil {
			if s, ok := p.(string); ok && strings.Contains(s, "== Recovering from initIndex crash ==") {
				err = errors.New(stage) // Badger's dump of the table's footer
				return
			}
			err = fmt.Errorf("%s (Badger's reader fails on it: %s)", stage, firstLine(p))
		}
	}()
	t, err := table.OpenTable(mf, table.Options{Compression: compression, BlockSize: tableBlockSize,
		ChkMode: options.NoVerification})
	if err != nil {
		return fmt.Errorf("its index is unreadable: %w", err)
	}
	return fn(t, &stage)
}

// checkTable verifies the table file at path: the footer and index
// against the index checksum, then every block against its checksum. It
// then walks the entries to check the value pointers they hold, and
// returns the table's highest version.
func checkTable(path string, tm bdg.TableManifest, ptrs *pointerCheck) (uint64, error) {
	what := "an unknown part of the database (a table file whose index is unreadable)"
	st, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("storage: %w", err)
	}
	if st.Size() == 0 {
		return 0, &storage.CorruptionError{Path: path, What: what, Err: errors.New("it is empty")}
	}
	var maxVersion uint64
	err = openTable(path, tm.Compression, func(t *table.Table, stage *string) error {
		var sum keySummary
		sum.addRange(y.ParseKey(t.Smallest()), y.ParseKey(t.Biggest()))
		what = sum.String() + " (a table file)"
		*stage = "a block does not decode"
		if err := t.VerifyChecksum(); err != nil {
			return fmt.Errorf("a block fails its checksum: %w", err)
		}
		it := t.NewIterator(0)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			vs := it.Value()
			ptrs.check(it.Key(), vs.Meta, vs.Value)
		}
		maxVersion = t.MaxVersion()
		return nil
	})
	if err != nil {
		return 0, &storage.CorruptionError{Path: path, What: what, Err: err}
	}
	return maxVersion, nil
}

// tableMaxVersion returns the highest version of the table at path, or
// false if its index cannot be read.
func tableMaxVersion(path string, compression options.CompressionType) (v uint64, ok bool) {
	err := openTable(path, compression, func(t *table.Table, _ *string) error {
		v = t.MaxVersion()
		return nil
	})
	return v, err == nil
}

// firstLine returns the first non-empty line of a panic's value, which
// for Badger's table reader can be a long diagnostic dump.
func firstLine(p any) string {
	for line := range strings.SplitSeq(fmt.Sprint(p), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "==") {
			if len(line) > 160 {
				line = line[:160] + "..."
			}
			return line
		}
	}
	return "a panic"
}
