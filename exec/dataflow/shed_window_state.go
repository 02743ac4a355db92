package dataflow

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/eddysql/eddy/storage"
)

// Window fates in checkpoints. A job that sheds whole windows and resumes
// from a checkpoint reads again, at each source instance, the rows after
// the instance's barrier: the windows those rows fall in may have been
// decided before the checkpoint, and must meet the same fate, or a window
// kept before would lose its later rows (or a window dropped before would
// be emitted with only them). So when a source instance records its
// position for a barrier, it records the job's schedule beside it, and the
// job resumed takes the schedule back before any task runs.
//
// The instances record at different times, each the schedule as it is
// then: later versions extend earlier ones (an entry is only ever added
// beyond the frontier, or replaces the last one when no window was decided
// under it), but forget the entries before the windows the watermarks have
// passed — which an instance resumed behind them may need. The schedule
// resumed is therefore the latest version recorded, preceded by the
// entries of earlier versions before its first, and the frontier the
// largest recorded.

// fatesKeyPrefix starts the keys of the schedules recorded in a source's
// position table (whose positions are keyed by the 2-byte instance alone).
var fatesKeyPrefix = []byte("window-fates/")

// fatesVersion is the first byte of a recorded schedule.
const fatesVersion = 1

// fatesKey is the key of instance key's recorded schedule.
func fatesKey(instance []byte) []byte {
	return append(slices.Clip(fatesKeyPrefix), instance...)
}

// fatesRecord is one recorded version of a job's schedule.
type fatesRecord struct {
	seq      uint64 // the version: how many times the schedule changed
	frontier int64
	sched    fateSchedule
}

// encode records f's schedule and frontier.
func (f *windowFates) encode() []byte {
	f.mu.Lock()
	seq, frontier, s := f.seq, f.frontier.Load(), f.sched.Load()
	f.mu.Unlock()
	b := []byte{fatesVersion}
	b = binary.AppendUvarint(b, seq)
	b = binary.AppendVarint(b, frontier)
	b = binary.AppendUvarint(b, uint64(len(s.from)))
	for i := range s.from {
		b = binary.AppendVarint(b, s.from[i])
		b = binary.AppendUvarint(b, uint64(math.Round(s.frac[i]/fractionStep)))
	}
	return b
}

// errBadFates is the error of a recorded schedule that does not decode.
var errBadFates = errors.New("damaged record of the windows load shedding drops")

func decodeFates(b []byte) (fatesRecord, error) {
	var r fatesRecord
	if len(b) == 0 || b[0] != fatesVersion {
		return r, errBadFates
	}
	b = b[1:]
	var n int
	if r.seq, n = binary.Uvarint(b); n <= 0 {
		return r, errBadFates
	}
	b = b[n:]
	if r.frontier, n = binary.Varint(b); n <= 0 {
		return r, errBadFates
	}
	b = b[n:]
	count, n := binary.Uvarint(b)
	if n <= 0 || count > uint64(len(b)) {
		return r, errBadFates
	}
	b = b[n:]
	for range count {
		from, n := binary.Varint(b)
		if n <= 0 {
			return r, errBadFates
		}
		b = b[n:]
		steps, n := binary.Uvarint(b)
		if n <= 0 || float64(steps)*fractionStep > 1+fractionStep/2 || len(r.sched.from) > 0 && from <= r.sched.from[len(r.sched.from)-1] {
			return r, errBadFates
		}
		b = b[n:]
		r.sched.from, r.sched.frac = append(r.sched.from, from), append(r.sched.frac, float64(steps)*fractionStep)
	}
	if len(b) != 0 {
		return r, errBadFates
	}
	return r, nil
}

// restore takes back the schedule the source instances recorded in table
// with their last committed positions; once per job, before any task runs.
func (f *windowFates) restore(table storage.StateTable) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.restored {
		return nil
	}
	f.restored = true
	var recs []fatesRecord
	err := table.Scan(fatesKeyPrefix, func(k, v []byte) error {
		r, err := decodeFates(v)
		if err != nil {
			return fmt.Errorf("%w (key %q)", err, k)
		}
		recs = append(recs, r)
		return nil
	})
	if err != nil || len(recs) == 0 {
		return err
	}
	slices.SortFunc(recs, func(a, b fatesRecord) int { return cmp.Compare(b.seq, a.seq) })
	sched := recs[0].sched
	frontier, seq := recs[0].frontier, recs[0].seq
	for _, r := range recs[1:] {
		frontier = max(frontier, r.frontier)
		first := int64(math.MaxInt64)
		if len(sched.from) > 0 {
			first = sched.from[0]
		}
		k := 0
		for k < len(r.sched.from) && r.sched.from[k] < first {
			k++
		}
		sched.from = append(slices.Clip(r.sched.from[:k]), sched.from...)
		sched.frac = append(slices.Clip(r.sched.frac[:k]), sched.frac...)
	}
	f.seq = seq
	f.frontier.Store(frontier)
	f.sched.Store(&sched)
	return nil
}
