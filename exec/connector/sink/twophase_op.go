package sink

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/eddysql/eddy/exec"
)

// TwoPhase is a file sink that publishes exactly once when its job takes
// checkpoints (twophase.go says how). In a job that does not, it writes
// as a Sink does. New returns one for a file sink with Config.TwoPhase.
type TwoPhase struct {
	*Sink
}

var _ exec.Committer = (*TwoPhase)(nil)

// Open opens the sink. In a job that takes checkpoints, a file sink whose
// path is a regular file (or none yet) becomes two-phase; a FIFO or a
// device cannot take parts, and is written as it comes.
func (t *TwoPhase) Open(ctx context.Context, env *exec.Env) error {
	s := t.Sink
	if env != nil && env.Checkpointing && !s.opened && !s.closed {
		path, err := s.cfg.Resolve()
		if err != nil {
			return err
		}
		info, err := os.Stat(path)
		switch {
		case err == nil && len(s.cfg.PartitionBy) == 0 && !info.Mode().IsRegular():
		case err != nil && !os.IsNotExist(err):
			return s.pathErr("stat", path, err)
		default:
			if s.parts == nil {
				s.parts = &partitioned{s: s, single: true, maxOpen: 1, parts: map[string]*partition{}}
			}
			s.parts.stage = &stager{group: env.KeyGroups.Lo}
		}
	}
	return s.Open(ctx, env)
}

// staged reports whether the sink writes in two phases.
func (t *TwoPhase) staged() bool { return t.parts != nil && t.parts.stage != nil }

// Snapshot stages what the sink wrote since the last checkpoint: each
// file's in-progress part is fsynced and renamed the pending part of
// epoch, and recorded in the checkpoint with the parts published since
// the last one.
func (t *TwoPhase) Snapshot(ctx context.Context, epoch uint64, w exec.StateWriter) error {
	if err := t.ready(); err != nil {
		return err
	}
	if !t.staged() {
		return nil
	}
	t.due = time.Time{}
	if err := t.parts.stageAll(epoch); err != nil {
		t.err = err
		return err
	}
	return t.parts.stage.write(w)
}

// Restore puts the sink's files back as the last checkpoint left them:
// its parts are published, the files cut back to their recorded lengths,
// and the parts of later epochs removed.
func (t *TwoPhase) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	if err := t.ready(); err != nil {
		return err
	}
	if !t.staged() {
		return nil
	}
	if err := t.parts.stage.restore(ctx, r, groups); err != nil {
		return t.errorf("restoring %s: %w", t.cfg.Path, err)
	}
	if err := t.parts.removeStale(t.parts.root, 0, false); err != nil {
		return err
	}
	return nil
}

// Commit publishes the parts staged up to epoch.
func (t *TwoPhase) Commit(ctx context.Context, epoch uint64) error {
	if !t.staged() {
		return nil
	}
	if err := t.parts.stage.commit(epoch, false); err != nil {
		return t.errorf("%w", err)
	}
	return nil
}

// OnControl handles a control message as Sink does; at the end of input a
// two-phase sink also publishes everything it wrote (see twophase.go).
func (t *TwoPhase) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	if err := t.Sink.OnControl(ctx, m, out); err != nil || m.Kind != exec.EndOfInput || !t.staged() {
		return err
	}
	if err := t.parts.publishAll(); err != nil {
		t.err = t.errorf("%w", err)
		return t.err
	}
	return nil
}

// stageAll renames the in-progress part of every file written since the
// last staging the pending part of epoch, fsynced, and records it.
func (p *partitioned) stageAll(epoch uint64) error {
	for _, pt := range p.touched {
		if pt.f != nil {
			if err := p.closeFile(pt); err != nil {
				return err
			}
		}
		if err := renameSynced(inProgressPath(pt.path), pendingPath(pt.path, epoch)); err != nil {
			return p.s.pathErr("stage", pt.path, err)
		}
		p.stage.stage(pt.path, epoch, pt.length, pt.pending)
		pt.length += pt.pending
		pt.pending, pt.created, pt.inTouched = 0, false, false
	}
	p.touched = p.touched[:0]
	return nil
}

// publishAll publishes every staged part, then every in-progress one.
func (p *partitioned) publishAll() error {
	if err := p.stage.commit(0, true); err != nil {
		return err
	}
	for _, pt := range p.touched {
		if pt.f != nil {
			if err := p.closeFile(pt); err != nil {
				return err
			}
		}
		part := stagedPart{before: pt.length, length: pt.pending}
		if err := publishPart(pt.path, inProgressPath(pt.path), part); err != nil {
			return err
		}
		pt.length += pt.pending
		pt.pending, pt.created, pt.inTouched = 0, false, false
	}
	p.touched = p.touched[:0]
	return nil
}

// renameSynced renames from to to and fsyncs their directory, so the
// rename survives a crash.
func renameSynced(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(to))
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, syscall.EINVAL) { // some file systems cannot fsync a directory
		return err
	}
	return nil
}
