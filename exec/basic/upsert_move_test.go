package basic

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// moveValues are the values of TestUpsertAdoptGroupsEqualsRestore's rows:
// enough keys (hundreds) to spread over the key groups of four instances,
// few enough that keys are updated and deleted over and over.
func moveValues() map[string][]string {
	v := map[string][]string{
		"double":  {"-1.5", "0", "2.25", "NaN"},
		"date":    {"2024-01-01", "2024-02-29", "2024-03-31", "2025-12-31"},
		"boolean": {"true", "false"},
		"bigint":  {"NULL"},
	}
	for i := range 200 {
		v["bigint"] = append(v["bigint"], strconv.Itoa(i))
	}
	for i := range 40 {
		v["varchar"] = append(v["varchar"], fmt.Sprintf("s%02d", i))
		v["decimal(10,2)"] = append(v["decimal(10,2)"], fmt.Sprintf("%d.%02d", i-20, i*7%100))
	}
	return v
}

// TestUpsertAdoptGroupsEqualsRestore runs random upserts and deletes of
// every table of upsertCases through two fleets of Upserts that change
// parallelism 1 → 2 → 3 → 1 → 4 → 2 at checkpoints (exectest.CheckMoves):
// one moves by AdoptGroups, the other by a full restore. After every move
// an adopting instance must hold what its twin holds (dumpUpsert), have
// read only the key groups it gained, and both fleets must emit the same
// rows and write the same entries at every later checkpoint.
func TestUpsertAdoptGroupsEqualsRestore(t *testing.T) {
	for _, tc := range upsertCases {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(4) {
				steps := upsertStepsOf(tc, rand.New(rand.NewPCG(seed, 12)), 60, moveValues())
				n := exectest.CheckMoves(t, exectest.Moves{
					New:         func() exec.Operator { return newUpsert(t, tc) },
					Steps:       steps,
					Keys:        [][]int{tc.keys},
					Parallelism: []int{1, 2, 3, 1, 4, 2},
					Dump:        dumpUpsert,
				})
				if n.Entries >= n.RestoredEntries || n.Adopted == 0 {
					t.Fatalf("adopting read %d entries (%d instances adopted), restoring %d", n.Entries, n.Adopted, n.RestoredEntries)
				}
			}
		})
	}
}

// TestUpsertWithoutKeyAdoptsItsOneGroup checks that an Upsert without a
// primary key (a table of one row at most, run as one instance) adopts
// its old instance's row and reads nothing when its first key group
// stays.
func TestUpsertWithoutKeyAdoptsItsOneGroup(t *testing.T) {
	tc := upsertCase{input: "bigint varchar"}
	steps := []exectest.Step{
		{In: tc.input + "\n+I 1 a"}, {In: tc.input + "\n+I 2 b"}, {In: tc.input + "\n+I 2 b"},
		{In: tc.input + "\n-D 2 b"}, {In: tc.input + "\n+I 3 c"}, {In: tc.input + "\n+I 4 d"},
	}
	n := exectest.CheckMoves(t, exectest.Moves{
		New:         func() exec.Operator { return newUpsert(t, tc) },
		Steps:       steps,
		Keys:        [][]int{nil},
		Parallelism: []int{1, 1, 1},
		Dump:        dumpUpsert,
	})
	if n.Entries != 0 || n.Adopted != 2 {
		t.Fatalf("adopting read %d entries, %d instances adopted; want 0 and 2", n.Entries, n.Adopted)
	}
}

// dumpUpsert renders the state of an Upsert instance: every key held with
// its key group, row and dirty and gone marks, the live count and what
// its next snapshot writes (tracking, keys listed). It fails t for a key
// outside the instance's key groups.
func dumpUpsert(t *testing.T, op exec.Operator) string {
	t.Helper()
	u := op.(*Upsert)
	var lines []string
	live := 0
	for k, r := range u.rows {
		g := u.env.KeyGroups.Lo
		if len(u.Keys) > 0 {
			g = exec.KeyGroup(exectest.HashRow(t, r.vals, u.Types, u.Keys))
		}
		if !u.env.KeyGroups.Contains(g) {
			t.Errorf("a key of key group %d in an instance owning %v", g, u.env.KeyGroups)
		}
		if !r.gone {
			live++
		}
		lines = append(lines, fmt.Sprintf("%d %x %x dirty %v gone %v", g, k, rowset.EncodeRow(nil, u.Types, 1, r.vals), r.dirty, r.gone))
	}
	if live != u.live {
		t.Errorf("%d rows live, counted %d", live, u.live)
	}
	slices.Sort(lines)
	lines = append(lines, fmt.Sprintf("live %d, tracking %v, %d listed, state keys %d",
		u.live, u.delta.tracking, len(u.delta.ends), u.env.Metrics.StateKeys.Load()))
	return strings.Join(lines, "\n")
}

// TestUpsertAdoptGroupsFallsBack checks the cases in which AdoptGroups
// reports false and leaves both instances alone: another operator or
// configuration, an old instance never snapshotted, changed or deleted
// since its snapshot, and an Upsert without a key whose one group would
// move.
func TestUpsertAdoptGroupsFallsBack(t *testing.T) {
	ctx := context.Background()
	alloc := exectest.Alloc(t)
	tc := upsertCases[0]
	open := func(tc upsertCase, i, p int) *Upsert {
		u := newUpsert(t, tc)
		exectest.Open(t, u, exectest.InstanceEnv(alloc, i, p, nil))
		return u
	}
	outs := map[*Upsert]*exectest.Collector{} // each instance's output
	feed := func(u *Upsert, rows string) {
		if outs[u] == nil {
			outs[u] = exectest.NewCollector(t, exectest.CollectorOptions{})
		}
		ch := exectest.Chunk(t, alloc, tc.input+"\n"+rows)
		defer ch.Batch.Release()
		if err := u.Process(ctx, 0, ch, outs[u]); err != nil {
			t.Fatal(err)
		}
	}
	st := exectest.NewState()
	snapshot := func(u *Upsert) {
		if err := u.Snapshot(ctx, 1, st); err != nil {
			t.Fatal(err)
		}
	}
	otherKeys, otherTypes, noKey := tc, tc, tc
	otherKeys.keys = []int{0, 2}
	otherTypes.input = "bigint varchar double"
	noKey.keys = nil
	cases := []struct {
		name string
		old  func() exec.Operator
		new  *Upsert
	}{
		{"another operator", func() exec.Operator {
			s := &Sort{Types: newUpsert(t, tc).Types}
			exectest.Open(t, s, exectest.InstanceEnv(alloc, 0, 1, nil))
			return s
		}, open(tc, 0, 2)},
		{"other key columns", func() exec.Operator { return open(otherKeys, 0, 1) }, open(tc, 0, 2)},
		{"other types", func() exec.Operator { return open(otherTypes, 0, 1) }, open(tc, 0, 2)},
		{"never snapshotted", func() exec.Operator {
			u := open(tc, 0, 1)
			feed(u, "+I 1 a 10")
			return u
		}, open(tc, 0, 2)},
		{"changed", func() exec.Operator {
			u := open(tc, 0, 1)
			feed(u, "+I 1 a 10")
			snapshot(u)
			feed(u, "+I 1 a 11")
			return u
		}, open(tc, 0, 2)},
		{"deletion not written", func() exec.Operator {
			u := open(tc, 0, 1)
			feed(u, "+I 1 a 10")
			snapshot(u)
			feed(u, "-D 1 a 10")
			return u
		}, open(tc, 0, 2)},
		{"no key, its group moves", func() exec.Operator {
			u := open(noKey, 1, 2)
			feed(u, "+I 1 a 10")
			snapshot(u)
			return u
		}, open(noKey, 0, 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.old()
			var before string
			u, isUpsert := o.(*Upsert)
			if isUpsert {
				before = dumpUpsert(t, u)
			}
			held := exec.KeyGroupsOf(0, 1)
			if isUpsert {
				held = u.env.KeyGroups
			}
			ok, err := c.new.AdoptGroups(ctx, o, held, st)
			if ok || err != nil {
				t.Fatalf("AdoptGroups: %v, %v; want a fallback", ok, err)
			}
			if isUpsert {
				if after := dumpUpsert(t, u); after != before {
					t.Fatalf("the old instance changed:\n%s\nwas\n%s", after, before)
				}
			}
			if len(c.new.rows) != 0 || c.new.delta.tracking {
				t.Fatal("the new instance took state")
			}
		})
	}
}
