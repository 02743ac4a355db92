package nexmark

import (
	"context"
	"errors"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/position/postest"
)

// allTables is what generate = 'all' lists.
var allTables = []string{TablePerson, TableAuction, TableBid}

// TestGenerateAllSameRows checks that generate = 'all' changes no row:
// every table, split, batch size and set of declared columns gives the
// rows generate = 'read' gives.
func TestGenerateAllSameRows(t *testing.T) {
	for _, table := range tables {
		t.Run(table, func(t *testing.T) {
			for _, tc := range []struct {
				instance, p, batch int
				columns            []string
			}{
				{0, 1, 0, nil},
				{0, 1, 7, nil},
				{1, 3, 100, nil},
				{2, 3, 0, []string{"date_time", "extra"}},
				{10, 50, 0, nil},
			} {
				cfg := testConfig(table, 30_000)
				cfg.Seed, cfg.BatchSize = 5, tc.batch
				if tc.columns != nil {
					cfg.Columns = cols(t, table, tc.columns...)
				}
				read := readSplit(t, cfg, tc.instance, tc.p)
				cfg.Generate = allTables
				if got := readSplit(t, cfg, tc.instance, tc.p); !reflect.DeepEqual(got, read) {
					t.Errorf("split %d of %d, batch %d, columns %v: generate = 'all' gives %d rows, 'read' %d, or other values",
						tc.instance, tc.p, tc.batch, tc.columns, len(got), len(read))
				}
			}
		})
	}
}

// TestGenerateAllBuildsEverything checks the work generate = 'all' does:
// the table's own events with every column, declared or not, and every
// event of the other tables with every column, the values those tables'
// own streams have. The batch a dropped table is building holds the
// events it built since the last full one (of droppedRows rows).
func TestGenerateAllBuildsEverything(t *testing.T) {
	const events = 20_000
	for _, table := range tables {
		t.Run(table, func(t *testing.T) {
			cfg := testConfig(table, events)
			cfg.Seed = 3
			cfg.Columns = cols(t, table, "date_time")
			cfg.Generate = allTables
			src := openSplit(t, cfg, 0, 1)
			if len(src.build) != len(fieldsOf(src.kind)) {
				t.Errorf("builds %d columns of its own table, want all %d", len(src.build), len(fieldsOf(src.kind)))
			}
			if err := exectest.Drain(context.Background(), src, func(c exec.Chunk) error { return nil }); err != nil {
				t.Fatal(err)
			}
			for _, other := range tables {
				k, _ := tableKind(other)
				d := src.drop[k]
				if other == table {
					if d != nil {
						t.Errorf("drops its own table")
					}
					continue
				}
				if d == nil {
					t.Fatalf("builds no %s events", other)
				}
				ocfg := testConfig(other, events)
				ocfg.Seed = 3
				all := readAll(t, ocfg)
				got := takeBuilding(t, d, other)
				want := all[len(all)/droppedRows*droppedRows:]
				if len(got) == 0 || !reflect.DeepEqual(got, want) {
					t.Errorf("the batch being built holds %d %s events, want the last %d of the %d, every column", len(got), other, len(want), len(all))
				}
			}
		})
	}
}

// takeBuilding returns the rows of the batch a dropped table is building,
// every column, and hands its buffers over to them: the source has none
// left.
func takeBuilding(t *testing.T, d *dropped, table string) [][]types.Datum {
	t.Helper()
	if d.b == nil {
		return nil
	}
	rec := d.b.finish(d.schema, d.outs)
	defer rec.Release()
	d.b = nil
	ts := make([]types.T, len(d.outs))
	for i, o := range d.outs {
		ts[i] = o.col.Type
	}
	if len(ts) != len(Columns(table)) {
		t.Fatalf("%s: %d columns built, want %d", table, len(ts), len(Columns(table)))
	}
	return types.Rows(rec, ts)
}

// TestGenerateSome checks a list of tables: the bid stream that also
// builds persons builds no auctions, and its rows are unchanged.
func TestGenerateSome(t *testing.T) {
	cfg := testConfig(TableBid, 10_000)
	read := readAll(t, cfg)
	cfg.Generate = []string{TablePerson}
	src := openSplit(t, cfg, 0, 1)
	if !src.walk || src.drop[kindPerson] == nil || src.drop[kindAuction] != nil {
		t.Fatalf("generate = 'person' on bid: drops %v", src.drop)
	}
	if got := readAll(t, cfg); !reflect.DeepEqual(got, read) {
		t.Error("generate = 'person' changed the bids")
	}
	// Its own table alone builds every column and walks nothing else.
	cfg.Generate = []string{TableBid}
	if src := openSplit(t, cfg, 0, 1); src.walk || len(src.build) != len(bidFields) {
		t.Errorf("generate = 'bid' on bid: walk %v, %d columns built", src.walk, len(src.build))
	}
}

// TestGenerateAllTail checks a bounded split whose table's events end
// long before the split does: with splits of one event each in turn (in
// blocks of SplitBlock events every split has every table's), at
// parallelism 50, split 10 has only bids,
// so its person stream has no row, yet it builds every bid, returning
// exec.ErrCaughtUp while more than walkPerNext events are left and io.EOF
// at the end. Unbounded, the same split builds nothing.
func TestGenerateAllTail(t *testing.T) {
	ctx := context.Background()
	events := int64(50*walkPerNext + 50*1000)
	cfg := testConfig(TablePerson, events)
	cfg.Generate, cfg.block = allTables, 1
	src := openSplit(t, cfg, 10, 50)
	var errs []error
	for range 5 {
		_, err := src.Next(ctx)
		errs = append(errs, err)
		if errors.Is(err, io.EOF) {
			break
		}
		if err := src.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if len(errs) != 2 || !errors.Is(errs[0], exec.ErrCaughtUp) || !errors.Is(errs[1], io.EOF) {
		t.Fatalf("Next returned %v, want ErrCaughtUp then io.EOF", errs)
	}
	if src.cur.n != src.cur.end {
		t.Errorf("the split stopped at event %d of %d", src.cur.n, src.cur.end)
	}

	cfg.Events = 0
	empty := openSplit(t, cfg, 10, 50)
	if _, err := empty.Next(ctx); !errors.Is(err, exec.ErrCaughtUp) || empty.drop[kindBid].b != nil || empty.cur.n != 10 {
		t.Errorf("unbounded split without persons: %v, walked to event %d", err, empty.cur.n)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := empty.Wait(wctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait of an unbounded split without persons: %v, want the context's error", err)
	}
}

// TestGenerateAllThrottled checks that a throttled source that builds
// every event still returns every row of its table, on schedule.
func TestGenerateAllThrottled(t *testing.T) {
	cfg := testConfig(TableAuction, 2000)
	cfg.Rate = 8000
	want := len(readAll(t, testConfig(TableAuction, 2000)))
	cfg.Generate = allTables
	src := openSplit(t, cfg, 0, 1)
	start := time.Now()
	rows := 0
	if err := exectest.Drain(context.Background(), src, func(c exec.Chunk) error { rows += c.NumRows(); return nil }); err != nil {
		t.Fatal(err)
	}
	if rows != want {
		t.Errorf("%d rows, want %d", rows, want)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("2000 events at 8000/s took %v, want about 250ms", d)
	}
}

// TestGenerateAllResume checks positions under generate = 'all': a split
// read in two parts is the uninterrupted read.
func TestGenerateAllResume(t *testing.T) {
	cfg := testConfig(TableAuction, 20_000)
	cfg.Seed, cfg.BatchSize, cfg.Generate = 7, 40, allTables
	read := cfg
	read.Generate = nil
	postest.Resume(t, opener(cfg, 1, 3), opener(cfg, 1, 3), -1, 6, true)
	postest.ExhaustedAtEnd(t, opener(cfg, 1, 3), opener(cfg, 1, 3))
	postest.Resume(t, opener(cfg, 1, 3), opener(read, 1, 3), -1, 6, true)
	postest.Resume(t, opener(read, 1, 3), opener(cfg, 1, 3), -1, 6, true)
}
