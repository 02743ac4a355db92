package datagen

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
)

// allKinds are options giving every test column a generator of its own.
var allKinds = map[string]string{
	"rows": "3000", "seed": "11", "batch_size": "97",
	"fields.id.kind": "sequence", "fields.id.start": "5", "fields.id.step": "3",
	"fields.small.min": "-10", "fields.small.max": "10", "fields.small.null_rate": "0.1",
	"fields.name.kind": "list", "fields.name.values": "ann, bob,cy",
	"fields.amount.min": "1.50", "fields.amount.max": "9.99",
	"fields.day.min": "2024-02-01", "fields.day.max": "2024-02-29",
	"fields.x.min": "-1", "fields.x.max": "1", "fields.x.null_rate": "0.5",
	"fields.ts.step": "10ms",
}

// TestParallelismIndependent checks that the splits of any parallelism
// make the rows of one, and the same seed the same rows.
func TestParallelismIndependent(t *testing.T) {
	cfg := config(t, allKinds)
	one := rows(t, cfg, 1)
	if len(one) != 3000 {
		t.Fatalf("%d rows, want 3000", len(one))
	}
	for _, p := range []int{2, 3, 7} {
		if got := rows(t, cfg, p); !slices.Equal(got, one) {
			t.Errorf("parallelism %d makes other rows than 1", p)
		}
	}
	again := config(t, allKinds)
	if !slices.Equal(rows(t, again, 1), one) {
		t.Error("the same options make other rows")
	}
	other := map[string]string{}
	for k, v := range allKinds {
		other[k] = v
	}
	other["seed"] = "12"
	diff := rows(t, config(t, other), 1)
	if slices.Equal(field(diff, 1), field(one, 1)) || !slices.Equal(field(diff, 0), field(one, 0)) {
		t.Error("another seed: random columns should differ, sequences not")
	}
}

// TestValues checks each generator's values: sequences count, random
// values stay in their bounds and cover them, lists draw each value, and
// NULLs come at about their rate.
func TestValues(t *testing.T) {
	all := rows(t, config(t, allKinds), 2)
	ids := make([]int, len(all))
	for i, v := range field(all, 0) {
		ids[i], _ = strconv.Atoi(v)
	}
	slices.Sort(ids)
	for i, id := range ids {
		if id != 5+3*i {
			t.Fatalf("id %d is %d, want %d", i, id, 5+3*i)
		}
	}
	count := func(col int) map[string]int {
		m := map[string]int{}
		for _, v := range field(all, col) {
			m[v]++
		}
		return m
	}
	small := count(1)
	if n := small["NULL"]; n < 200 || n > 400 {
		t.Errorf("small: %d NULLs of 3000 at rate 0.1", n)
	}
	for v := -10; v <= 10; v++ {
		// 2,700 values over 21: about 129 each.
		if n := small[strconv.Itoa(v)]; n < 80 || n > 180 {
			t.Errorf("small: %d drawn %d times", v, n)
		}
	}
	if len(small) != 22 {
		t.Errorf("small: values outside [-10, 10]: %v", small)
	}
	names := count(2)
	if len(names) != 3 || names["ann"] < 850 || names["bob"] < 850 || names["cy"] < 850 {
		t.Errorf("name: %v", names)
	}
	for v := range count(3) {
		if f, err := strconv.ParseFloat(v, 64); err != nil || f < 1.5 || f > 9.99 || len(v) != 4 {
			t.Errorf("amount %s outside [1.50, 9.99]", v)
		}
	}
	if flags := count(4); flags["true"] < 1300 || flags["false"] < 1300 {
		t.Errorf("flag: %v", flags)
	}
	days := count(5)
	if len(days) != 29 {
		t.Errorf("day: %d distinct days, want every day of February 2024", len(days))
	}
	for v := range days {
		if v < "2024-02-01" || v > "2024-02-29" {
			t.Errorf("day %s outside February 2024", v)
		}
	}
	x := count(6)
	if n := x["NULL"]; n < 1350 || n > 1650 {
		t.Errorf("x: %d NULLs of 3000 at rate 0.5", n)
	}
	for v := range x {
		if f, err := strconv.ParseFloat(v, 64); v != "NULL" && (err != nil || f < -1 || f >= 1) {
			t.Errorf("x %s outside [-1, 1)", v)
		}
	}
	// The timestamps count from 2025-01-01 by 10 ms: row 2999's is 29.99 s on.
	if got := maxTS(all); got != "2025-01-01 00:00:29.990" {
		t.Errorf("last timestamp %q, want 2025-01-01 00:00:29.990", got)
	}
}

// maxTS returns the largest timestamp of the rows, the last field.
func maxTS(rows []string) string {
	best := ""
	for _, r := range rows {
		f := strings.Fields(r)
		if ts := strings.Join(f[len(f)-2:], " "); ts > best {
			best = ts
		}
	}
	return best
}

// TestText checks random text's length and alphabet, and a text sequence.
func TestText(t *testing.T) {
	for _, n := range []int{0, 1, 12, 13, 40} {
		opts := map[string]string{"rows": "500", "fields.name.length": strconv.Itoa(n)}
		for _, v := range field(rows(t, config(t, opts), 1), 2) {
			if v == "''" && n == 0 {
				continue
			}
			if len(v) != n || strings.Trim(v, letters) != "" {
				t.Fatalf("length %d: %q", n, v)
			}
		}
	}
	opts := map[string]string{"fields.name.kind": "sequence", "fields.name.start": "-2", "fields.name.end": "2"}
	got := field(rows(t, config(t, opts), 2), 2)
	slices.Sort(got)
	if want := []string{"-1", "-2", "0", "1", "2"}; !slices.Equal(got, want) {
		t.Errorf("text sequence %v, want %v", got, want)
	}
}

// TestSequenceLeavesType checks that a sequence without an end fails the
// source when it would leave its column's type, at any parallelism.
func TestSequenceLeavesType(t *testing.T) {
	opts := map[string]string{"fields.small.kind": "sequence", "fields.small.start": "32760"}
	for _, p := range []int{1, 3} {
		var failed error
		for i := range p {
			src := opener(config(t, opts), i, p)(t)
			for {
				c, err := src.Next(context.Background())
				if err != nil {
					failed = err
					break
				}
				c.Batch.Release()
			}
			src.Close()
		}
		if failed == nil || errors.Is(failed, io.EOF) || errors.Is(failed, exec.ErrCaughtUp) ||
			failed.Error() != "datagen connector: column small: its sequence leaves SMALLINT after 8 rows (give it an end, or a wider type)" {
			t.Errorf("parallelism %d: %v", p, failed)
		}
	}
}
