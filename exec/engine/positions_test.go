package engine

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/connector/nexmark"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/position"
	"github.com/eddysql/eddy/exec/internal/position/postest"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/mem"
)

// logFixture is a stream's log of entries of 1 to 7 rows (id, name),
// more than logSource reads ahead at once.
type logFixture struct {
	log  storage.Log
	obj  *catalog.Object
	full *arrow.Schema
}

func newLogFixture(t *testing.T, entries int) *logFixture {
	t.Helper()
	db := mem.New()
	t.Cleanup(func() { db.Close() })
	names, ts := []string{"id", "name"}, []types.T{types.BigIntT, types.VarcharT}
	f := &logFixture{log: db.Log(), obj: &catalog.Object{ID: 7, Name: "s", Kind: catalog.Stream}}
	id := 0
	for e := range entries {
		rows := make([][]types.Datum, 1+e%7)
		for i := range rows {
			rows[i] = []types.Datum{types.IntDatum(int64(id)), types.StringDatum("n")}
			id++
		}
		b := types.BuildRecord(memory.DefaultAllocator, names, ts, rows)
		f.full = b.Schema()
		if _, err := f.log.Append(f.obj.ID, b); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	return f
}

// source returns a logSource of the fixture reading the columns (name,
// id), not opened.
func (f *logFixture) source(snapshot bool) *logSource {
	schema := arrow.NewSchema([]arrow.Field{f.full.Field(1), f.full.Field(0)}, nil)
	return &logSource{log: f.log, stream: f.obj.ID, obj: f.obj, full: f.full, ords: []int{1, 0}, schema: schema, snapshot: snapshot}
}

// opener returns an opener of the fixture's log source, wrapped as the
// engine wraps a connector's source when wrap is set.
func (f *logFixture) opener(snapshot, wrap bool) postest.Opener {
	return func(t testing.TB) exec.Positioned {
		ls := f.source(snapshot)
		var src exec.Source = ls
		if wrap {
			src = project(ls, []int{1}, arrow.NewSchema([]arrow.Field{f.full.Field(0)}, nil))
		}
		if err := src.Open(context.Background(), exec.NewTestEnv(exectest.Alloc(t))); err != nil {
			t.Fatal(err)
		}
		p, ok := src.(exec.Positioned)
		if !ok {
			t.Fatalf("%T is not positioned", src)
		}
		return p
	}
}

// TestLogSourcePosition reads an INSERT-fed stream's log in two parts,
// cut at random chunk boundaries (within what the source read ahead), at
// the start and at the end, and checks they make the uninterrupted read
// chunk for chunk: continuous, as a snapshot, and through the projecting
// wrapper.
func TestLogSourcePosition(t *testing.T) {
	f := newLogFixture(t, 150)
	postest.Resume(t, f.opener(false, false), f.opener(false, false), -1, 8, true)
	postest.Resume(t, f.opener(true, false), f.opener(true, false), -1, 4, true)
	postest.Resume(t, f.opener(false, true), f.opener(false, true), -1, 4, true)
}

// TestLogSourcePositionRefused checks that positions of another stream,
// past the end of the log (or of a snapshot), damaged or of another kind
// of source are refused with a *position.Error naming the stream.
func TestLogSourcePositionRefused(t *testing.T) {
	f := newLogFixture(t, 10)
	g := newLogFixture(t, 10)
	g.obj = &catalog.Object{ID: 8, Name: "g", Kind: catalog.Stream}
	posOf := func(w *position.Writer) []byte { return w.Bytes() }
	at := func(stream, next uint64) []byte {
		w := position.NewWriter(logTag)
		w.Uint(stream)
		w.Uint(next)
		return w.Bytes()
	}
	good := at(7, 3)
	for _, tc := range []struct {
		name     string
		snapshot bool
		pos      []byte
		want     string
	}{
		{"truncated", false, good[:len(good)-1], "stream s: cannot seek to the position: the position is damaged or truncated"},
		{"another source", false, posOf(position.NewWriter("nexmark")), `a "nexmark" source's, not a log source's`},
		{"another stream", false, at(8, 3), "the position is of the log of another stream (id 8, not 7)"},
		{"past the end", false, at(7, 11), "entry 11 is past the end of the log (10 entries)"},
		{"past the snapshot", true, at(7, 11), "entry 11 is past the end of the log (10 entries)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := f.opener(tc.snapshot, false)(t)
			defer src.Close()
			postest.Refused(t, src, tc.pos, tc.want)
		})
	}
	// The end itself is a position: a continuous source resumed there
	// reads what is appended after.
	src := f.opener(false, false)(t)
	defer src.Close()
	if err := src.Seek(context.Background(), at(7, 10)); err != nil {
		t.Fatal(err)
	}
	if got := postest.Read(t, src, -1); len(got) != 0 {
		t.Fatalf("resumed at the end, read %v", got)
	}
	postest.Read(t, src, 1)
	if err := src.Seek(context.Background(), good); err == nil {
		t.Fatal("Seek after Next succeeded")
	}
}

// TestProjectForwardsPosition checks that the projecting wrapper is an
// exec.Positioned exactly when its inner source is, keeping what else it
// is (a generator).
func TestProjectForwardsPosition(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	// exectest.Source is Positioned: only its Source methods are kept.
	plain := project(struct{ exec.Source }{exectest.NewSource(t, memory.DefaultAllocator)}, []int{0}, schema)
	if _, ok := plain.(exec.Positioned); ok {
		t.Fatalf("%T over a source without positions is positioned", plain)
	}
	gen, err := nexmark.Connector{}.Open(connector.Spec{Object: "bid", Options: map[string]string{"table": "bid"}}, connector.Continuous, connector.Env{})
	if err != nil {
		t.Fatal(err)
	}
	wrapped := project(gen, []int{0}, schema)
	if _, ok := wrapped.(exec.Positioned); !ok {
		t.Fatalf("%T over a nexmark source is not positioned", wrapped)
	}
	if _, ok := wrapped.(exec.Generator); !ok {
		t.Fatalf("%T over a nexmark source is not a generator", wrapped)
	}
	if _, ok := project(newLogFixture(t, 1).source(false), []int{0}, schema).(exec.Generator); ok {
		t.Fatal("a projected log source is a generator")
	}
}
