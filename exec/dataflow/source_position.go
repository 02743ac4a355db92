package dataflow

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/storage"
)

// Source positions in checkpoints. When a source task sends a barrier it
// records, in the same epoch, where its source is (exec.Positioned) and
// where its watermark generator is (and, in a job that sheds whole
// windows, which windows it drops: shed_window_state.go), so that the
// barrier and the record mark the same point of the input. A job resumed from the checkpoint
// seeks each source there after Open: what came before the barrier is in
// the restored state and is not read again.

// sourceTableName names the table of stage si's source positions, one
// entry per instance.
func sourceTableName(si int) string { return fmt.Sprintf("stage%d/source", si) }

// positionVersion is the first byte of a recorded position.
const positionVersion = 1

// sourcePosition is what a checkpoint records for one source instance.
type sourcePosition struct {
	parallelism int    // the stage's parallelism when it was recorded
	positioned  bool   // the source is exec.Positioned; pos is its Position
	wm, wmRows  int64  // the watermark generator's watermark and rows read
	pos         []byte // the source's own encoding
}

func (p sourcePosition) encode() []byte {
	b := []byte{positionVersion}
	b = binary.AppendUvarint(b, uint64(p.parallelism))
	flag := byte(0)
	if p.positioned {
		flag = 1
	}
	b = append(b, flag)
	b = binary.AppendVarint(b, p.wm)
	b = binary.AppendVarint(b, p.wmRows)
	return append(b, p.pos...)
}

// errBadPosition is the error of a recorded position that does not decode.
var errBadPosition = errors.New("damaged source position")

func decodePosition(b []byte) (sourcePosition, error) {
	var p sourcePosition
	if len(b) == 0 || b[0] != positionVersion {
		return p, errBadPosition
	}
	b = b[1:]
	par, n := binary.Uvarint(b)
	if n <= 0 || par == 0 || par > 1<<16 || len(b) <= n {
		return p, errBadPosition
	}
	p.parallelism = int(par)
	b = b[n:]
	switch b[0] {
	case 0:
	case 1:
		p.positioned = true
	default:
		return p, errBadPosition
	}
	b = b[1:]
	if p.wm, n = binary.Varint(b); n <= 0 {
		return p, errBadPosition
	}
	b = b[n:]
	if p.wmRows, n = binary.Varint(b); n <= 0 || p.wmRows < 0 {
		return p, errBadPosition
	}
	p.pos = b[n:]
	return p, nil
}

// sourceState records and restores a source task's position.
type sourceState struct {
	si    int
	table storage.StateTable
	key   []byte // the instance, big-endian
}

// SourceTable names the table of the positions of the source of s, stage
// si of its graph: its SourceKey, or "stage<si>/source".
func (s StageSpec) SourceTable(si int) string {
	if s.SourceKey != "" {
		return s.SourceKey
	}
	return sourceTableName(si)
}

// newSourceState opens the position table of stage si, spec, for
// instance inst.
func newSourceState(store storage.StateStore, spec StageSpec, si, inst int) (*sourceState, error) {
	t, err := store.Table(spec.SourceTable(si), storage.TableOptions{})
	if err != nil {
		return nil, fmt.Errorf("opening the source positions of stage %d: %w", si, err)
	}
	return &sourceState{si: si, table: t, key: binary.BigEndian.AppendUint16(nil, uint16(inst))}, nil
}

// record writes where t's source and watermark generator are, for the
// barrier t is about to send.
func (s *sourceState) record(t *task) error {
	b, err := s.encode(t)
	if err != nil {
		return err
	}
	if t.wshed != nil {
		if err := s.table.Put(fatesKey(s.key), t.wshed.fates.encode()); err != nil {
			return err
		}
	}
	return s.table.Put(s.key, b)
}

// encode returns the record of where t's source and watermark generator
// are.
func (s *sourceState) encode(t *task) ([]byte, error) {
	p := sourcePosition{parallelism: t.env.Parallelism, wm: noWatermark}
	if ps, ok := t.source.(exec.Positioned); ok {
		pos, err := ps.Position()
		if err != nil {
			return nil, fmt.Errorf("recording the position of stage %d's source: %w", s.si, err)
		}
		p.positioned, p.pos = true, pos
	}
	if t.wm != nil {
		p.wm, p.wmRows = t.wm.wm, t.wm.pos
	}
	return p.encode(), nil
}

// restore seeks t's open source to the position of the last committed
// checkpoint and restores its watermark generator. A source with no
// recorded position starts from the beginning (no checkpoint has passed
// it yet). A source that cannot seek, or a position recorded at another
// parallelism, is an error: reading the input again from the start would
// count it twice.
func (s *sourceState) restore(ctx context.Context, t *task) error {
	v, ok, err := s.table.Get(s.key)
	if err != nil {
		return fmt.Errorf("reading the position of stage %d's source: %w", s.si, err)
	}
	if !ok {
		return nil
	}
	p, err := decodePosition(v)
	if err != nil {
		return fmt.Errorf("stage %d instance %d: %w", s.si, t.env.Instance, err)
	}
	if p.parallelism != t.env.Parallelism {
		return fmt.Errorf("not supported yet: resuming stage %d's source at parallelism %d from a checkpoint taken at parallelism %d", s.si, t.env.Parallelism, p.parallelism)
	}
	ps, ok := t.source.(exec.Positioned)
	if !ok || !p.positioned {
		return fmt.Errorf("stage %d's source cannot resume from a checkpoint: it does not record its position", s.si)
	}
	if err := ps.Seek(ctx, p.pos); err != nil {
		return fmt.Errorf("resuming stage %d's source: %w", s.si, err)
	}
	if t.wm != nil {
		t.wm.wm, t.wm.pos = p.wm, p.wmRows
	}
	return nil
}
