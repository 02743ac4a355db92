package exec

import "slices"

// deltaNetter groups a chunk's changes by partition and nets them by key,
// for the operators whose partitions keep their rows in a topnTree (Top-N
// and window aggregates). Its slices are scratch reused across chunks.
type deltaNetter struct {
	sorted []topnDelta // the changes grouped by partition
	ends   []int32     // by partition: the end of its changes in sorted
	net    []topnDelta // one partition's changes, netted by key
}

// each groups deltas by partition (a counting sort over parts partitions,
// numbered by first touch), sorts each partition's changes by key, nets
// those of equal keys (a sort key holds the whole row, so changes with
// equal keys are of equal rows, and any of them can stand for the net
// change), and calls f with each partition that changed and its net
// changes (sorted by key, none zero). It stops at f's first error.
func (n *deltaNetter) each(deltas []topnDelta, parts int, f func(p int, net []topnDelta) error) error {
	ends := slices.Grow(n.ends[:0], parts+1)[:parts+1]
	clear(ends)
	for _, d := range deltas {
		ends[d.part+1]++
	}
	for p := 1; p < len(ends); p++ {
		ends[p] += ends[p-1]
	}
	n.sorted = slices.Grow(n.sorted[:0], len(deltas))[:len(deltas)]
	for _, d := range deltas {
		n.sorted[ends[d.part]] = d
		ends[d.part]++
	}
	n.ends = ends // ends[p] is now where partition p's changes end
	start := int32(0)
	for p, end := range ends[:parts] {
		ds := n.sorted[start:end]
		start = end
		if len(ds) > 1 {
			slices.SortFunc(ds, func(a, b topnDelta) int { return a.compare(b.topnKey) })
		}
		n.net = n.net[:0]
		for _, d := range ds {
			if k := len(n.net); k > 0 && n.net[k-1].key == d.key {
				n.net[k-1].w += d.w
				continue
			}
			n.net = append(n.net, d)
		}
		n.net = slices.DeleteFunc(n.net, func(d topnDelta) bool { return d.w == 0 })
		if len(n.net) == 0 {
			continue
		}
		if err := f(p, n.net); err != nil {
			return err
		}
	}
	return nil
}

// reset empties the scratch for the next chunk, dropping its references
// to the chunk's keys.
func (n *deltaNetter) reset() {
	clear(n.sorted)
	clear(n.net)
	n.sorted, n.net = n.sorted[:0], n.net[:0]
}

// release drops the scratch.
func (n *deltaNetter) release() { n.sorted, n.ends, n.net = nil, nil, nil }
