package kafka

import (
	"context"
	"errors"

	"github.com/eddysql/eddy/exec/internal/position"
)

// positionTag is the kind tag of a Kafka source's positions.
const positionTag = "kafka"

// Position implements exec.Positioned: the topic, the split (instance and
// parallelism, which decide the partitions read), and for each partition
// read the offset of the next message to return and the largest event
// time it returned (exec.PartitionedEventTime). A checkpoint records it,
// so a resumed query reads on from there: offsets live in eddy's
// checkpoints, not in a consumer group. With a group option, the offsets
// are also reported to the group, for monitoring (group.go).
func (s *Source) Position() ([]byte, error) {
	if s.rows == nil {
		return nil, errors.New("kafka connector: source is not open")
	}
	if s.grp != nil && s.started {
		s.grp.report(s.adm, s.cfg.Topic, s.parts, s.next)
	}
	w := position.NewWriter(positionTag)
	w.String(s.cfg.Topic)
	w.Uint(uint64(s.instance))
	w.Uint(uint64(s.par))
	w.Uint(uint64(len(s.parts)))
	for i, p := range s.parts {
		w.Uint(uint64(p))
		w.Uint(uint64(s.next[i]))
		w.Uint(uint64(s.et.max[i])) // noEventTime wraps to 1<<63
	}
	return w.Bytes(), nil
}

// Seek implements exec.Positioned: each partition the position records
// is read on from its offset; a partition added to the topic since is
// read from its startup offset. A position of another topic or split is
// refused with a *position.Error. It then lists the partitions' end
// offsets, for Exhausted.
func (s *Source) Seek(ctx context.Context, pos []byte) error {
	switch {
	case s.rows == nil:
		return errors.New("kafka connector: source is not open")
	case s.started:
		return errors.New("kafka connector: Seek after Next")
	}
	src := "kafka source " + s.cfg.Topic
	r := position.NewReader(pos, positionTag, src)
	topic, inst, par, n := r.String(), r.Uint(), r.Uint(), r.Uint()
	if n > uint64(len(pos)) {
		return position.Errorf(src, "the position is damaged (%d partitions)", n)
	}
	type at struct{ p, off, maxTs uint64 }
	offs := make([]at, 0, n)
	for range n {
		offs = append(offs, at{r.Uint(), r.Uint(), r.Uint()})
	}
	if err := r.Done(); err != nil {
		return err
	}
	switch {
	case topic != s.cfg.Topic:
		return position.Errorf(src, "the position is of topic %q", topic)
	case inst != uint64(s.instance) || par != uint64(s.par):
		return position.Errorf(src, "the position is of split %d of %d, not %d of %d", inst, par, s.instance, s.par)
	}
	for _, o := range offs {
		i := s.slotOf(int32(o.p))
		if i < 0 {
			return position.Errorf(src, "partition %d is not read by split %d of %d (did the topic lose partitions?)", o.p, s.instance, s.par)
		}
		s.next[i], s.et.max[i] = int64(o.off), int64(o.maxTs)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// A listing that fails says nothing: the source is then not
	// exhausted, and the query catches up before it answers.
	caught, err := s.caughtUp(ctx)
	s.exhausted = err == nil && caught
	return nil
}

// Exhausted implements exec.Exhausted: every partition the source reads
// had no message past its position when Seek placed it there (the end
// offsets, or with read_committed the last stable offsets, listed then).
// A partition whose last messages are a transaction's marker counts as
// not exhausted until a read has passed the marker, which errs on the
// safe side.
func (s *Source) Exhausted() bool { return s.exhausted }
