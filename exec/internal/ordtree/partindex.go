package ordtree

import (
	"hash/maphash"

	"github.com/eddysql/eddy/exec/internal/probe"
)

// partIndex finds an operator's partitions by encoded key: the
// partitions in a slice, numbered, behind an open-addressing index of
// their keys' hashes (probe.Index). A Go map of strings cost q19, whose
// 600K partitions take a row each of most chunks, a tenth of its CPU:
// two or three cache misses a lookup and the map's growth; the index
// costs one, and the key comparison a second.
type partIndex struct {
	idx   probe.Index
	parts []*Partition  // by number; nil where a dropped one was
	free  []int32       // numbers of dropped partitions, reused first
	seed  *maphash.Seed // made with the first hash
}

// seedOf returns the index's hash seed, making it.
func (x *partIndex) seedOf() maphash.Seed {
	if x.seed == nil {
		s := maphash.MakeSeed()
		x.seed = &s
	}
	return *x.seed
}

// hash returns the hash of encoded key pk.
func (x *partIndex) hash(pk []byte) uint64 { return maphash.Bytes(x.seedOf(), pk) }

// hashString returns the hash of encoded key pk.
func (x *partIndex) hashString(pk string) uint64 { return maphash.String(x.seedOf(), pk) }

// find returns the partition of key pk, whose hash is h, or nil.
func (x *partIndex) find(h uint64, pk string) *Partition {
	id := x.idx.Find(h, func(id int32) bool { return x.parts[id].Key == pk })
	if id < 0 {
		return nil
	}
	return x.parts[id]
}

// findBytes is find for a key in bytes.
func (x *partIndex) findBytes(h uint64, pk []byte) *Partition {
	id := x.idx.Find(h, func(id int32) bool { return x.parts[id].Key == string(pk) })
	if id < 0 {
		return nil
	}
	return x.parts[id]
}

// add indexes p, whose key's hash is h.
func (x *partIndex) add(p *Partition, h uint64) {
	var id int32
	if k := len(x.free); k > 0 {
		id = x.free[k-1]
		x.free = x.free[:k-1]
		x.parts[id] = p
	} else {
		id = int32(len(x.parts))
		x.parts = append(x.parts, p)
	}
	p.id, p.hash = id, h
	x.idx.Insert(h, id)
}

// remove forgets p.
func (x *partIndex) remove(p *Partition) {
	x.idx.Remove(p.hash, p.id)
	x.parts[p.id] = nil
	x.free = append(x.free, p.id)
}

// len returns the number of partitions indexed.
func (x *partIndex) len() int { return len(x.parts) - len(x.free) }

// each calls fn for every partition, in no particular order, until fn
// returns an error.
func (x *partIndex) each(fn func(p *Partition) error) error {
	for _, p := range x.parts {
		if p == nil {
			continue
		}
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}
