package nexmark

import (
	"context"
	"errors"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/internal/position"
)

var _ exec.Exhausted = (*Source)(nil)

// positionTag is the kind tag of a nexmark source's positions.
const positionTag = "nexmark"

// Position implements exec.Positioned. A nexmark position is the split's
// next event number in the global sequence, with what decides the events
// and the split: the table, seed, events, first_event_rate and base_time
// options, the instance and the parallelism, and above one split the
// events per block the splits take in turn (SplitBlock; a position of
// splits that took every P-th event has none, and is refused). The rate, the batch size,
// the declared columns and the generate option are not part of it: they
// change when events come, how they are cut into chunks and what work is
// done besides, not which event comes next.
func (s *Source) Position() ([]byte, error) {
	if !s.opened {
		return nil, errNotOpen
	}
	w := position.NewWriter(positionTag)
	s.writeIdentity(w)
	w.Uint(s.cur.n)
	return w.Bytes(), nil
}

// writeIdentity writes the options and the split a position belongs to.
func (s *Source) writeIdentity(w *position.Writer) {
	w.String(s.cfg.Table)
	w.Uint(uint64(s.cfg.Seed))
	w.Uint(uint64(s.cfg.Events))
	w.Uint(uint64(s.cfg.FirstEventRate))
	w.Uint(uint64(s.cfg.BaseTime))
	w.Uint(uint64(s.instance))
	w.Uint(uint64(s.parallelism))
	if s.parallelism > 1 {
		w.Uint(s.cur.block)
	}
}

// Seek implements exec.Positioned: the split goes on from the event
// number pos records, in O(1). With a rate, the wall-clock schedule
// restarts at that event, which is due at once: the events before it are
// not waited for again. A position of another table, other options or
// another split, or past the split's end, is refused with a
// *position.Error.
func (s *Source) Seek(ctx context.Context, pos []byte) error {
	switch {
	case s.closed:
		return errClosed
	case !s.opened:
		return errNotOpen
	case s.started:
		return errors.New("nexmark connector: Seek after Next")
	}
	src := "nexmark source " + s.cfg.Table
	r := position.NewReader(pos, positionTag, src)
	table, seed, events := r.String(), int64(r.Uint()), int64(r.Uint())
	fer, base := int64(r.Uint()), int64(r.Uint())
	inst, par := r.Uint(), r.Uint()
	block := uint64(SplitBlock)
	if par > 1 {
		block = r.Uint()
	}
	n := r.Uint()
	if err := r.Done(); err != nil {
		return err
	}
	differs := func(what string, got, want any) error {
		return position.Errorf(src, "the position is of a source with %s %v, not %v", what, got, want)
	}
	switch {
	case table != s.cfg.Table:
		return differs("table", quote(table), quote(s.cfg.Table))
	case seed != s.cfg.Seed:
		return differs("seed", seed, s.cfg.Seed)
	case events != s.cfg.Events:
		return differs("events", events, s.cfg.Events)
	case fer != s.cfg.FirstEventRate:
		return differs("first_event_rate", fer, s.cfg.FirstEventRate)
	case base != s.cfg.BaseTime:
		return differs("base_time", base, s.cfg.BaseTime)
	case inst != uint64(s.instance) || par != uint64(s.parallelism):
		return position.Errorf(src, "the position is of split %d of %d, not %d of %d", inst, par, s.instance, s.parallelism)
	case block != s.cur.block:
		return position.Errorf(src, "the position is of splits taking blocks of %d events, not %d", block, s.cur.block)
	case n > s.cur.end:
		return position.Errorf(src, "event %d is past the end of the sequence (%d events)", n, s.cur.end)
	case n < s.cur.end && !s.cur.owns(n, s.instance):
		return position.Errorf(src, "event %d is not in split %d of %d", n, s.instance, s.parallelism)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.cur.n = n
	s.thr = connector.Throttle{Rate: s.cfg.Rate, Start: s.now(), First: n}
	return nil
}

// Exhausted implements exec.Exhausted: a bounded split has no event of
// its table left — nor, when it builds other tables' events too (the
// generate option), any event left to walk.
func (s *Source) Exhausted() bool {
	switch {
	case s.cfg.Events == 0 || !s.opened || s.closed:
		return false
	case s.walk:
		return s.cur.n >= s.cur.end
	}
	c := s.cur
	return !c.seek()
}
