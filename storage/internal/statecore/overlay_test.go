package statecore

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// mustPut buffers k=v in o.
func mustPut(t testing.TB, o *overlay, k, v string) {
	t.Helper()
	if err := o.put(nil, []byte(k), []byte(v)); err != nil {
		t.Fatal(err)
	}
}

// mustDel buffers a delete of k in o.
func mustDel(t testing.TB, o *overlay, k string) {
	t.Helper()
	if err := o.del(nil, []byte(k)); err != nil {
		t.Fatal(err)
	}
}

// show prints a write: k=v, or k- for a deletion.
func show(k, v []byte, del bool) string {
	if del {
		return string(k) + "-"
	}
	return string(k) + "=" + string(v)
}

// dumpSorted prints what sorted gives, in its order.
func dumpSorted(o *overlay) string {
	var out []string
	for _, r := range o.sorted() {
		v, ok := o.val(r)
		out = append(out, show(o.key(r), v, !ok))
	}
	return strings.Join(out, " ")
}

// dumpView prints what view gives over layers in [lo, hi): the writes,
// then the spans.
func dumpView(layers []*overlay, lo, hi string) string {
	kvs, spans := view(layers, []byte(lo), []byte(hi))
	var out []string
	for _, e := range kvs {
		out = append(out, show(e.key, e.val, e.del))
	}
	for _, sp := range spans {
		out = append(out, fmt.Sprintf("[%s,%s)", sp.lo, sp.hi))
	}
	return strings.Join(out, " ")
}

// lookupString prints what lookup says of k: k=v, k- (deleted) or k?
// (undecided).
func lookupString(o *overlay, k string) string {
	v, ok, decided := o.lookup([]byte(k))
	if !decided {
		return k + "?"
	}
	return show([]byte(k), v, !ok)
}

func expect(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestOverlayLastWriteWins(t *testing.T) {
	o := newOverlay()
	mustPut(t, o, "b", "1")
	mustPut(t, o, "a", "1")
	mustPut(t, o, "b", "2")
	mustPut(t, o, "c", "1")
	mustPut(t, o, "b", "3")
	mustPut(t, o, "a", "")
	expect(t, "sorted", dumpSorted(o), "a= b=3 c=1")
	expect(t, "lookup", lookupString(o, "b")+" "+lookupString(o, "a")+" "+lookupString(o, "d"), "b=3 a= d?")
}

func TestOverlayDeleteAfterPut(t *testing.T) {
	o := newOverlay()
	mustPut(t, o, "a", "1")
	mustPut(t, o, "b", "1")
	mustDel(t, o, "a")
	expect(t, "sorted", dumpSorted(o), "a- b=1")
	expect(t, "lookup", lookupString(o, "a"), "a-")
}

func TestOverlayPutAfterDelete(t *testing.T) {
	o := newOverlay()
	mustDel(t, o, "a")
	mustPut(t, o, "a", "2")
	mustDel(t, o, "b")
	expect(t, "sorted", dumpSorted(o), "a=2 b-")
	expect(t, "lookup", lookupString(o, "a")+" "+lookupString(o, "b"), "a=2 b-")
}

func TestOverlayDeleteRangeThenPut(t *testing.T) {
	o := newOverlay()
	mustPut(t, o, "a", "1")
	mustPut(t, o, "b", "1")
	mustPut(t, o, "c", "1")
	mustPut(t, o, "d", "1")
	o.deleteRange([]byte("b"), []byte("d"))
	mustPut(t, o, "c", "2")
	// b and c were removed by the span; c was written again after it and
	// wins; d is outside it.
	expect(t, "sorted", dumpSorted(o), "a=1 c=2 d=1")
	expect(t, "lookup", strings.Join([]string{
		lookupString(o, "a"), lookupString(o, "b"), lookupString(o, "bb"), lookupString(o, "c"),
		lookupString(o, "d"), lookupString(o, "e"),
	}, " "), "a=1 b- bb- c=2 d=1 e?")
	expect(t, "view", dumpView([]*overlay{o}, "a", "z"), "a=1 c=2 d=1 [b,d)")
}

// TestOverlayReadsBetweenWrites reads after every write, so that the
// index is built by the first read and caught up (or rebuilt) by each
// later one; a stale index would miss the last write.
func TestOverlayReadsBetweenWrites(t *testing.T) {
	o := newOverlay()
	want := map[string]string{}
	for i := range 3000 {
		k := fmt.Sprintf("k%04d", (i*7919)%1500)
		v := fmt.Sprint(i)
		mustPut(t, o, k, v)
		want[k] = v
		if got := lookupString(o, k); got != k+"="+v {
			t.Fatalf("after put %d: lookup %s", i, got)
		}
		if i%100 == 0 {
			checkAgainst(t, o, want)
		}
	}
	// The tree was kept and caught up, not rebuilt at every read.
	if o.tree == nil || o.tree.size != len(want) || o.tree.upto != o.recs() {
		t.Fatalf("tree %+v after %d writes of %d keys", o.tree, o.recs(), len(want))
	}
	checkAgainst(t, o, want)
	// Writes after sorted make it stale; the next read does not use it.
	mustPut(t, o, "k0000", "last")
	want["k0000"] = "last"
	expect(t, "lookup after sorted", lookupString(o, "k0000"), "k0000=last")
	checkAgainst(t, o, want)
}

// checkAgainst checks o's view and sorted against want, the values of
// the keys it holds.
func checkAgainst(t *testing.T, o *overlay, want map[string]string) {
	t.Helper()
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var exp []string
	for _, k := range keys {
		exp = append(exp, k+"="+want[k])
	}
	expect(t, "view", dumpView([]*overlay{o}, "", "\xff"), strings.Join(exp, " "))
	expect(t, "sorted", dumpSorted(o), strings.Join(exp, " "))
}

func TestOverlayUnder(t *testing.T) {
	failed := newOverlay()
	mustPut(t, failed, "a", "old")
	mustPut(t, failed, "b", "old")
	mustPut(t, failed, "c", "old")
	mustPut(t, failed, "e", "old")
	failed.sorted() // as Commit froze it

	top := newOverlay()
	mustPut(t, top, "a", "new")
	mustPut(t, top, "c", "new")
	top.deleteRange([]byte("b"), []byte("d")) // removes b and top's c
	mustPut(t, top, "bb", "new")
	mustDel(t, top, "e")

	o := under(failed, top)
	expect(t, "sorted", dumpSorted(o), "a=new bb=new e-")
	expect(t, "lookup", lookupString(o, "b")+" "+lookupString(o, "c")+" "+lookupString(o, "f"), "b- c- f?")
	expect(t, "view", dumpView([]*overlay{o}, "a", "z"), "a=new bb=new e- [b,d)")
}

// TestViewLayers reads a live overlay over a frozen one: the live one's
// writes and spans hide the frozen one's.
func TestViewLayers(t *testing.T) {
	frozen := newOverlay()
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		mustPut(t, frozen, k, "f")
	}
	frozen.sorted()
	live := newOverlay()
	mustPut(t, live, "b", "l")
	live.deleteRange([]byte("c"), []byte("e"))
	mustDel(t, live, "a")
	expect(t, "view", dumpView([]*overlay{live, nil, frozen}, "", "z"), "a- b=l e=f [c,e)")
	expect(t, "view in range", dumpView([]*overlay{live, frozen}, "b", "d"), "b=l [c,e)")
}
