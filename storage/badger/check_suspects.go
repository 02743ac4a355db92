package badger

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"

	"github.com/eddysql/eddy/storage"
)

// resolveSuspects decides, for each key with a version whose value
// pointer leads nowhere, whether the version Badger would read for the key
// does: the newest version, and among copies of it (value log garbage
// collection rewrites a value under its own version) the one in the
// newest place, as Badger looks: write-ahead logs newest first, then
// level 0 tables newest first, then the deeper levels. If it does, the
// key's current value is gone, and that is damage.
func resolveSuspects(l *dirListing, m bdg.Manifest, p *pointerCheck) error {
	if len(p.suspects) == 0 {
		return nil
	}
	type current struct {
		version uint64
		found   bool
		fid     uint32
		why     string // why its value is missing, "" if it is not
	}
	cur := map[string]*current{}
	for k := range p.suspects {
		cur[k] = &current{}
	}
	see := func(key []byte, meta byte, value []byte) {
		c := cur[string(y.ParseKey(key))]
		if c == nil {
			return
		}
		if v := y.ParseTs(key); !c.found || v > c.version {
			c.version, c.found = v, true
			c.fid, c.why = p.problem(meta, value)
		}
	}
	for _, id := range slices.Backward(slices.Sorted(maps.Keys(l.mems))) {
		if _, err := scanLogFile(l.mems[id], true, func(r record) { see(r.key, r.meta, r.value) }); err != nil {
			return err // checkMemtables read it without error
		}
	}
	keys := slices.Sorted(maps.Keys(p.suspects))
	for _, id := range tablesByPriority(m) {
		err := openTable(l.tables[id], m.Tables[id].Compression, func(t *table.Table, _ *string) error {
			it := t.NewIterator(0)
			defer it.Close()
			for _, k := range keys {
				for it.Seek(y.KeyWithTs([]byte(k), math.MaxUint64)); it.Valid() && bytes.Equal(y.ParseKey(it.Key()), []byte(k)); it.Next() {
					vs := it.Value()
					see(it.Key(), vs.Meta, vs.Value)
				}
			}
			return nil
		})
		if err != nil {
			return err // checkTables read it without error
		}
	}
	for _, k := range keys {
		if c := cur[k]; c.why != "" {
			var sum keySummary
			sum.add([]byte(k))
			return &storage.CorruptionError{Path: p.vlogPath(c.fid), What: "values of " + sum.String() + " (a value log file)",
				Err: fmt.Errorf("%s, and it holds the current value of %s", c.why, describeKey([]byte(k)))}
		}
	}
	return nil
}

// tablesByPriority returns the IDs of the MANIFEST's tables in the order
// Badger looks for a key: level 0 newest (highest ID) first, then each
// deeper level.
func tablesByPriority(m bdg.Manifest) []uint64 {
	ids := slices.Collect(maps.Keys(m.Tables))
	slices.SortFunc(ids, func(a, b uint64) int {
		la, lb := m.Tables[a].Level, m.Tables[b].Level
		switch {
		case la != lb:
			return int(la) - int(lb)
		case la == 0 && a > b:
			return -1
		case la == 0 && a < b:
			return 1
		}
		return 0
	})
	return ids
}
