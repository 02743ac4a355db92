package over

import (
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/planner/plan"
)

// The peer groups of DENSE_RANK. A row's dense rank is the number of
// distinct ORDER BY prefixes before its own, which the counted tree of
// rows does not give (it counts rows), so each partition also keeps, while
// DENSE_RANK is computed, a tree of its distinct prefixes with one copy
// each: a prefix's rank there is the number of peer groups before it.

// needsGroupTree reports whether the operator keeps the trees of peer
// groups: it computes DENSE_RANK, or its frame is a GROUPS frame.
func (cfg *Config) needsGroupTree() bool {
	if cfg.Frame.Groups {
		return true
	}
	for _, f := range cfg.Funcs {
		if f.Kind == plan.WinDenseRank {
			return true
		}
	}
	return false
}

// groupTree returns p's tree of peer groups, created empty when new.
func (o *Agg) groupTree(p *ordtree.Partition) *ordtree.Tree {
	g := o.groups[p]
	if g == nil {
		g = &ordtree.Tree{}
		o.groups[p] = g
	}
	return g
}

// groupAdded records that p gained the distinct row e: its peer group
// joins p's groups if it is new.
func (o *Agg) groupAdded(p *ordtree.Partition, e ordtree.Entry) error {
	if o.groups == nil {
		return nil
	}
	g := o.groupTree(p)
	key := ordtree.KeyOf(e.S[:e.OLen])
	if _, n := g.Find(key); n > 0 {
		return nil
	}
	_, _, err := g.Add(key, 1, -1, e.OLen, &o.groupGauge)
	return err
}

// groupRemoved records that p lost its last copy of a row of the peer
// group prefix: the group leaves p's groups when no row of it is left.
func (o *Agg) groupRemoved(p *ordtree.Partition, prefix string) error {
	if o.groups == nil {
		return nil
	}
	key := ordtree.KeyOf(prefix)
	if rank, _ := p.Tree.Find(key); rank < p.Tree.Total {
		if cur, _ := p.Tree.SeekRank(rank); cur.Entry().S[:cur.Entry().OLen] == prefix {
			return nil // a peer is left
		}
	}
	g := o.groupTree(p)
	if _, _, err := g.Add(key, -1, -1, 0, &o.groupGauge); err != nil {
		return err
	}
	if g.Total == 0 {
		delete(o.groups, p)
	}
	return nil
}

// groupsBefore returns the number of peer groups of the partition whose
// group tree is g before the group of the row e.
func groupsBefore(g *ordtree.Tree, e *ordtree.Entry) int64 {
	rank, _ := g.Find(ordtree.KeyOf(e.S[:e.OLen]))
	return rank
}

// peerStart returns the rank of the first peer of the row at rank r of
// tree.
func peerStart(tree *ordtree.Tree, r int64) int64 {
	cur, _ := tree.SeekRank(r)
	e := cur.Entry()
	start, _ := tree.Find(ordtree.KeyOf(e.S[:e.OLen]))
	return start
}

// groupOf returns the index of the peer group (from 0) of the row at rank
// r of p.
func (o *Agg) groupOf(p *ordtree.Partition, r int64) int64 {
	cur, _ := p.Tree.SeekRank(r)
	return groupsBefore(o.groups[p], cur.Entry())
}

// groupStart returns the rank of the first row of peer group j of p: 0
// for j <= 0, the partition's size past its last group.
func (o *Agg) groupStart(p *ordtree.Partition, j int64) int64 {
	g := o.groups[p]
	switch {
	case j <= 0:
		return 0
	case g == nil || j >= g.Total:
		return p.Tree.Total
	}
	cur, _ := g.SeekRank(j)
	rank, _ := p.Tree.Find(cur.Entry().Key)
	return rank
}

// groupSpan returns the ranks of the outputs a change of the rows with
// ORDER BY prefix prefix affects under a GROUPS frame: those of its own
// peer group, of the before groups before it and of the after groups after
// it (not counting its own, which may exist only before or only after the
// change, so that both cover the same unchanged rows).
func (o *Agg) groupSpan(p *ordtree.Partition, prefix string, before, after int64) (lo, hi int64) {
	g := o.groups[p]
	var gi, own int64
	if g != nil {
		gi, own = g.Find(ordtree.KeyOf(prefix))
	}
	return o.groupStart(p, gi-before), o.groupStart(p, gi+own+after)
}
