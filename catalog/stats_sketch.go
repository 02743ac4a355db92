package catalog

import (
	"fmt"

	"github.com/axiomhq/hyperloglog"
)

// sketchPrecision is the HyperLogLog precision of column sketches: 2^12
// registers, a standard error of about 1.6% — far finer than a cost model
// can use — in at most 4 KB per column (2^14 would take 16 KB for 0.8%).
// Sketches merge only at equal precision, so changing it makes stored
// sketches unmergeable.
const sketchPrecision = 12

// exactLimit is how many distinct values a column counts exactly before
// its builder switches to a dense HyperLogLog. Small domains (flags,
// channels, cities) are where an estimate's error shows most, and a set of
// 1,024 hashes costs a few KB. The library's own sparse mode would be as
// exact but re-sorts its list every few dozen inserts, repeats included,
// which makes it an order of magnitude slower per value.
const exactLimit = 1024

func newSketch(sparse bool) *hyperloglog.Sketch {
	sk, err := hyperloglog.NewSketch(sketchPrecision, sparse)
	if err != nil {
		panic(fmt.Sprintf("catalog: sketch precision %d: %v", sketchPrecision, err)) // a broken constant
	}
	return sk
}

// colSketch counts a column's distinct values: exactly, in a set of their
// hashes, up to exactLimit of them, then in a dense HyperLogLog whose
// insert is one register update.
type colSketch struct {
	exact map[uint64]struct{} // nil once dense
	dense *hyperloglog.Sketch // nil while exact
}

func newColSketch() colSketch { return colSketch{exact: map[uint64]struct{}{}} }

// add inserts value hashes.
func (c *colSketch) add(hashes []uint64) {
	if c.exact != nil {
		for i, h := range hashes {
			c.exact[h] = struct{}{}
			if len(c.exact) > exactLimit {
				c.toDense()
				c.addDense(hashes[i+1:])
				return
			}
		}
		return
	}
	c.addDense(hashes)
}

func (c *colSketch) addDense(hashes []uint64) {
	for _, h := range hashes {
		c.dense.InsertHash(h)
	}
}

func (c *colSketch) toDense() {
	c.dense = newSketch(false)
	for h := range c.exact {
		c.dense.InsertHash(h)
	}
	c.exact = nil
}

// merge adds what o counted.
func (c *colSketch) merge(o *colSketch) error {
	if o.exact != nil {
		hashes := make([]uint64, 0, len(o.exact))
		for h := range o.exact {
			hashes = append(hashes, h)
		}
		c.add(hashes)
		return nil
	}
	if c.exact != nil {
		c.toDense()
	}
	return c.dense.Merge(o.dense)
}

// estimate returns the number of distinct values counted.
func (c *colSketch) estimate() float64 {
	if c.exact != nil {
		return float64(len(c.exact))
	}
	return float64(c.dense.Estimate())
}

// marshal serializes the count as a HyperLogLog: a sparse one (which stays
// practically exact when merged later) while the count is exact.
func (c *colSketch) marshal() ([]byte, error) {
	if c.exact == nil {
		return c.dense.MarshalBinary()
	}
	sk := newSketch(true)
	for h := range c.exact {
		sk.InsertHash(h)
	}
	return sk.MarshalBinary()
}
