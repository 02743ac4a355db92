package dedup

import (
	"context"
	"reflect"

	"github.com/eddysql/eddy/exec"
)

// Rescaling in place (exec.GroupMover). The exact set is split by key
// group — each entry is in the group of its hash, the exchange's — but
// the time buckets and their Bloom filters are not: a bucket's filter
// holds the hashes of every key group's entries of its times, and a bit
// cannot be taken out of it. So the new instance takes over the old
// instance's entries of the key groups it keeps — their keys, times and
// hashes, already in memory — and builds its buckets and filters anew
// over them, as Restore builds them over the entries it reads (the same
// buckets, filter sizes and filter bits); the entries of the groups it
// no longer owns are forgotten without a deletion (they are their new
// owners'). Then it restores only the key groups it gains from the store.
// Nothing is read, decoded or hashed again for the kept groups.
//
// The old instance stopped at the checkpoint's barrier with its snapshot
// written, so its live entries are exactly the checkpoint's of the groups
// it owned, all written, and nothing is listed to put or delete. As after
// Restore, the new instance starts with no watermark and no processing
// time seen (a restore does not know them): the next watermark or chunk
// expires what it has passed.
//
// It reports false (a full restore) for an old instance that is not a
// dedup operator configured alike, or one with changes since its last
// snapshot (entries listed to put, or deletions to write).

var _ exec.GroupMover = (*Operator)(nil)

// AdoptGroups implements exec.GroupMover.
func (o *Operator) AdoptGroups(ctx context.Context, old exec.Operator, held exec.KeyGroupRange, r exec.StateReader) (bool, error) {
	p, ok := old.(*Operator)
	switch {
	case !ok || p == o || !p.open || !o.open:
		return false, nil
	case !reflect.DeepEqual(p.cfg, o.cfg):
		return false, nil
	case len(p.d.added) > 0 || len(p.d.delEnds) > 0:
		return false, nil // not as of a checkpoint
	}
	groups := o.env.KeyGroups
	// The kept entries, in the order of their buckets and, within one, of
	// arrival: each goes into the new buckets as a restored entry does.
	for _, bi := range p.bkt.live {
		b := &p.bkt.pool[bi]
		for _, id := range b.entries {
			e := &p.set.entries[id]
			if e.flags&live == 0 || !groups.Contains(exec.KeyGroup(e.hash)) {
				continue
			}
			o.adoptEntry(e, p.keyOf(e))
		}
	}
	p.set, p.bkt, p.d = exactSet{}, buckets{}, delta{}
	for _, g := range groups.Minus(held) {
		if err := o.Restore(ctx, r, g); err != nil {
			return true, err
		}
	}
	o.updateMetrics()
	return true, nil
}

// adoptEntry adds a written entry of key bytes key, taken from the old
// instance, to the exact set and the buckets, as restorer.flush adds a
// restored one.
func (o *Operator) adoptEntry(e *entry, key []byte) {
	bi := o.bkt.find(e.time, minBucketKeys)
	b := &o.bkt.pool[bi]
	off := len(b.keys)
	b.keys = append(b.keys, key...)
	o.bkt.keyBytes += int64(len(key))
	id := o.add(entry{hash: e.hash, time: e.time, bucket: bi, off: uint32(off), n: uint32(len(key))}, b)
	o.set.entries[id].flags = o.set.entries[id].flags&^dirty | written
	o.d.added = o.d.added[:0]
}
