package agg

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
)

// TestLocalAggPartials aggregates random batches with a LocalAgg and
// checks every group's partials against a direct computation.
func TestLocalAggPartials(t *testing.T) {
	alloc := exectest.Alloc(t)
	in := []types.T{types.BigIntT, types.BigIntT, types.DoubleT, types.VarcharT, types.DecimalT(10, 2)}
	cfg := LocalConfig{Input: in, GroupKeys: []int{0}, Partials: []PartialSpec{
		{Kind: PartialCountStar, Arg: -1, Type: types.BigIntT},
		{Kind: PartialCount, Arg: 1, Type: types.BigIntT},
		{Kind: PartialSum, Arg: 1, Type: types.BigIntT},
		{Kind: PartialMin, Arg: 2, Type: types.DoubleT},
		{Kind: PartialMax, Arg: 3, Type: types.VarcharT},
		{Kind: PartialSum, Arg: 4, Type: types.DecimalT(38, 2)},
	}, Names: []string{"k", "n", "nv", "s", "lo", "hi", "ds"}}
	l := NewLocalAgg(cfg)
	if err := l.Open(context.Background(), exec.NewTestEnv(alloc)); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 5; round++ {
		var rows [][]types.Datum
		type agg struct {
			n, nv, s int64
			lo       float64
			hi       string
			ds       float64
			any      bool
		}
		want := map[string]*agg{}
		for i := 0; i < 500; i++ {
			k := types.IntDatum(int64(rng.IntN(7)))
			key := "k" + fmt.Sprint(k.I)
			if rng.IntN(10) == 0 {
				k, key = types.NullDatum, "NULL"
			}
			v := types.IntDatum(int64(rng.IntN(100)))
			if rng.IntN(5) == 0 {
				v = types.NullDatum
			}
			f := float64(rng.IntN(1000)) / 7
			s := fmt.Sprintf("s%03d", rng.IntN(500))
			d := fmt.Sprintf("%d.%02d", rng.IntN(100), rng.IntN(100))
			rows = append(rows, []types.Datum{k, v, types.FloatDatum(f), types.StringDatum(s), mustDecimal(d)})
			a := want[key]
			if a == nil {
				a = &agg{lo: f, hi: s}
				want[key] = a
			}
			a.n++
			if !v.Null {
				a.nv++
				a.s += v.I
			}
			a.lo = min(a.lo, f)
			a.hi = max(a.hi, s)
			var df float64
			fmt.Sscan(d, &df)
			a.ds += df
		}
		rec := types.BuildRecord(alloc, []string{"k", "v", "f", "s", "d"}, in, rows)
		var got []string
		err := l.Process(context.Background(), 0, exec.Chunk{Batch: rec}, exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error {
			outT := []types.T{types.BigIntT, types.BigIntT, types.BigIntT, types.BigIntT, types.DoubleT, types.VarcharT, types.DecimalT(38, 2)}
			for _, r := range types.Rows(c.Batch, outT) {
				key := "NULL"
				if !r[0].Null {
					key = "k" + fmt.Sprint(r[0].I)
				}
				a := want[key]
				sum := "NULL"
				if a.nv > 0 {
					sum = fmt.Sprint(a.s)
				}
				exp := fmt.Sprintf("%s %d %d %s %s %s %.2f", key, a.n, a.nv, sum, types.Format(types.FloatDatum(a.lo), types.DoubleT), a.hi, a.ds)
				gotSum := "NULL"
				if !r[3].Null {
					gotSum = fmt.Sprint(r[3].I)
				}
				g := fmt.Sprintf("%s %d %d %s %s %s %s", key, r[1].I, r[2].I, gotSum, types.Format(r[4], types.DoubleT), r[5].S, types.Format(r[6], types.DecimalT(38, 2)))
				if g != exp {
					got = append(got, fmt.Sprintf("got %s want %s", g, exp))
				}
				delete(want, key)
			}
			return nil
		}))
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > 0 || len(want) > 0 {
			t.Fatalf("round %d: %v; groups not emitted: %d", round, got, len(want))
		}
	}
}

func mustDecimal(s string) types.Datum {
	n, err := decimal128.FromString(s, 10, 2)
	if err != nil {
		panic(err)
	}
	return types.DecimalDatum(n)
}

// TestLocalAggFollowsHashAgg checks partials computed by the hash
// aggregate's rules: an integer SUM that leaves BIGINT only on the way
// ends in range, a decimal SUM beyond 38 digits fails rather than
// wrapping, and MIN of doubles puts NaN first wherever it comes.
func TestLocalAggFollowsHashAgg(t *testing.T) {
	alloc := exectest.Alloc(t)
	in := []types.T{types.BigIntT, types.BigIntT, types.DoubleT, types.DecimalT(38, 0)}
	cfg := LocalConfig{Input: in, GroupKeys: []int{0}, Partials: []PartialSpec{
		{Kind: PartialSum, Arg: 1, Type: types.BigIntT},
		{Kind: PartialMin, Arg: 2, Type: types.DoubleT},
		{Kind: PartialMax, Arg: 2, Type: types.DoubleT},
		{Kind: PartialSum, Arg: 3, Type: types.DecimalT(38, 0)},
	}, Names: []string{"k", "s", "lo", "hi", "ds"}}
	run := func(text string) (string, error) {
		l := NewLocalAgg(cfg)
		if err := l.Open(context.Background(), exec.NewTestEnv(alloc)); err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		out := exectest.NewCollector(t, exectest.CollectorOptions{})
		ch := exectest.Chunk(t, alloc, "bigint bigint double decimal(38,0)\n"+text)
		defer ch.Batch.Release()
		err := l.Process(context.Background(), 0, ch, out)
		return out.Take(), err
	}
	got, err := run("+I 1 9223372036854775807 1 5\n+I 1 1 NaN 6\n+I 1 -1 -Inf 7")
	if err != nil || got != "+I 1 9223372036854775807 NaN 1 18" {
		t.Errorf("got %q, %v", got, err)
	}
	_, err = run("+I 1 0 0 99999999999999999999999999999999999999\n+I 1 0 0 1")
	if !errors.Is(err, accum.ErrOverflow) {
		t.Errorf("a decimal sum of 39 digits: %v", err)
	}
}
