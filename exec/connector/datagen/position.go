package datagen

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/internal/position"
)

var _ exec.Exhausted = (*Source)(nil)

// positionTag is the kind tag of a datagen source's positions.
const positionTag = "datagen"

// Position implements exec.Positioned: the split's next row number, with
// what decides the rows and the split — the generators, the seed, the
// number of rows, the instance and the parallelism. The rate and the
// batch size are not part of it: they change when rows come and how they
// are cut into chunks, not which row comes next.
func (s *Source) Position() ([]byte, error) {
	if !s.opened {
		return nil, errNotOpen
	}
	w := position.NewWriter(positionTag)
	w.String(s.identity())
	w.Uint(uint64(s.instance))
	w.Uint(uint64(s.parallelism))
	w.Uint(s.n)
	return w.Bytes(), nil
}

// identity describes what decides the rows.
func (s *Source) identity() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed=%d rows=%d", s.cfg.Seed, s.cfg.Rows)
	for _, f := range s.cfg.Fields {
		fmt.Fprintf(&b, "; %s %s %s %d %d %d %d %d %g %g %g %g %g %v %d %v %g",
			f.Column.Name, f.Column.Type, f.Kind, f.Start, f.Step, f.End, f.Min, f.Max,
			f.FStart, f.FStep, f.FEnd, f.FMin, f.FMax, f.HasEnd, f.Length, f.Values, f.NullRate)
	}
	return b.String()
}

// Seek implements exec.Positioned: the split goes on from the row pos
// records, in O(1). With a rate, the schedule restarts at that row, which
// is due at once. A position of other options or another split is refused
// with a *position.Error.
func (s *Source) Seek(ctx context.Context, pos []byte) error {
	switch {
	case s.closed:
		return errClosed
	case !s.opened:
		return errNotOpen
	case s.started:
		return errors.New("datagen connector: Seek after Next")
	}
	const src = "datagen source"
	r := position.NewReader(pos, positionTag, src)
	id, inst, par, n := r.String(), r.Uint(), r.Uint(), r.Uint()
	if err := r.Done(); err != nil {
		return err
	}
	switch {
	case id != s.identity():
		return position.Errorf(src, "the position is of a source with other options (its generators, seed or rows changed)")
	case inst != uint64(s.instance) || par != uint64(s.parallelism):
		return position.Errorf(src, "the position is of split %d of %d, not %d of %d", inst, par, s.instance, s.parallelism)
	case n < s.end && n%s.step != uint64(s.instance):
		return position.Errorf(src, "row %d is not in split %d of %d", n, s.instance, s.parallelism)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.n = min(n, s.end)
	s.thr = connector.Throttle{Rate: s.cfg.Rate, Start: s.now(), First: n}
	return nil
}

// Exhausted implements exec.Exhausted: the split is past its last row.
func (s *Source) Exhausted() bool { return s.opened && !s.closed && s.n >= s.end }
