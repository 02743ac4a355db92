// Package postest checks sources' positions (exec.Positioned): that a
// source read in two parts, the second by a fresh source seeked to the
// first one's position, yields what one uninterrupted read does. It is
// test support: no source imports it.
package postest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/position"
)

// Opener returns a new source, opened (on a checked allocator, whose
// leaks fail t) and not yet read; its caller closes it.
type Opener func(t testing.TB) exec.Positioned

// Read reads at most n chunks of src (n < 0: no limit), stopping early at
// io.EOF or exec.ErrCaughtUp, and returns each chunk's rows formatted.
// The chunks are released.
func Read(t testing.TB, src exec.Source, n int) [][]string {
	t.Helper()
	ctx := context.Background()
	var chunks [][]string
	for n < 0 || len(chunks) < n {
		c, err := src.Next(ctx)
		if errors.Is(err, io.EOF) || errors.Is(err, exec.ErrCaughtUp) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, format(t, c.Batch))
		c.Batch.Release()
	}
	return chunks
}

// format renders a batch's rows.
func format(t testing.TB, b arrow.RecordBatch) []string {
	ts := exectest.SchemaTypes(t, b.Schema())
	rows := types.Rows(b, ts)
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = exectest.FormatRow(r, ts, exectest.Text)
	}
	return out
}

// Resume checks first against itself resumed: it reads first's input
// uninterrupted (at most most chunks, most < 0: to its end), then, for
// cuts after no chunk, after the last, and after cuts chunks chosen at
// random with a fixed seed, reads that many chunks of a new first source,
// takes its Position, seeks a new resumed source to it, and reads the
// rest. The rows of the two parts must be those of the uninterrupted
// read, in order; with sameChunks (resumed cuts chunks where first does),
// so must each chunk. A source seeked must report the position it was
// seeked to until it reads and, if it is exec.Exhausted, not be
// exhausted with chunks left to read.
func Resume(t *testing.T, first, resumed Opener, most, cuts int, sameChunks bool) {
	t.Helper()
	src := first(t)
	want := Read(t, src, most)
	src.Close()
	if len(want) < 2 {
		t.Fatalf("the input has %d chunks: too few to cut", len(want))
	}
	points := []int{0, len(want)}
	rng := rand.New(rand.NewPCG(10, uint64(len(want))))
	for range cuts {
		points = append(points, 1+rng.IntN(len(want)-1))
	}
	ctx := context.Background()
	for _, cut := range points {
		a := first(t)
		got := Read(t, a, cut)
		pos, err := a.Position()
		if err != nil {
			t.Fatalf("cut after %d chunks: Position: %v", cut, err)
		}
		a.Close()
		b := resumed(t)
		if err := b.Seek(ctx, pos); err != nil {
			t.Fatalf("cut after %d chunks: Seek: %v", cut, err)
		}
		if again, err := b.Position(); err != nil || !bytes.Equal(again, pos) {
			t.Fatalf("cut after %d chunks: Position after Seek is %x (%v), want %x", cut, again, err, pos)
		}
		if ex, ok := b.(exec.Exhausted); ok && ex.Exhausted() && (most >= 0 || cut < len(want)) {
			t.Fatalf("cut after %d of %d chunks: exhausted after Seek, with chunks left", cut, len(want))
		}
		rest := most
		if most >= 0 {
			rest = most - cut
		}
		got = append(got, Read(t, b, rest)...)
		b.Close()
		if sameChunks {
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("cut after %d chunks: chunks\n%v\nwant\n%v", cut, got, want)
			}
			continue
		}
		if g, w := slices.Concat(got...), slices.Concat(want...); !slices.Equal(g, w) {
			t.Fatalf("cut after %d chunks: rows\n%v\nwant\n%v", cut, g, w)
		}
	}
}

// ExhaustedAtEnd checks that a source of first read to its end, and a
// source of resumed seeked to its position there, is exec.Exhausted;
// and that a source of resumed seeked to the position after first's
// first chunk is not.
func ExhaustedAtEnd(t *testing.T, first, resumed Opener) {
	t.Helper()
	ctx := context.Background()
	for _, n := range []int{1, -1} {
		a := first(t)
		Read(t, a, n)
		pos, err := a.Position()
		if err != nil {
			t.Fatal(err)
		}
		a.Close()
		b := resumed(t)
		if err := b.Seek(ctx, pos); err != nil {
			t.Fatal(err)
		}
		ex, ok := b.(exec.Exhausted)
		if !ok {
			t.Fatalf("%T is not exec.Exhausted", b)
		}
		if got := ex.Exhausted(); got != (n < 0) {
			t.Errorf("seeked after %d chunks (-1: all), Exhausted is %v", n, got)
		}
		b.Close()
	}
}

// Refused checks that src refuses pos with a *position.Error whose text
// contains want.
func Refused(t *testing.T, src exec.Positioned, pos []byte, want string) {
	t.Helper()
	err := src.Seek(context.Background(), pos)
	var e *position.Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Seek: %v, want a *position.Error containing %q", err, want)
	}
}

// Refusal is a position a source must refuse (Name names the case) and a
// part of the error's text.
type Refusal struct {
	Name string
	Pos  []byte
	Want string
}

// RefusesAll checks each refusal, as a subtest, on the source open returns
// (Refused), then check, if set, on the same source and position.
func RefusesAll(t *testing.T, open Opener, refusals []Refusal, check func(t *testing.T, src exec.Positioned, pos []byte)) {
	t.Helper()
	for _, r := range refusals {
		t.Run(r.Name, func(t *testing.T) {
			src := open(t)
			Refused(t, src, r.Pos, r.Want)
			if check != nil {
				check(t, src, r.Pos)
			}
		})
	}
}

// Closing returns open with each source it opens closed when its test
// ends.
func Closing(open Opener) Opener {
	return func(t testing.TB) exec.Positioned {
		src := open(t)
		t.Cleanup(func() { src.Close() })
		return src
	}
}
