package nexmark

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/position"
	"github.com/eddysql/eddy/exec/internal/position/postest"
)

// opener returns an opener of split instance of p of cfg.
func opener(cfg Config, instance, p int) postest.Opener {
	return func(t testing.TB) exec.Positioned {
		src, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		env := exec.NewTestEnv(exectest.Alloc(t))
		env.Instance, env.Parallelism = instance, p
		if err := src.Open(context.Background(), env); err != nil {
			t.Fatal(err)
		}
		return src
	}
}

// TestPositionResume reads splits in two parts, cut at random chunk
// boundaries, at the start and at the end, and checks they make the
// uninterrupted read, chunk for chunk; resumed with another batch size,
// row for row; and unbounded, for as many chunks.
func TestPositionResume(t *testing.T) {
	for table, batch := range map[string]int{TableBid: 300, TableAuction: 40, TablePerson: 15} {
		t.Run(table, func(t *testing.T) {
			cfg := testConfig(table, 20_000)
			cfg.Seed, cfg.BatchSize = 7, batch
			other := cfg
			other.BatchSize = batch/4 + 1
			postest.Resume(t, opener(cfg, 0, 1), opener(cfg, 0, 1), -1, 6, true)
			postest.Resume(t, opener(cfg, 2, 3), opener(cfg, 2, 3), -1, 6, true)
			postest.ExhaustedAtEnd(t, opener(cfg, 2, 3), opener(cfg, 2, 3))
			postest.Resume(t, opener(cfg, 1, 3), opener(other, 1, 3), -1, 6, false)
			cfg.Events = 0
			postest.Resume(t, opener(cfg, 2, 4), opener(cfg, 2, 4), 12, 4, true)
		})
	}
}

// TestPositionThrottled checks that a throttled source resumed at event n
// schedules from n: the events after n come at the rate from the Seek on,
// not after waiting for the n events before it again.
func TestPositionThrottled(t *testing.T) {
	cfg := testConfig(TableBid, 0)
	cfg.BatchSize = 1000
	a := opener(cfg, 0, 1)(t)
	for range 10 {
		c, err := a.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		c.Batch.Release()
	}
	pos, err := a.Position()
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	n := a.(*Source).cur.n // about 10,870: far more than a second's worth

	cfg.Rate = 100
	now := time.Unix(1_000_000, 0)
	src, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env := exec.NewTestEnv(exectest.Alloc(t))
	env.Clock = func() time.Time { return now }
	ctx := context.Background()
	if err := src.Open(ctx, env); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := src.Seek(ctx, pos); err != nil {
		t.Fatal(err)
	}
	if due := src.thr.Due(src.cur.n); due.Sub(now) > time.Second {
		t.Fatalf("the next event is due %v after the Seek", due.Sub(now))
	}
	now = now.Add(time.Second) // events n to n+100 are due
	c, err := src.Next(ctx)
	if err != nil {
		t.Fatalf("Next a second after the Seek: %v", err)
	}
	defer c.Batch.Release()
	want := 0
	for e := n; e <= n+100; e++ {
		if kindOf(e) == kindBid {
			want++
		}
	}
	if c.NumRows() != want {
		t.Fatalf("a second after the Seek: %d rows, want the %d bids of events %d to %d", c.NumRows(), want, n, n+100)
	}
	if _, err := src.Next(ctx); !errors.Is(err, exec.ErrCaughtUp) {
		t.Fatalf("then: %v, want ErrCaughtUp", err)
	}
}

// TestPositionRefused checks that positions of other options, another
// split, another kind of source, damaged or out of the split are refused
// with a *position.Error, and Seek out of order with an error.
func TestPositionRefused(t *testing.T) {
	cfg := testConfig(TableBid, 10_000)
	posOf := func(cfg Config, instance, p int) []byte {
		src := opener(cfg, instance, p)(t)
		defer src.Close()
		pos, err := src.Position()
		if err != nil {
			t.Fatal(err)
		}
		return pos
	}
	pos := posOf(cfg, 1, 2)
	with := func(f func(*Config)) Config {
		c := cfg
		f(&c)
		return c
	}
	src := opener(cfg, 1, 2)(t).(*Source)
	defer src.Close()
	// craft writes a position of src's identity at event n.
	craft := func(n uint64) []byte {
		w := position.NewWriter(positionTag)
		src.writeIdentity(w)
		w.Uint(n)
		return w.Bytes()
	}
	other := position.NewWriter("file")
	other.Uint(0)
	postest.RefusesAll(t, func(testing.TB) exec.Positioned { return src }, []postest.Refusal{
		{Name: "truncated", Pos: pos[:len(pos)-2], Want: "checksum mismatch"},
		{Name: "empty", Pos: nil, Want: "too short"},
		{Name: "another source", Pos: other.Bytes(), Want: `a "file" source's, not a nexmark source's`},
		{Name: "table", Pos: posOf(with(func(c *Config) { c.Table = TableAuction }), 1, 2), Want: "table 'auction', not 'bid'"},
		{Name: "seed", Pos: posOf(with(func(c *Config) { c.Seed = 3 }), 1, 2), Want: "seed 3, not 0"},
		{Name: "events", Pos: posOf(with(func(c *Config) { c.Events = 20_000 }), 1, 2), Want: "events 20000, not 10000"},
		{Name: "first_event_rate", Pos: posOf(with(func(c *Config) { c.FirstEventRate = 5 }), 1, 2), Want: "first_event_rate 5, not 0"},
		{Name: "base_time", Pos: posOf(with(func(c *Config) { c.BaseTime = 0 }), 1, 2), Want: "base_time 0, not 1436918400000"},
		{Name: "instance", Pos: posOf(cfg, 0, 2), Want: "split 0 of 2, not 1 of 2"},
		{Name: "parallelism", Pos: posOf(cfg, 1, 3), Want: "split 1 of 3, not 1 of 2"},
		{Name: "block", Pos: posOf(with(func(c *Config) { c.block = 1 }), 1, 2), Want: "splits taking blocks of 1 events, not 4096"},
		{Name: "past the end", Pos: craft(10_001), Want: "event 10001 is past the end of the sequence (10000 events)"},
		{Name: "not in the split", Pos: craft(500), Want: "event 500 is not in split 1 of 2"},
	}, nil)
	// The end itself is a position (the split read to its end).
	if err := src.Seek(context.Background(), craft(10_000)); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Next(context.Background()); err == nil || err.Error() != "EOF" {
		t.Fatalf("Next at the end: %v, want io.EOF", err)
	}
	if err := src.Seek(context.Background(), pos); err == nil {
		t.Fatal("Seek after Next succeeded")
	}
	unopened, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := unopened.Seek(context.Background(), pos); !errors.Is(err, errNotOpen) {
		t.Fatalf("Seek before Open: %v", err)
	}
	if _, err := unopened.Position(); !errors.Is(err, errNotOpen) {
		t.Fatalf("Position before Open: %v", err)
	}
}
