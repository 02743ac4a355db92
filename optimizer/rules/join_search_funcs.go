package rules

import (
	"math/bits"
	"slices"
)

// This file holds ReorderJoins' two searches over a join graph: exhaustive
// dynamic programming for small trees, greedy operator ordering for large
// ones (MaxExhaustiveJoin is the switch point).

// exhaustive is Selinger-style dynamic programming over every subset of
// the relations, bushy trees included (DPsub): the best plan of a set is
// the cheapest split into two subsets whose best plans are known, subsets
// taken in increasing numeric order, so that every proper subset of a set
// comes before it. A split without a linking condition (a cross product)
// is considered only when a set has no linked split. It takes time in
// 3^n, which MaxExhaustiveJoin bounds.
func (g *joinGraph) exhaustive() *joinTree {
	n := len(g.rels)
	full := uint64(1)<<n - 1
	var linkMask []uint64 // the relations of each linking conjunct
	var linkSel []float64
	for p, rs := range g.condRels {
		if len(rs) >= 2 {
			var m uint64
			for _, r := range rs {
				m |= 1 << r
			}
			linkMask, linkSel = append(linkMask, m), append(linkSel, g.sel[p])
		}
	}
	connected := func(l, r uint64) bool {
		for _, m := range linkMask {
			if m&l != 0 && m&r != 0 && m&^(l|r) == 0 {
				return true
			}
		}
		return false
	}
	type entry struct {
		cost        float64
		left, right uint64
		ok          bool
	}
	best := make([]entry, full+1)
	for i := range n {
		best[1<<i] = entry{ok: true}
	}
	for s := uint64(1); s <= full; s++ {
		if bits.OnesCount64(s) < 2 {
			continue
		}
		raw := 1.0
		for i := range n {
			if s&(1<<i) != 0 {
				raw *= g.size[i]
			}
		}
		for k, m := range linkMask {
			if m&^s == 0 {
				raw *= linkSel[k]
			}
		}
		rows := max(raw, 1)
		for _, linked := range []bool{true, false} {
			found := false
			for l := (s - 1) & s; l > 0; l = (l - 1) & s {
				r := s &^ l
				if l > r { // each split once, the smaller set on the left
					continue
				}
				g.evalled++
				lp, rp := best[l], best[r]
				if !lp.ok || !rp.ok || (linked && !connected(l, r)) {
					continue
				}
				c := lp.cost + rp.cost + rows
				if cur := best[s]; !cur.ok || c < cur.cost {
					best[s] = entry{cost: c, left: l, right: r, ok: true}
				}
				found = true
			}
			if found {
				break
			}
		}
	}
	var tree func(s uint64) *joinTree
	tree = func(s uint64) *joinTree {
		e := best[s]
		if e.left == 0 {
			return g.leaf(bits.TrailingZeros64(s))
		}
		l, r := tree(e.left), tree(e.right)
		g.own(l)
		g.own(r)
		return g.join(l, r)
	}
	return tree(full)
}

// greedy is greedy operator ordering (GOO; Fegaras, DEXA 1998), the
// fallback PostgreSQL's GEQO and the adaptive optimizers of Neumann and
// Radke (SIGMOD 2018) also leave exhaustive search for above a size.
// Starting from the relations, it joins at each step the two subtrees
// linked by a condition whose join result is smallest, until one tree is
// left; when no condition links any two, it joins the two smallest (a
// cross product). It builds bushy trees, which keep intermediate results
// (and so join state) smaller than a left-deep chain, and it costs each
// step only the pairs a conjunct links: O(n × conjuncts) estimates in
// all, milliseconds for a hundred relations. A non-empty start (two
// relations) is joined first, for the alternatives EXPLAIN shows.
func (g *joinGraph) greedy(start []int) *joinTree {
	var trees []*joinTree // every tree built; nil once joined into another
	for i := range g.rels {
		t := g.leaf(i)
		g.own(t)
		trees = append(trees, t)
	}
	// own hands out consecutive ids and nothing else calls it during the
	// search, so a tree's id less the first leaf's is its index in trees.
	base := trees[0].id
	byID := func(id int) int { return id - base }
	live := len(trees)
	merge := func(a, b int) {
		t := g.join(trees[a], trees[b])
		trees[a], trees[b] = nil, nil
		g.own(t)
		trees = append(trees, t)
		live--
	}
	if len(start) == 2 {
		merge(start[0], start[1])
	}
	type pair struct{ a, b int }
	for live > 1 {
		var cands []pair
		for _, rs := range g.condRels {
			if len(rs) < 2 {
				continue
			}
			a, b := byID(g.owner[rs[0]]), -1
			ok := true
			for _, r := range rs[1:] {
				t := byID(g.owner[r])
				switch {
				case t == a:
				case b < 0 || t == b:
					b = t
				default:
					ok = false
				}
			}
			if ok && b >= 0 {
				cands = append(cands, pair{min(a, b), max(a, b)})
			}
		}
		slices.SortFunc(cands, func(x, y pair) int {
			if x.a != y.a {
				return x.a - y.a
			}
			return x.b - y.b
		})
		cands = slices.Compact(cands)
		pick, bestRaw := pair{-1, -1}, 0.0
		for _, c := range cands {
			if raw := g.joinRows(trees[c.a], trees[c.b]); pick.a < 0 || raw < bestRaw {
				pick, bestRaw = c, raw
			}
		}
		if pick.a < 0 { // nothing linked: a cross product of the two smallest
			for i, t := range trees {
				switch {
				case t == nil:
				case pick.a < 0 || t.raw < trees[pick.a].raw:
					pick.a, pick.b = i, pick.a
				case pick.b < 0 || t.raw < trees[pick.b].raw:
					pick.b = i
				}
			}
			pick = pair{min(pick.a, pick.b), max(pick.a, pick.b)}
		}
		merge(pick.a, pick.b)
	}
	return trees[len(trees)-1]
}
