package mview

import (
	"context"
	"fmt"

	"github.com/eddysql/eddy/exec"
)

// A materialized view's stored result is part of its query's checkpoint:
// the view's Sink is exec.Stateful. The sink runs as one instance, so the
// rows are kept in the first key group of its range, as rowset.Set's
// incremental snapshots write them.

var _ exec.Stateful = (*Sink)(nil)

// Snapshot implements exec.Stateful: it writes the view's rows changed
// since the last snapshot (every row, the first time), and deletes those
// gone.
func (s *Sink) Snapshot(_ context.Context, _ uint64, w exec.StateWriter) error {
	return s.MV.snapshot(s.group, w)
}

// Restore implements exec.Stateful: it puts the snapshotted rows back,
// unless the view was kept (Kept): it holds them already.
func (s *Sink) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	if s.Kept {
		s.report()
		return nil
	}
	if err := s.MV.restore(ctx, r, groups); err != nil {
		return err
	}
	s.report()
	return nil
}

func (m *View) snapshot(group int, w exec.StateWriter) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rows.WriteChanges(group, w)
}

func (m *View) restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return r.Scan(ctx, groups, func(_ int, key, value []byte) error {
		if err := m.rows.Load(key, value); err != nil {
			return fmt.Errorf("restoring a materialized view's rows: %w", err)
		}
		return nil
	})
}
