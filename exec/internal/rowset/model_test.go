package rowset_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/rowkey"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// modelTypes covers every physical type a set stores.
var modelTypes = []types.T{types.BigIntT, types.VarcharT, types.DoubleT, types.BoolT, types.DateT,
	types.DecimalT(12, 2), types.TimestampT(3), types.IntervalT}

// randomRow makes a row of modelTypes whose key (column 0) is k, with
// NULLs now and then.
func randomRow(r *rand.Rand, k int64) []types.Datum {
	row := []types.Datum{
		types.IntDatum(k),
		{S: strings.Repeat("x", r.IntN(4)) + fmt.Sprint(r.IntN(50))},
		types.FloatDatum(float64(r.IntN(7)) - 3),
		types.BoolDatum(r.IntN(2) == 0),
		types.IntDatum(int64(r.IntN(1000))),
		types.DecimalDatum(decimal128.FromI64(int64(r.IntN(100000)))),
		types.IntDatum(1700000000000 + int64(r.IntN(1000))),
		types.IntDatum(int64(r.IntN(60000))),
	}
	for j := 1; j < len(row); j++ {
		if r.IntN(10) == 0 {
			row[j] = types.NullDatum
		}
	}
	return row
}

// model is the reference: a multiset of rows by their text.
type model map[string]int

func rowText(row []types.Datum) string {
	return exectest.FormatRow(row, modelTypes, exectest.Text)
}

func (m model) rows() []string {
	var out []string
	for k, n := range m {
		for range n {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func setRows(s *rowset.Set) []string {
	var out []string
	for _, row := range s.Rows() {
		out = append(out, rowText(row))
	}
	slices.Sort(out)
	return out
}

func batchRows(t *testing.T, s *rowset.Set) []string {
	t.Helper()
	fields := make([]arrow.Field, len(modelTypes))
	ords := make([]int, len(modelTypes))
	for i, ty := range modelTypes {
		fields[i], ords[i] = types.Field(fmt.Sprint("c", i), ty, true), i
	}
	var out []string
	for _, rec := range s.Batches(arrow.NewSchema(fields, nil), ords) {
		for _, row := range types.Rows(rec, modelTypes) {
			out = append(out, rowText(row))
		}
		rec.Release()
	}
	slices.Sort(out)
	return out
}

// TestSetMatchesModel applies random changes — runs of inserts, then
// retractions of rows held and updates of keys — to sets keyed and not,
// checking after each chunk that the set holds what a multiset does, that
// its batches hold the same, and now and then that a set restored from its
// incremental snapshots holds the same and goes on from them.
func TestSetMatchesModel(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprint("keyed=", keyed), func(t *testing.T) {
			testSetMatchesModel(t, keyed)
		})
	}
	// A set renumbers itself (one compaction of every row) when its
	// positions run short, here after a few segments.
	defer rowset.SetRenumberAt(3)()
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprint("renumbered/keyed=", keyed), func(t *testing.T) {
			testSetMatchesModel(t, keyed)
		})
	}
}

func testSetMatchesModel(t *testing.T, keyed bool) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(7, uint64(len(fmt.Sprint(keyed)))))
	var key []int
	if keyed {
		key = []int{0}
	}
	names := make([]string, len(modelTypes))
	for i := range names {
		names[i] = fmt.Sprint("c", i)
	}
	s := rowset.New(modelTypes, key)
	state := exectest.NewState()
	m := model{}
	held := map[int64][]types.Datum{} // a keyed set's row of each key
	var all [][]types.Datum           // a multiset's rows, some gone
	next := int64(0)
	for step := range modelSteps {
		var rows [][]types.Datum
		var ops []exec.Op
		add := func(row []types.Datum, op exec.Op) {
			rows, ops = append(rows, row), append(ops, op)
			if op.Weight() > 0 {
				m[rowText(row)]++
			} else {
				m[rowText(row)]--
				if m[rowText(row)] == 0 {
					delete(m, rowText(row))
				}
			}
		}
		n := 1 + r.IntN(2500)
		phase := step % 3
		for range n {
			switch {
			case phase == 0 || len(m) == 0:
				// Inserts: new keys (a multiset also repeats rows).
				row := randomRow(r, next)
				next++
				if !keyed && len(all) > 0 && r.IntN(5) == 0 {
					row = all[r.IntN(len(all))]
				}
				add(row, exec.Insert)
				held[row[0].I], all = row, append(all, row)
			case keyed:
				// Update or delete a key held.
				k := int64(r.IntN(int(next)))
				old, ok := held[k]
				if !ok {
					continue
				}
				add(old, exec.UpdateBefore)
				delete(held, k)
				if r.IntN(3) > 0 {
					row := randomRow(r, k)
					add(row, exec.UpdateAfter)
					held[k] = row
				}
			default:
				row := all[r.IntN(len(all))]
				if m[rowText(row)] == 0 {
					continue
				}
				add(row, exec.Delete)
			}
		}
		if len(rows) == 0 {
			continue
		}
		rec := types.BuildRecord(alloc, names, modelTypes, rows)
		c := exec.Chunk{Batch: rec}
		if phase != 0 {
			c.Ops = ops
		}
		err := s.Apply(c)
		rec.Release()
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if step%3 != 2 && step%5 != 4 {
			continue
		}
		want := m.rows()
		if got := setRows(s); !slices.Equal(got, want) {
			t.Fatalf("step %d: the set holds %d rows, want %d", step, len(got), len(want))
		}
		if s.Len() < len(m) || s.Len() > len(want) {
			t.Fatalf("step %d: Len %d, want between %d distinct rows and %d rows", step, s.Len(), len(m), len(want))
		}
		if step%6 == 2 {
			if got := batchRows(t, s); !slices.Equal(got, want) {
				t.Fatalf("step %d: the batches hold %d rows, want %d", step, len(got), len(want))
			}
		}
		if step%5 == 4 {
			if err := s.WriteChanges(0, state); err != nil {
				t.Fatal(err)
			}
			restored := rowset.New(modelTypes, key)
			err := state.Scan(context.Background(), exec.KeyGroupRange{Lo: 0, Hi: 1}, func(_ int, k, v []byte) error {
				return restored.Load(k, v)
			})
			if err != nil {
				t.Fatalf("step %d: restore: %v", step, err)
			}
			if got := setRows(restored); !slices.Equal(got, want) {
				t.Fatalf("step %d: the restored set holds %d rows, want %d", step, len(got), len(want))
			}
			if step%2 == 1 {
				// Go on from the restored set: its snapshots must
				// extend the same entries.
				s = restored
			}
		}
	}
}

// TestUpsertReplaces: an upsert set replaces the row of a key it holds,
// and says which rows it replaced.
func TestUpsertReplaces(t *testing.T) {
	alloc := exectest.Alloc(t)
	s := rowset.New([]types.T{types.BigIntT, types.BigIntT}, []int{0})
	s.SetUpsert()
	for _, text := range []string{"+I 1 10\n+I 2 20", "+I 1 11\n+I 3 30\n+I 1 12", "-D 2 20"} {
		c := exectest.Chunk(t, alloc, "bigint bigint\n"+text)
		if err := s.Apply(c); err != nil {
			t.Fatal(err)
		}
		c.Batch.Release()
		if strings.HasPrefix(text, "+I 1 11") {
			rep := s.Replaced()
			if len(rep) != 2 || rep[0].Row != 0 || rep[0].Old[1].I != 10 || rep[1].Row != 2 || rep[1].Old[1].I != 11 {
				t.Errorf("replaced %v", rep)
			}
		}
	}
	var got []string
	for _, row := range s.Rows() {
		got = append(got, fmt.Sprint(row[0].I, " ", row[1].I))
	}
	slices.Sort(got)
	if strings.Join(got, ",") != "1 12,3 30" {
		t.Errorf("rows %v", got)
	}
}

// TestAppendOnlyNeedsNoIndex: an append-only input is stored without a
// hash or an index, and its snapshot is one entry per segment of new
// rows.
func TestAppendOnlyNeedsNoIndex(t *testing.T) {
	alloc := exectest.Alloc(t)
	s := rowset.New([]types.T{types.BigIntT}, nil)
	var sb strings.Builder
	sb.WriteString("bigint")
	for i := range 5000 {
		fmt.Fprintf(&sb, "\n+I %d", i%10)
	}
	state := exectest.NewState()
	for range 4 {
		c := exectest.Chunk(t, alloc, sb.String())
		if err := s.Apply(c); err != nil {
			t.Fatal(err)
		}
		c.Batch.Release()
	}
	if s.Len() != 20000 {
		t.Errorf("Len %d", s.Len())
	}
	// 20,000 rows of 8 bytes in three segments (the first grown by
	// appends), and no index nor hashes.
	if b := s.Bytes(); b > 3*8192*8*6/5 {
		t.Errorf("%d bytes for 20,000 BIGINTs", b)
	}
	if err := s.WriteChanges(0, state); err != nil || state.Puts != 3 {
		t.Errorf("first snapshot: %v, %d puts, want 3 (one per segment)", err, state.Puts)
	}
}

// TestLoadsEarlierSnapshots: entries an earlier eddy wrote (one per row,
// keyed by the row's key encoding, valued by EncodeRow) load, and the next
// snapshot replaces them with the segment format.
func TestLoadsEarlierSnapshots(t *testing.T) {
	alloc := exectest.Alloc(t)
	ts := []types.T{types.BigIntT, types.VarcharT}
	state := exectest.NewState()
	c := exectest.Chunk(t, alloc, "bigint varchar\n+I 1 a\n+I 2 NULL\n+I 3 c")
	defer c.Batch.Release()
	for i, row := range types.Rows(c.Batch, ts) {
		key := rowkey.Append(nil, []arrow.Array{c.Batch.Column(0)}, i)
		if err := state.Put(0, key, rowset.EncodeRow(nil, ts, int64(i+1), row)); err != nil {
			t.Fatal(err)
		}
	}
	s := rowset.New(ts, []int{0})
	if err := state.Scan(context.Background(), exec.KeyGroupRange{Lo: 0, Hi: 1}, func(_ int, k, v []byte) error {
		return s.Load(k, v)
	}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, row := range s.Rows() {
		got = append(got, exectest.FormatRow(row, ts, exectest.Text))
	}
	slices.Sort(got)
	if strings.Join(got, ",") != "1 a,2 NULL,2 NULL,3 c,3 c,3 c" {
		t.Fatalf("loaded %v", got)
	}
	state.Reset()
	if err := s.WriteChanges(0, state); err != nil || state.Deletes != 3 || state.Puts != 1 {
		t.Fatalf("snapshot after loading: %v, %d deletes, %d puts; want the 3 old entries deleted and 1 put", err, state.Deletes, state.Puts)
	}
	restored := rowset.New(ts, []int{0})
	if err := state.Scan(context.Background(), exec.KeyGroupRange{Lo: 0, Hi: 1}, func(_ int, k, v []byte) error {
		return restored.Load(k, v)
	}); err != nil || len(restored.Rows()) != 6 {
		t.Fatalf("restored %d rows (%v), want 6", len(restored.Rows()), err)
	}
}

// failingWriter is a checkpoint that fails at its first Put and is
// discarded, as a failed epoch's writes are: it records nothing.
type failingWriter struct{}

func (failingWriter) Put(int, []byte, []byte) error { return errors.New("disk full") }
func (failingWriter) Delete(int, []byte) error      { return nil }

// TestEmptiedSegmentAfterFailedSnapshot empties a segment (its rows
// deleted) after a snapshot, fails the next snapshot, and checks that the
// one after it (a full rewrite) leaves no entry of the emptied segment:
// the restored set holds exactly the rows held.
func TestEmptiedSegmentAfterFailedSnapshot(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	names := make([]string, len(modelTypes))
	for i := range names {
		names[i] = fmt.Sprint("c", i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	s := rowset.New(modelTypes, []int{0})
	state := exectest.NewState()
	m := model{}
	apply := func(rows [][]types.Datum, op exec.Op) {
		t.Helper()
		rec := types.BuildRecord(alloc, names, modelTypes, rows)
		defer rec.Release()
		ops := make([]exec.Op, len(rows))
		for i, row := range rows {
			ops[i] = op
			if op.Weight() > 0 {
				m[rowText(row)]++
			} else if m[rowText(row)]--; m[rowText(row)] == 0 {
				delete(m, rowText(row))
			}
		}
		if err := s.Apply(exec.Chunk{Batch: rec, Ops: ops}); err != nil {
			t.Fatal(err)
		}
	}
	const n = 3 * 8192
	rows := make([][]types.Datum, n)
	for k := range rows {
		rows[k] = randomRow(r, int64(k))
	}
	apply(rows, exec.Insert)
	if err := s.WriteChanges(0, state); err != nil {
		t.Fatal(err)
	}
	apply(rows[:6000], exec.Delete) // the first segment: sparse, emptied
	if err := s.WriteChanges(0, failingWriter{}); err == nil {
		t.Fatal("the failing snapshot succeeded")
	}
	if err := s.WriteChanges(0, state); err != nil {
		t.Fatal(err)
	}
	restored := rowset.New(modelTypes, []int{0})
	err := state.Scan(context.Background(), exec.KeyGroupRange{Lo: 0, Hi: 1}, func(_ int, k, v []byte) error {
		return restored.Load(k, v)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := setRows(restored), m.rows(); !slices.Equal(got, want) {
		t.Fatalf("the restored set holds %d rows, want %d", len(got), len(want))
	}
}
