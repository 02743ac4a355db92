package statecore

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// op is one write to an overlay.
type op struct {
	kind   byte // 'p' put, 'd' delete, 'r' delete range
	k, v   string
	lo, hi string
}

// model is what an overlay must behave as: a map of each key's buffered
// write, from which a DeleteRange removes the keys it covers, and the
// spans, in order.
type model struct {
	entries map[string]*string // nil for a deletion
	spans   [][2]string
	log     []op
}

func newModel() *model { return &model{entries: map[string]*string{}} }

func (m *model) apply(o op) {
	m.log = append(m.log, o)
	switch o.kind {
	case 'p':
		v := o.v
		m.entries[o.k] = &v
	case 'd':
		m.entries[o.k] = nil
	case 'r':
		for k := range m.entries {
			if k >= o.lo && k < o.hi {
				delete(m.entries, k)
			}
		}
		m.spans = append(m.spans, [2]string{o.lo, o.hi})
	}
}

func (m *model) covered(k string) bool {
	for _, sp := range m.spans {
		if k >= sp[0] && k < sp[1] {
			return true
		}
	}
	return false
}

func (m *model) show(k string) string {
	if v := m.entries[k]; v != nil {
		return k + "=" + *v
	}
	return k + "-"
}

func (m *model) lookup(k string) string {
	if _, ok := m.entries[k]; ok {
		return m.show(k)
	}
	if m.covered(k) {
		return k + "-"
	}
	return k + "?"
}

func (m *model) keys() []string {
	var keys []string
	for k := range m.entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (m *model) sorted() string {
	var out []string
	for _, k := range m.keys() {
		out = append(out, m.show(k))
	}
	return strings.Join(out, " ")
}

// view is what view over layers (the top one first) gives in [lo, hi).
func modelView(layers []*model, lo, hi string) string {
	var kvs [][2]string // key, shown
	var spans []string
	for i, m := range layers {
	keys:
		for _, k := range m.keys() {
			if k < lo || k >= hi {
				continue
			}
			for _, upper := range layers[:i] {
				if !strings.HasSuffix(upper.lookup(k), "?") {
					continue keys
				}
			}
			kvs = append(kvs, [2]string{k, m.show(k)})
		}
		for _, sp := range m.spans {
			spans = append(spans, fmt.Sprintf("[%s,%s)", sp[0], sp[1]))
		}
	}
	slices.SortFunc(kvs, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	var out []string
	for _, e := range kvs {
		out = append(out, e[1])
	}
	return strings.Join(append(out, spans...), " ")
}

// applyTo makes the write o to ov.
func (o op) applyTo(t *testing.T, ov *overlay) {
	switch o.kind {
	case 'p':
		mustPut(t, ov, o.k, o.v)
	case 'd':
		mustDel(t, ov, o.k)
	case 'r':
		ov.deleteRange([]byte(o.lo), []byte(o.hi))
	}
}

// fakeBackend is the committed state for Store.mutations: Scan only.
type fakeBackend struct {
	Backend
	data map[string]bool
}

func (b fakeBackend) Scan(lo, hi []byte, fn func(k, v []byte) error) error {
	var keys []string
	for k := range b.data {
		if k >= string(lo) && k < string(hi) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn([]byte(k), nil); err != nil {
			return err
		}
	}
	return nil
}

// TestOverlayModel runs random writes and reads against an overlay and
// the model: reads of a frozen overlay, then of a live one over it, then
// of the two put together by under; each read and sorted must agree with
// the model, and so must the mutations of the frozen overlay.
func TestOverlayModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 60 {
		space, ops := 30, 200 // keys often written again
		if round%4 == 3 {
			space, ops = 4000, 3000 // trees of several levels
		}
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			key := func() string { return fmt.Sprintf("%04d", rng.IntN(space)) }
			bound := func() string { return key()[:1+rng.IntN(4)] }
			committed := map[string]bool{}
			for range space / 3 {
				committed[key()] = true
			}

			frozen, fm := newOverlay(), newModel()
			check := func(o *overlay, layers []*overlay, models []*model) {
				t.Helper()
				switch r := rng.IntN(100); {
				case r < 70:
					k := key()
					if rng.IntN(4) == 0 {
						k = bound()
					}
					expect(t, "lookup", lookupString(o, k), models[0].lookup(k))
				case r < 90:
					lo, hi := bound(), bound()
					if lo > hi {
						lo, hi = hi, lo
					}
					expect(t, "view", dumpView(layers, lo, hi), modelView(models, lo, hi))
				default:
					expect(t, "sorted", dumpSorted(o), models[0].sorted())
				}
			}
			randomOps(t, rng, ops, key, bound, func(w op) {
				w.applyTo(t, frozen)
				fm.apply(w)
				if rng.IntN(3) == 0 {
					check(frozen, []*overlay{frozen}, []*model{fm})
				}
			})
			expect(t, "frozen sorted", dumpSorted(frozen), fm.sorted())
			checkMutations(t, frozen, fm, committed)

			live, lm := newOverlay(), newModel()
			randomOps(t, rng, ops, key, bound, func(w op) {
				w.applyTo(t, live)
				lm.apply(w)
				if rng.IntN(3) == 0 {
					check(live, []*overlay{live, frozen}, []*model{lm, fm})
				}
			})
			expect(t, "two layers", dumpView([]*overlay{live, frozen}, "", "9999~"), modelView([]*model{lm, fm}, "", "9999~"))

			um := newModel()
			for _, w := range append(fm.log, lm.log...) {
				um.apply(w)
			}
			o := under(frozen, live)
			expect(t, "under sorted", dumpSorted(o), um.sorted())
			for range 50 {
				k := key()
				expect(t, "under lookup", lookupString(o, k), um.lookup(k))
			}
			expect(t, "under view", dumpView([]*overlay{o}, "", "9999~"), modelView([]*model{um}, "", "9999~"))
		})
	}
}

// randomOps makes n random writes, calling do with each.
func randomOps(t *testing.T, rng *rand.Rand, n int, key, bound func() string, do func(op)) {
	for i := range n {
		switch r := rng.IntN(100); {
		case r < 70:
			do(op{kind: 'p', k: key(), v: fmt.Sprint(i)})
		case r < 95:
			do(op{kind: 'd', k: key()})
		default:
			lo, hi := bound(), bound()
			if lo >= hi {
				continue
			}
			do(op{kind: 'r', lo: lo, hi: hi})
		}
	}
}

// checkMutations checks Store.mutations of the frozen overlay o against
// the model m over the committed keys, the records read in place and
// gathered (see gather).
func checkMutations(t *testing.T, o *overlay, m *model, committed map[string]bool) {
	t.Helper()
	for _, least := range []int{math.MaxInt, 0} {
		checkMutationsFrom(t, o, m, committed, least)
	}
}

// checkMutationsFrom is checkMutations with gatherMin set to least.
func checkMutationsFrom(t *testing.T, o *overlay, m *model, committed map[string]bool, least int) {
	t.Helper()
	defer func(was int) { gatherMin = was }(gatherMin)
	gatherMin = least
	s := &Store{b: fakeBackend{data: committed}}
	each, err := s.mutations(o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, mu := range collect(each) {
		got = append(got, show(mu.Key, mu.Val, mu.Delete))
	}
	want := map[string]string{}
	for k := range committed {
		if _, ok := m.entries[k]; !ok && m.covered(k) {
			want[k] = k + "-"
		}
	}
	for k := range m.entries {
		want[k] = m.show(k)
	}
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var exp []string
	for _, k := range keys {
		exp = append(exp, want[k])
	}
	expect(t, fmt.Sprintf("mutations (gatherMin %d)", least), strings.Join(got, " "), strings.Join(exp, " "))
}
