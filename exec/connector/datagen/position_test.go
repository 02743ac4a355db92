package datagen

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/position"
	"github.com/eddysql/eddy/exec/internal/position/postest"
)

// TestPositionResume reads splits in two parts cut at random chunk
// boundaries and checks they make the uninterrupted read, chunk for
// chunk; resumed with another batch size, row for row; and unbounded.
func TestPositionResume(t *testing.T) {
	cfg := config(t, allKinds)
	other := cfg
	other.BatchSize = 31
	postest.Resume(t, opener(cfg, 0, 1), opener(cfg, 0, 1), -1, 6, true)
	postest.Resume(t, opener(cfg, 2, 3), opener(cfg, 2, 3), -1, 6, true)
	postest.ExhaustedAtEnd(t, opener(cfg, 2, 3), opener(cfg, 2, 3))
	postest.Resume(t, opener(cfg, 1, 3), opener(other, 1, 3), -1, 6, false)
	cfg.Rows = 0
	postest.Resume(t, opener(cfg, 2, 4), opener(cfg, 2, 4), 12, 4, true)
}

// TestPositionRefused checks that a position of other options or another
// split is refused, and that the end is a position.
func TestPositionRefused(t *testing.T) {
	cfg := config(t, allKinds)
	posOf := func(cfg Config, instance, p int) []byte {
		src := opener(cfg, instance, p)(t)
		defer src.Close()
		pos, err := src.Position()
		if err != nil {
			t.Fatal(err)
		}
		return pos
	}
	with := func(k, v string) Config {
		opts := map[string]string{}
		for k, v := range allKinds {
			opts[k] = v
		}
		opts[k] = v
		return config(t, opts)
	}
	pos := posOf(cfg, 1, 2)
	src := opener(cfg, 1, 2)(t).(*Source)
	defer src.Close()
	craft := func(n uint64) []byte {
		w := position.NewWriter(positionTag)
		w.String(src.identity())
		w.Uint(1)
		w.Uint(2)
		w.Uint(n)
		return w.Bytes()
	}
	other := position.NewWriter("file")
	other.Uint(0)
	postest.RefusesAll(t, func(testing.TB) exec.Positioned { return src }, []postest.Refusal{
		{Name: "truncated", Pos: pos[:len(pos)-2], Want: "checksum mismatch"},
		{Name: "another source", Pos: other.Bytes(), Want: `a "file" source's, not a datagen source's`},
		{Name: "seed", Pos: posOf(with("seed", "3"), 1, 2), Want: "other options"},
		{Name: "rows", Pos: posOf(with("rows", "10"), 1, 2), Want: "other options"},
		{Name: "generator", Pos: posOf(with("fields.small.max", "11"), 1, 2), Want: "other options"},
		{Name: "instance", Pos: posOf(cfg, 0, 2), Want: "split 0 of 2, not 1 of 2"},
		{Name: "parallelism", Pos: posOf(cfg, 1, 3), Want: "split 1 of 3, not 1 of 2"},
		{Name: "not in the split", Pos: craft(500), Want: "row 500 is not in split 1 of 2"},
	}, nil)
	// A rate or a batch size is not part of the position.
	if err := opener(with("rate", "5"), 1, 2)(t).Seek(context.Background(), pos); err != nil {
		t.Errorf("a position with another rate: %v", err)
	}
	if err := src.Seek(context.Background(), craft(3000)); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Next(context.Background()); !errors.Is(err, io.EOF) {
		t.Fatalf("Next at the end: %v, want io.EOF", err)
	}
	if err := src.Seek(context.Background(), pos); err == nil {
		t.Fatal("Seek after Next succeeded")
	}
	unopened := New(cfg)
	if err := unopened.Seek(context.Background(), pos); !errors.Is(err, errNotOpen) {
		t.Fatalf("Seek before Open: %v", err)
	}
	if _, err := unopened.Position(); !errors.Is(err, errNotOpen) {
		t.Fatalf("Position before Open: %v", err)
	}
}

// TestRate checks the wall-clock throttle on a fake clock: the rows due
// are returned, and the source is caught up until more are due.
func TestRate(t *testing.T) {
	cfg := config(t, map[string]string{"rate": "1000", "rows": "100000"})
	src := New(cfg)
	now := time.Unix(1000, 0)
	env := exec.NewTestEnv(nil)
	env.Clock = func() time.Time { return now }
	if err := src.Open(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	read := func() int {
		n := 0
		for {
			c, err := src.Next(context.Background())
			if errors.Is(err, exec.ErrCaughtUp) {
				return n
			}
			if err != nil {
				t.Fatal(err)
			}
			n += c.NumRows()
			c.Batch.Release()
		}
	}
	if n := read(); n != 1 {
		t.Errorf("at the start: %d rows, want 1 (row 0 is due)", n)
	}
	now = now.Add(2500 * time.Millisecond)
	if n := read(); n != 2500 {
		t.Errorf("after 2.5 s: %d more rows, want 2500", n)
	}
	if due := src.thr.Due(src.n); due.Sub(now) <= 0 || due.Sub(now) > time.Millisecond+time.Microsecond {
		t.Errorf("the next row is due %v from now, want within 1ms", due.Sub(now))
	}
}
