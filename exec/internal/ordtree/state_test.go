package ordtree

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestEntryRoundTrip checks that entry keys and values decode as they
// were written, and that damaged ones are refused.
func TestEntryRoundTrip(t *testing.T) {
	for _, tc := range []struct{ part, key string }{{"", "k"}, {"p\x00", "\x01\x02"}, {string(make([]byte, 300)), "x"}} {
		k := AppendEntryKey(nil, tc.part, tc.key)
		part, key, err := SplitEntryKey(k)
		if err != nil || string(part) != tc.part || string(key) != tc.key {
			t.Fatalf("split(%q) = %q, %q, %v", k, part, key, err)
		}
		v := append(AppendEntryValue(nil, 1<<40), 9)
		if n, rest, err := EntryCount(v); err != nil || n != 1<<40 || string(rest) != "\x09" {
			t.Fatalf("count(%q) = %d, %q, %v", v, n, rest, err)
		}
	}
	for _, k := range []string{"", "\x05ab", "\x02ab", "\xff"} {
		if _, _, err := SplitEntryKey([]byte(k)); !errors.Is(err, ErrDamaged) {
			t.Errorf("split(%q): %v", k, err)
		}
	}
	for _, v := range []string{"", "\x00", "\xff"} {
		if _, _, err := EntryCount([]byte(v)); !errors.Is(err, ErrDamaged) {
			t.Errorf("count(%q): %v", v, err)
		}
	}
}

// TestChangesListEachRowOnce checks that Changes records nothing until
// tracking starts, then reports each changed row once, in order, however
// often it changed, holding at most twice the distinct rows changed (plus
// the slack) at any time; and that Partitions.Snapshot reports every row
// the first time and then the changed rows with their copies now.
func TestChangesListEachRowOnce(t *testing.T) {
	var c Changes
	var ps Partitions
	r := rand.New(rand.NewPCG(1, 2))
	add := func(part, key string, w int64) {
		p := ps.Touch([]byte(part))
		e, _, err := p.Tree.Add(KeyOf(key), w, 0, 0, &ps.Gauge)
		if err != nil {
			t.Fatal(err)
		}
		c.Note(p.Key, e.Key)
	}
	for i := range 100 {
		ps.Begin()
		add(fmt.Sprint(i%10), fmt.Sprint(i), 1)
		ps.Finish()
	}
	if c.Len() != 0 {
		t.Fatalf("%d changes listed before tracking", c.Len())
	}
	all := 0
	if err := ps.Snapshot(&c, func(_, _ string, n int64) error { all++; return nil }); err != nil || all != 100 {
		t.Fatalf("first snapshot: %d rows, %v", all, err)
	}
	c.Done()
	for i := range 20000 {
		ps.Begin()
		k := r.IntN(50)
		add(fmt.Sprint(k%10), fmt.Sprint(k), 1)
		add(fmt.Sprint(k%10), fmt.Sprint(k), -1)
		ps.Finish()
		if c.Len() > 2*50+compactSlack+1 {
			t.Fatalf("change %d: %d changes listed for 50 rows", i, c.Len())
		}
	}
	ps.Begin()
	add("3", "3", -1) // gone
	ps.Finish()
	var got []string
	err := ps.Snapshot(&c, func(part, key string, n int64) error {
		got = append(got, fmt.Sprintf("%s/%s:%d", part, key, n))
		return nil
	})
	if err != nil || len(got) != 50 || got[0] != "0/0:1" || got[1] != "0/10:1" {
		t.Fatalf("snapshot: %v (%d rows), %v", got, len(got), err)
	}
	for _, g := range got {
		if g == "3/3:0" {
			c.Done()
			if c.Len() != 0 || !c.Tracking() {
				t.Fatalf("after Done: %d listed, tracking %v", c.Len(), c.Tracking())
			}
			return
		}
	}
	t.Fatalf("the row gone is not reported: %v", got)
}
