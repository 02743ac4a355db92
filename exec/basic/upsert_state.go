package basic

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/rowkey"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// Upsert's checkpoints (exec.Stateful). Each key's latest row is one
// entry, in the key group of its primary key as the hash exchange in
// front of the operator routes the table's rows (exec.HashRows over the
// key columns; without a key, the instance's first group):
//
//   - key: the key's encoding in the operator's map (rowkey.Append over
//     the key columns);
//   - value: the row, as a materialized view's rows are written
//     (rowset.EncodeRow, with a count of 1).
//
// What it has emitted needs no entry: its output, integrated, is the
// latest row of every key it holds.
//
// A snapshot writes only the keys whose row changed since the previous
// one. From the first snapshot or restore on, a change lists its key in
// the delta (its bytes appended to one buffer) unless its row is marked
// dirty already, and a deleted key's row stays in the map, marked gone,
// until the snapshot has written its deletion, so a key is listed once
// however often it changes. Until then nothing is listed: the first
// snapshot writes every row.

// errUpsertRestore is wrapped by every error of an Upsert's restore.
var errUpsertRestore = errors.New("upsert: restore")

// upsertDelta lists the keys changed since the last snapshot.
type upsertDelta struct {
	tracking bool   // a snapshot was taken or restored: changes are listed
	keys     []byte // the keys changed, concatenated
	ends     []int  // the end of each in keys
	value    []byte // Snapshot's scratch
}

// changed lists the key in u.keyBuf as changed, unless changes are not
// tracked or its row was dirty already.
func (u *Upsert) changed(wasDirty bool) {
	d := &u.delta
	if !d.tracking || wasDirty {
		return
	}
	d.keys = append(d.keys, u.keyBuf...)
	d.ends = append(d.ends, len(d.keys))
}

// Snapshot implements exec.Stateful: it puts the rows of the keys changed
// since the last snapshot (every row, the first time) and deletes the keys
// deleted.
func (u *Upsert) Snapshot(_ context.Context, _ uint64, w exec.StateWriter) error {
	if u.rows == nil {
		return errors.New("upsert: Snapshot before Open")
	}
	d := &u.delta
	if !d.tracking {
		for k := range u.rows {
			d.keys = append(d.keys, k...)
			d.ends = append(d.ends, len(d.keys))
		}
	}
	groups, err := u.keyGroups()
	if err != nil {
		return fmt.Errorf("upsert: snapshot: %w", err)
	}
	start := 0
	for i, end := range d.ends {
		key := d.keys[start:end]
		start = end
		r := u.rows[string(key)]
		if r.gone {
			err = w.Delete(groups[i], key)
		} else {
			d.value = rowset.EncodeRow(d.value[:0], u.Types, 1, r.vals)
			err = w.Put(groups[i], key, d.value)
		}
		if err != nil {
			return err
		}
	}
	start = 0
	for _, end := range d.ends {
		key := d.keys[start:end]
		start = end
		if r := u.rows[string(key)]; r.gone {
			delete(u.rows, string(key))
		} else {
			r.dirty = false
			u.rows[string(key)] = r
		}
	}
	d.keys, d.ends, d.tracking = d.keys[:0], d.ends[:0], true
	return nil
}

// keyGroups returns the key group of each key of the delta: the group of
// exec.HashRows over its row's key columns, as the exchange hashes the
// table's rows, or the instance's first group without key columns.
func (u *Upsert) keyGroups() ([]int, error) {
	d := &u.delta
	groups := make([]int, len(d.ends))
	if len(u.Keys) == 0 || len(groups) == 0 {
		for i := range groups {
			groups[i] = u.env.KeyGroups.Lo
		}
		return groups, nil
	}
	rows := make([][]types.Datum, len(d.ends))
	start := 0
	for i, end := range d.ends {
		rows[i] = u.rows[string(d.keys[start:end])].vals
		start = end
	}
	cols := u.keyColumns(rows)
	defer arrays.Release(cols)
	_, err := exec.RowKeyGroups(cols, nil, groups)
	return groups, err
}

// keyColumns builds the key columns of rows.
func (u *Upsert) keyColumns(rows [][]types.Datum) []arrow.Array {
	cols := make([]arrow.Array, len(u.Keys))
	col := make([]types.Datum, len(rows))
	for c, k := range u.Keys {
		for i, r := range rows {
			col[i] = r[k]
		}
		cols[c] = types.BuildArray(u.env.Alloc, u.Types[k], col)
	}
	return cols
}

// Restore implements exec.Stateful: it puts back the latest row of every
// key of the key groups in groups. Every entry is checked: its row
// decodes, its key is its row's key, and its key group is the key's.
func (u *Upsert) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	if u.rows == nil {
		return errors.New("upsert: Restore before Open")
	}
	var keys []byte
	var ends, entryGroups []int
	var rows [][]types.Datum
	err := r.Scan(ctx, groups, func(g int, key, value []byte) error {
		count, vals, err := rowset.DecodeRow(value, u.Types)
		if err == nil && count != 1 {
			err = fmt.Errorf("a row held %d times", count)
		}
		if err != nil {
			return fmt.Errorf("%w: key group %d: entry %q: %w", errUpsertRestore, g, key, err)
		}
		keys = append(keys, key...)
		ends, entryGroups, rows = append(ends, len(keys)), append(entryGroups, g), append(rows, vals)
		return nil
	})
	if err != nil || len(rows) == 0 {
		u.delta.tracking = err == nil
		return err
	}
	cols := u.keyColumns(rows)
	defer arrays.Release(cols)
	hashes := make([]uint64, len(rows))
	if len(cols) > 0 {
		if err := exec.HashRows(cols, hashes); err != nil {
			return fmt.Errorf("%w: %w", errUpsertRestore, err)
		}
	}
	start := 0
	for i, end := range ends {
		key := keys[start:end]
		start = end
		u.keyBuf = rowkey.Append(u.keyBuf[:0], cols, i)
		switch {
		case !bytes.Equal(u.keyBuf, key):
			return fmt.Errorf("%w: key group %d: entry %q: the key is not its row's", errUpsertRestore, entryGroups[i], key)
		case len(cols) > 0 && exec.KeyGroup(hashes[i]) != entryGroups[i]:
			return fmt.Errorf("%w: key group %d: entry %q: the key is in key group %d", errUpsertRestore, entryGroups[i], key, exec.KeyGroup(hashes[i]))
		}
		if _, ok := u.rows[string(key)]; ok {
			return fmt.Errorf("%w: key group %d: entry %q: a key restored twice", errUpsertRestore, entryGroups[i], key)
		}
		u.rows[string(key)] = upsertRow{vals: rows[i]}
		u.live++
	}
	u.delta.tracking = true
	u.env.Metrics.StateKeys.Store(int64(u.live))
	return nil
}
