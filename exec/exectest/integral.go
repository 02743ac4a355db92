package exectest

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// Counted is a distinct row with its multiplicity.
type Counted struct {
	Row []types.Datum
	N   int64
}

// Integral integrates an input changelog: the multiset of rows it holds,
// which an oracle recomputes the expected output from by brute force.
type Integral struct {
	Types []types.T
	rows  map[string]*Counted
}

// NewIntegral returns an empty integral of rows of the given types.
func NewIntegral(ts []types.T) *Integral {
	return &Integral{Types: ts, rows: map[string]*Counted{}}
}

// Add integrates a chunk's changes.
func (b *Integral) Add(ch exec.Chunk) {
	if ch.NumRows() == 0 {
		return
	}
	for i, row := range types.Rows(ch.Batch, b.Types) {
		k := Key(row)
		e := b.rows[k]
		if e == nil {
			e = &Counted{Row: row}
			b.rows[k] = e
		}
		if e.N += ch.Op(i).Weight(); e.N == 0 {
			delete(b.rows, k)
		}
	}
}

// Counted returns the distinct rows held with their multiplicities, in no
// particular order.
func (b *Integral) Counted() []*Counted {
	out := make([]*Counted, 0, len(b.rows))
	for _, e := range b.rows {
		out = append(out, e)
	}
	return out
}

// Rows returns the rows held, a row held n times n times, in no
// particular order.
func (b *Integral) Rows() [][]types.Datum {
	var out [][]types.Datum
	for _, e := range b.rows {
		for range e.N {
			out = append(out, e.Row)
		}
	}
	return out
}
