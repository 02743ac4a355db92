package ordtree

import "slices"

// Netter groups a chunk's changes by partition and nets them by key,
// for the operators whose partitions keep their rows in a Tree (Top-N
// and window aggregates). Its slices are scratch reused across chunks.
type Netter struct {
	sorted []Delta // the changes grouped by partition
	ends   []int32 // by partition: the end of its changes in sorted
	net    []Delta // one partition's changes, netted by key
}

// Each groups deltas by partition (a counting sort over parts partitions,
// numbered by first touch), sorts Each partition's changes by key, nets
// those of equal keys (a sort key holds the whole row, so changes with
// equal keys are of equal rows, and any of them can stand for the net
// change), and calls f with Each partition that changed and its net
// changes (sorted by key, none zero). It stops at f's first error.
func (n *Netter) Each(deltas []Delta, parts int, f func(p int, net []Delta) error) error {
	ends := slices.Grow(n.ends[:0], parts+1)[:parts+1]
	clear(ends)
	for _, d := range deltas {
		ends[d.Part+1]++
	}
	for p := 1; p < len(ends); p++ {
		ends[p] += ends[p-1]
	}
	n.sorted = slices.Grow(n.sorted[:0], len(deltas))[:len(deltas)]
	for _, d := range deltas {
		n.sorted[ends[d.Part]] = d
		ends[d.Part]++
	}
	n.ends = ends // ends[p] is now where partition p's changes end
	start := int32(0)
	for p, end := range ends[:parts] {
		ds := n.sorted[start:end]
		start = end
		if len(ds) > 1 {
			slices.SortFunc(ds, func(a, b Delta) int { return a.Compare(b.Key) })
		}
		n.net = n.net[:0]
		for _, d := range ds {
			if k := len(n.net); k > 0 && n.net[k-1].S == d.S {
				n.net[k-1].W += d.W
				continue
			}
			n.net = append(n.net, d)
		}
		n.net = slices.DeleteFunc(n.net, func(d Delta) bool { return d.W == 0 })
		if len(n.net) == 0 {
			continue
		}
		if err := f(p, n.net); err != nil {
			return err
		}
	}
	return nil
}

// Reset empties the scratch for the next chunk, dropping its references
// to the chunk's keys.
func (n *Netter) Reset() {
	clear(n.sorted)
	clear(n.net)
	n.sorted, n.net = n.sorted[:0], n.net[:0]
}

// Release drops the scratch.
func (n *Netter) Release() { n.sorted, n.ends, n.net = nil, nil, nil }
