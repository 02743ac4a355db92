package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/build"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/optimizer/physical"
)

// services are the engine's part of turning a plan into a dataflow.
func (e *Engine) services() build.Services {
	return build.Services{Sources: e.sourceFor, Watermarks: e.watermarkFor}
}

// watermarkFor returns the event-time handling of a source reading a
// stream declared WITH a WATERMARK: its delay, its idle timeout, and the
// routing of its late rows to late_rows_to.
func (e *Engine) watermarkFor(src *physical.Source) *dataflow.WatermarkSpec {
	obj := src.Object
	if obj.Watermark == nil || src.TimeOrd < 0 || obj.Kind == catalog.View {
		return nil
	}
	spec := &dataflow.WatermarkSpec{TimeCol: src.TimeOrd, DelayMs: obj.Watermark.DelayMs, IdleTimeout: idleTimeout(obj),
		SplitsShareTime: e.conns.TraitsIn(obj, e.connEnv()).SplitsShareTime}
	if target := obj.Options["late_rows_to"]; target != "" && len(src.Ords) == len(obj.Columns) {
		spec.OnLate = func(ctx context.Context, pos int64, late exec.Chunk) error {
			return e.late.route(e, obj, target, pos, late)
		}
	}
	return spec
}

// lateLedger makes late rows reach late_rows_to once, however many queries
// read the stream: every query reads a source in the same order and in the
// same chunks, so the first query to reach a chunk routes its late rows,
// and the ledger remembers, per stream and durably, the position of the
// last chunk routed.
type lateLedger struct {
	mu     sync.Mutex
	routed map[uint64]int64 // stream ID → position of the next chunk that may route
}

func lateKey(stream uint64) []byte { return []byte("late/" + strconv.FormatUint(stream, 10)) }

func (l *lateLedger) route(e *Engine, obj *catalog.Object, target string, pos int64, late exec.Chunk) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.routed == nil {
		l.routed = map[uint64]int64{}
	}
	next, ok := l.routed[obj.ID]
	if !ok {
		v, found, err := e.db.KV().Get(lateKey(obj.ID))
		if err != nil {
			return err
		}
		if found && len(v) == 8 {
			next = int64(binary.BigEndian.Uint64(v))
		}
	}
	if pos < next {
		return nil // another query routed this chunk's late rows already
	}
	dst, ok := e.cat.Get(target)
	if !ok {
		return fmt.Errorf("late_rows_to: stream '%s' no longer exists", target)
	}
	if _, err := e.db.Log().Append(dst.ID, late.Batch); err != nil {
		return err
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(pos+1))
	if err := e.db.KV().Put(lateKey(obj.ID), b[:]); err != nil {
		return err
	}
	l.routed[obj.ID] = pos + 1
	return nil
}
