package exec

import "context"

// GroupMover is implemented by a Stateful operator that can take over, at
// a rescale, the in-memory state of its instance in the job that stopped
// at the checkpoint, so that only the key groups that change instance are
// read from the store.
//
// A rescale stops a job at a checkpoint's barrier, where nothing happened
// after the cut, and starts the job of the new plan from that checkpoint
// (the runtime's Job.StopAtCheckpoint and Restore). With a GroupMover, the
// stopped job hands its instances over instead of dropping them: the
// runtime matches each new instance with at most one old instance of the
// same operator (the one whose key groups overlap its own most), and after
// Open it calls AdoptGroups on the new instance, in place of Restore, with
// the old one. old's state is then exactly that of the checkpoint for the
// key groups it owned, held (its snapshot of the cut is written, and it
// saw nothing after it), so the new instance keeps what old holds of the
// groups it owns now (Env.KeyGroups), drops the rest — without writing
// deletions: those groups' entries belong to their new owners — and
// restores from r only the groups it owns outside held. Afterwards its
// state must be the one Restore(r, Env.KeyGroups) would have built, and
// its next snapshot must write what changed since the cut, as after a
// restore.
//
// AdoptGroups reports false, having changed nothing, when it cannot take
// old's state (old is not an instance of the same operator, configured
// alike): the runtime then calls Restore as for any resume. Either way
// the runtime closes old afterwards; an adopting operator leaves old
// holding nothing that Close would release from under it. Instances left
// without a match are closed; their groups are restored by their new
// owners.
type GroupMover interface {
	Stateful
	AdoptGroups(ctx context.Context, old Operator, held KeyGroupRange, r StateReader) (bool, error)
}

// Minus returns the key groups of r that are not in s: at most two
// ranges, in order, none of them empty.
func (r KeyGroupRange) Minus(s KeyGroupRange) []KeyGroupRange {
	if s.Lo >= s.Hi || s.Hi <= r.Lo || s.Lo >= r.Hi {
		if r.Lo >= r.Hi {
			return nil
		}
		return []KeyGroupRange{r}
	}
	var out []KeyGroupRange
	if s.Lo > r.Lo {
		out = append(out, KeyGroupRange{Lo: r.Lo, Hi: s.Lo})
	}
	if s.Hi < r.Hi {
		out = append(out, KeyGroupRange{Lo: s.Hi, Hi: r.Hi})
	}
	return out
}

// Overlap returns the number of key groups in both r and s.
func (r KeyGroupRange) Overlap(s KeyGroupRange) int {
	return max(0, min(r.Hi, s.Hi)-max(r.Lo, s.Lo))
}

// MatchInstances pairs the instances of a stage at parallelism to with
// those at parallelism from, to keep in place as many key groups as
// possible: match[i] is the old instance new instance i takes over, or
// -1. Each old instance goes to at most one new one. Ranges of key groups
// are contiguous and in instance order, so the best matching pairs them
// in order too: it is found by dynamic programming over the two
// sequences (at most NumKeyGroups² steps), ties going to the lower old
// instance.
func MatchInstances(from, to int) []int {
	match := make([]int, to)
	for i := range match {
		match[i] = -1
	}
	if from < 1 || to < 1 {
		return match
	}
	// best[a][b]: the most groups kept pairing the first a new instances
	// with the first b old ones.
	best := make([][]int, to+1)
	for a := range best {
		best[a] = make([]int, from+1)
	}
	overlap := func(a, b int) int {
		return KeyGroupsOf(a, to).Overlap(KeyGroupsOf(b, from))
	}
	for a := 1; a <= to; a++ {
		for b := 1; b <= from; b++ {
			best[a][b] = max(best[a-1][b], best[a][b-1], best[a-1][b-1]+overlap(a-1, b-1))
		}
	}
	for a, b := to, from; a > 0 && b > 0; {
		switch ov := overlap(a-1, b-1); {
		case ov > 0 && best[a][b] == best[a-1][b-1]+ov:
			match[a-1] = b - 1
			a, b = a-1, b-1
		case best[a][b] == best[a-1][b]:
			a--
		default:
			b--
		}
	}
	return match
}
