package build

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/agg"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/internal/hugepage"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/badger"
	"github.com/eddysql/eddy/storage/mem"
)

// Checkpoint benchmarks (issue 10): what a checkpoint of a GROUP BY costs
// in bytes and in pauses, with the state in a real Badger store in a
// temporary directory, as the engine keeps it.

// ckptBatchRows is the size of the benchmarks' input batches.
const ckptBatchRows = 4096

// keyBatch builds a batch of (k BIGINT, v BIGINT) rows, one per key, each
// with v = val: the input of oneAgg.
func keyBatch(alloc memory.Allocator, keys []int64, val int64) arrow.RecordBatch {
	kb, vb := array.NewInt64Builder(alloc), array.NewInt64Builder(alloc)
	defer kb.Release()
	defer vb.Release()
	kb.AppendValues(keys, nil)
	for range keys {
		vb.Append(val)
	}
	k, v := kb.NewArray(), vb.NewArray()
	defer k.Release()
	defer v.Release()
	schema := arrow.NewSchema([]arrow.Field{types.Field("k", types.BigIntT, true), types.Field("v", types.BigIntT, true)}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{k, v}, int64(len(keys)))
}

// keyBatches splits keys into batches of ckptBatchRows rows.
func keyBatches(alloc memory.Allocator, keys []int64, val int64) []exec.Chunk {
	var out []exec.Chunk
	for start := 0; start < len(keys); start += ckptBatchRows {
		out = append(out, exec.Chunk{Batch: keyBatch(alloc, keys[start:min(start+ckptBatchRows, len(keys))], val)})
	}
	return out
}

// openBadgerState opens a Badger database in a temporary directory and
// the state store of one job in it.
func openBadgerState(b *testing.B) storage.StateStore {
	b.Helper()
	db, err := badger.Open(b.TempDir(), badger.Options{ValueLogGCInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	store, err := db.State("bench")
	if err != nil {
		db.Close()
		b.Fatal(err)
	}
	b.Cleanup(func() {
		store.Close()
		db.Close()
	})
	return store
}

// aggGraph is SELECT k, COUNT(*), SUM(v) GROUP BY k: source reads, its
// rows are hash-partitioned by k to the aggregate (parallelism p, made by
// newAgg), whose changes a counting sink drops.
func aggGraph(source dataflow.StageSpec, p int, newAgg func(int) (exec.Operator, error)) dataflow.GraphSpec {
	return dataflow.GraphSpec{Stages: []dataflow.StageSpec{
		source,
		{Parallelism: p, Inputs: []dataflow.InputSpec{{From: 0, Dist: dataflow.DistHash, Keys: []int{0}}},
			Ops: []dataflow.OpSpec{{Name: "agg", New: newAgg}}},
		endStage(1),
	}}
}

// flushJob waits until the job has handled everything its sources had
// when it was called.
func flushJob(b *testing.B, ctx context.Context, job *dataflow.Job, id uint64) {
	b.Helper()
	job.RequestFlush(id)
	if err := job.WaitFlushed(ctx, id); err != nil {
		b.Fatal(err)
	}
}

// lastCheckpoint returns the job's last checkpoint, failing b if it did
// not commit.
func lastCheckpoint(b *testing.B, job *dataflow.Job) dataflow.CheckpointStat {
	b.Helper()
	cs := job.Checkpoints()
	if len(cs) == 0 {
		b.Fatal("no checkpoint recorded")
	}
	c := cs[len(cs)-1]
	if c.Err != nil {
		b.Fatal(c.Err)
	}
	return c
}

// BenchmarkCheckpointIncremental measures issue 10's incremental target:
// when 1% of the keys change between two checkpoints, the second writes at
// most 5% of the bytes of a full snapshot. SELECT k, COUNT(*), SUM(v)
// GROUP BY k over 1M keys at parallelism 2, state in Badger: every key
// once, a checkpoint (the full snapshot: every group is new), then one row
// for each of 1% of the keys drawn at random, and a second checkpoint.
// Besides the two checkpoints' bytes (CheckpointStat.Bytes: keys and
// values of the entries written) it reports their ratio and durations.
//
//	go test ./exec/build -run XXX -bench BenchmarkCheckpointIncremental -benchtime 1x -count 3 -cpu 2
func BenchmarkCheckpointIncremental(b *testing.B) {
	const keys = 1_000_000
	alloc := memory.NewGoAllocator()
	all := make([]int64, keys)
	for i := range all {
		all[i] = int64(i)
	}
	rng := rand.New(rand.NewPCG(10, 10))
	touched := slices.Clone(all)
	rng.Shuffle(len(touched), func(i, j int) { touched[i], touched[j] = touched[j], touched[i] })
	touched = touched[:keys/100]
	var full, part dataflow.CheckpointStat
	for range b.N {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		src := exectest.NewSource(b, alloc)
		g := aggGraph(dataflow.StageSpec{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil }}, 2,
			func(int) (exec.Operator, error) { return agg.NewHashAgg(oneAgg), nil })
		job, err := dataflow.StartJob(ctx, g, dataflow.JobOptions{Alloc: alloc, State: openBadgerState(b), Coalesce: true})
		if err != nil {
			b.Fatal(err)
		}
		src.Push(keyBatches(alloc, all, 1)...)
		flushJob(b, ctx, job, 1)
		if _, err := job.CheckpointNext(ctx); err != nil {
			b.Fatal(err)
		}
		full = lastCheckpoint(b, job)
		src.Push(keyBatches(alloc, touched, 2)...)
		flushJob(b, ctx, job, 2)
		if _, err := job.CheckpointNext(ctx); err != nil {
			b.Fatal(err)
		}
		part = lastCheckpoint(b, job)
		src.End()
		if err := job.Wait(ctx); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
	b.ReportMetric(float64(full.Bytes), "full-bytes")
	b.ReportMetric(float64(part.Bytes), "1%-bytes")
	b.ReportMetric(100*float64(part.Bytes)/float64(full.Bytes), "%-of-full")
	b.ReportMetric(float64(full.Duration.Milliseconds()), "full-ms")
	b.ReportMetric(float64(part.Duration.Milliseconds()), "1%-ms")
}

// timedAgg wraps an aggregate to time, once measuring is set, each
// Process call (a batch), each Snapshot or BeginSnapshot (the synchronous
// part of a checkpoint on the operator's goroutine) and each SnapshotStep
// (a step of the rest, between batches), in wall time and in the thread's
// CPU time (threadCPU; the goroutine is locked to its thread). A batch's
// stall is its own time plus the snapshot work that ran since the
// previous batch: how long the operator kept the rows after it waiting.
type timedAgg struct {
	*agg.HashAgg
	measuring *atomic.Bool
	locked    bool

	batches, stalls, snaps          []time.Duration // wall time
	marks                           []batchMarks    // with -ckpt.slowlog: each batch's
	cpuBatches, cpuStalls, cpuSnaps []time.Duration // the thread's CPU time
	steps, cpuSteps                 []time.Duration // of each step: wall, CPU
	sinceBatch, cpuSinceBatch       time.Duration   // snapshot time since the last batch
}

var _ exec.DeferredSnapshotter = (*timedAgg)(nil)

// batchMarks are where and when a batch ran (batchMark at its start and
// its end), for -ckpt.slowlog.
type batchMarks struct {
	start, end       int64 // CLOCK_MONOTONIC, ns
	startTid, endTid int
	wall             time.Duration
}

// times returns the wall and CPU clocks (no CPU time with
// -ckpt.wallonly).
func (t *timedAgg) times() (time.Time, time.Duration) {
	if *ckptWallOnly {
		return time.Now(), 0
	}
	if !t.locked {
		lockThread()
		t.locked = true
	}
	cpu, _ := threadCPU()
	return time.Now(), cpu
}

// Process implements exec.Operator.
func (t *timedAgg) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if !t.measuring.Load() {
		t.sinceBatch, t.cpuSinceBatch = 0, 0
		return t.HashAgg.Process(ctx, in, c, out)
	}
	var m batchMarks
	if *ckptSlowLog != "" {
		m.start, m.startTid = batchMark()
	}
	start, cpu0 := t.times()
	err := t.HashAgg.Process(ctx, in, c, out)
	end, cpu1 := t.times()
	d, cd := end.Sub(start), cpu1-cpu0
	if *ckptSlowLog != "" {
		m.end, m.endTid = batchMark()
		m.wall = d
		t.marks = append(t.marks, m)
	}
	t.batches, t.stalls = append(t.batches, d), append(t.stalls, d+t.sinceBatch)
	t.cpuBatches, t.cpuStalls = append(t.cpuBatches, cd), append(t.cpuStalls, cd+t.cpuSinceBatch)
	t.sinceBatch, t.cpuSinceBatch = 0, 0
	return err
}

// Snapshot implements exec.Stateful.
func (t *timedAgg) Snapshot(ctx context.Context, epoch uint64, w exec.StateWriter) error {
	start, cpu0 := t.times()
	err := t.HashAgg.Snapshot(ctx, epoch, w)
	t.snapped(start, cpu0)
	return err
}

// BeginSnapshot implements exec.DeferredSnapshotter.
func (t *timedAgg) BeginSnapshot(ctx context.Context, epoch uint64, w exec.StateWriter) (bool, error) {
	start, cpu0 := t.times()
	pending, err := t.HashAgg.BeginSnapshot(ctx, epoch, w)
	t.snapped(start, cpu0)
	return pending, err
}

// snapped records the synchronous part of a snapshot, started at start
// and cpu0.
func (t *timedAgg) snapped(start time.Time, cpu0 time.Duration) {
	end, cpu1 := t.times()
	d, cd := end.Sub(start), cpu1-cpu0
	t.sinceBatch += d
	t.cpuSinceBatch += cd
	if t.measuring.Load() {
		t.snaps, t.cpuSnaps = append(t.snaps, d), append(t.cpuSnaps, cd)
	}
}

// SnapshotStep implements exec.DeferredSnapshotter.
func (t *timedAgg) SnapshotStep(ctx context.Context, budget int) (bool, error) {
	start, cpu0 := t.times()
	done, err := t.HashAgg.SnapshotStep(ctx, budget)
	end, cpu1 := t.times()
	d, cd := end.Sub(start), cpu1-cpu0
	t.sinceBatch += d
	t.cpuSinceBatch += cd
	if t.measuring.Load() {
		t.steps, t.cpuSteps = append(t.steps, d), append(t.cpuSteps, cd)
	}
	return done, err
}

// cycleSource emits load, in order, then the batches of cycle round and
// round until stop is set, then io.EOF. It retains what it emits, so the
// same batches serve every round. With rate set, it emits the cycle's
// rows at that many a second at most.
type cycleSource struct {
	load, cycle []exec.Chunk
	next        int
	stop        *atomic.Bool
	rate        int64     // rows a second of the cycle; 0: as fast as taken
	started     time.Time // when the cycle began, with rate
	emitted     int64     // the cycle's rows emitted, with rate
}

func (s *cycleSource) Open(context.Context, *exec.Env) error { return nil }

func (s *cycleSource) Next(context.Context) (exec.Chunk, error) {
	var c exec.Chunk
	switch {
	case s.next < len(s.load):
		c = s.load[s.next]
	case s.stop.Load():
		return exec.Chunk{}, io.EOF
	default:
		c = s.cycle[(s.next-len(s.load))%len(s.cycle)]
		if s.rate > 0 {
			if s.started.IsZero() {
				s.started = time.Now()
			}
			due := s.started.Add(time.Duration(s.emitted * int64(time.Second) / s.rate))
			time.Sleep(time.Until(due))
			s.emitted += int64(c.NumRows())
		}
	}
	s.next++
	c.Batch.Retain()
	return c, nil
}

func (s *cycleSource) Wait(context.Context) error { return nil }
func (s *cycleSource) Close() error               { return nil }

// quantile returns the q-quantile of sorted ds (0 when empty).
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[min(int(q*float64(len(ds))), len(ds)-1)]
}

// reportBatches reports the median and p99 of a run's sorted batch times,
// the p99 and longest of its stalls, both p99s over the median, and the
// share of stalls over twice the median (the target holds while it is at
// most 1 %; a share moves less from run to run than a quantile does),
// their names begun with prefix.
func reportBatches(b *testing.B, prefix string, batches, stalls []time.Duration) {
	med := max(quantile(batches, 0.5), 1)
	b.ReportMetric(ms(med), prefix+"batch-p50-ms")
	b.ReportMetric(ms(quantile(batches, 0.99)), prefix+"batch-p99-ms")
	b.ReportMetric(float64(quantile(batches, 0.99))/float64(med), prefix+"batch-p99/p50")
	b.ReportMetric(ms(quantile(stalls, 0.99)), prefix+"stall-p99-ms")
	b.ReportMetric(ms(slices.Max(append(stalls, 0))), prefix+"stall-max-ms")
	b.ReportMetric(float64(quantile(stalls, 0.99))/float64(med), prefix+"stall-p99/p50")
	over, _ := slices.BinarySearch(stalls, 2*med+1)
	b.ReportMetric(100*float64(len(stalls)-over)/float64(max(len(stalls), 1)), prefix+"stall-over-2x-%")
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ckptPauseKeys is the number of keys BenchmarkCheckpointPauses keeps
// resident: issue 10's 10M unless -ckpt.keys says otherwise (smaller, for
// a quick look).
var ckptPauseKeys = flag.Int64("ckpt.keys", 10_000_000, "resident keys of BenchmarkCheckpointPauses")

// ckptMeasure is how long BenchmarkCheckpointPauses measures each half:
// longer runs see more checkpoints and quote their quantiles with less
// noise.
var ckptMeasure = flag.Duration("ckpt.measure", 10*time.Second, "how long BenchmarkCheckpointPauses measures, with checkpoints and without")

// ckptSlowLog, when set, names a file that BenchmarkCheckpointPauses
// appends its measured batches over twice the median to, one a line: the
// benchmark's name, then start and end on CLOCK_MONOTONIC in nanoseconds,
// the threads it began and ended on, and its wall time. Recorded with
// `perf record -k CLOCK_MONOTONIC -e sched:sched_switch -e cpu-clock -g`,
// each slow batch can be set against what its thread and the others ran
// meanwhile (see docs/benchmarks.md, *Where the slow batches' time goes*).
var ckptSlowLog = flag.String("ckpt.slowlog", "", "file BenchmarkCheckpointPauses appends its batches over twice the median to, with CLOCK_MONOTONIC times and thread ids")

// writeSlowLog appends op's measured batches over twice the median to
// -ckpt.slowlog.
func writeSlowLog(b *testing.B, op *timedAgg) {
	limit := 2 * max(quantile(slices.Sorted(slices.Values(op.batches)), 0.5), 1)
	var out []byte
	for _, m := range op.marks {
		if m.wall > limit {
			out = fmt.Appendf(out, "%s %d %d %d %d %d\n", b.Name(), m.start, m.end, m.startTid, m.endTid, m.wall.Nanoseconds())
		}
	}
	f, err := os.OpenFile(*ckptSlowLog, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.Write(out)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		b.Fatalf("-ckpt.slowlog: %v", err)
	}
}

// ckptStore is the state store of BenchmarkCheckpointPauses: badger, as
// the engine keeps state, or mem (storage/mem), whose commits cost little,
// to tell the operator's pause from the store's work competing for the
// cores.
var ckptStore = flag.String("ckpt.store", "badger", "state store of BenchmarkCheckpointPauses: badger or mem")

// ckptHugeHeap, when set, has BenchmarkCheckpointPauses reserve that much
// of its heap for huge pages first, as the eddy process does at its start
// (--heap-huge-pages).
var ckptHugeHeap = flag.Int64("ckpt.hugeheap", 0, "bytes of heap BenchmarkCheckpointPauses reserves for huge pages, as eddy does (0: none)")

// ckptRate, when set, paces BenchmarkCheckpointPauses's input at that
// many rows a second, leaving the cores room for the checkpoints' work (a
// sustained load rather than as much as the aggregate takes).
var ckptRate = flag.Int64("ckpt.rate", 0, "rows a second BenchmarkCheckpointPauses feeds after the load (0: unthrottled)")

// ckptWallOnly times BenchmarkCheckpointPauses' batches by the wall clock
// alone, the aggregate's goroutine not locked to its thread. The thread's
// CPU time needs the lock, and the lock lengthens every wait in wall
// time: when Go preempts a locked goroutine (every 10 ms of running), it
// runs again only once its processor has been handed to its own thread,
// which the cores' other threads delay, where eddy's tasks, never locked,
// go on on whichever thread has a processor first.
var ckptWallOnly = flag.Bool("ckpt.wallonly", false, "time BenchmarkCheckpointPauses' batches by the wall clock only, its aggregate not locked to a thread")

// ckptNeighbor, when above 0, runs a goroutine beside the window without
// checkpoints that keeps a core busy for that share of every 10 ms with
// arithmetic alone (no memory beyond its registers): the cores taken as
// the checkpoints' background work takes them, and nothing else shared
// with the aggregate. Set to the cores the window with checkpoints took
// over the one without (process-cores), it tells the slow batches that
// come from the other core being busy at all from those the checkpoints'
// own work causes.
var ckptNeighbor = flag.Float64("ckpt.neighbor", 0, "share of a core a CPU-only goroutine takes during BenchmarkCheckpointPauses' window without checkpoints (0: none)")

// busyNeighbor keeps its goroutine busy with arithmetic for share of
// every 10 ms until stop is set, and returns the busy time.
func busyNeighbor(share float64, stop *atomic.Bool) time.Duration {
	const period = 10 * time.Millisecond
	busy := time.Duration(float64(period) * min(share, 1))
	var spent time.Duration
	x := 1.0
	for !stop.Load() {
		start := time.Now()
		for time.Since(start) < busy {
			for range 1000 {
				x = x*0.999999 + 1e-7
			}
		}
		spent += time.Since(start)
		if rest := period - time.Since(start); rest > 0 {
			time.Sleep(rest)
		}
	}
	if x == 0 { // keeps the loop from being optimized away
		spent++
	}
	return spent
}

// ckptKeyType is the type of BenchmarkCheckpointPauses's group key:
// bigint, or varchar (each key the decimal text of the bigint's, so the
// same groups behind encoded keys).
var ckptKeyType = flag.String("ckpt.keytype", "bigint", "group key type of BenchmarkCheckpointPauses: bigint or varchar")

// pauseBatches is keyBatches (of value 1) with keys of -ckpt.keytype.
func pauseBatches(b *testing.B, alloc memory.Allocator, keys []int64) []exec.Chunk {
	switch *ckptKeyType {
	case "bigint":
		return keyBatches(alloc, keys, 1)
	case "varchar":
	default:
		b.Fatalf("-ckpt.keytype: bigint or varchar, not %q", *ckptKeyType)
	}
	schema := arrow.NewSchema([]arrow.Field{types.Field("k", types.VarcharT, true), types.Field("v", types.BigIntT, true)}, nil)
	var out []exec.Chunk
	var text []byte
	for start := 0; start < len(keys); start += ckptBatchRows {
		part := keys[start:min(start+ckptBatchRows, len(keys))]
		bld := array.NewRecordBuilder(alloc, schema)
		kb, vb := bld.Field(0).(*array.StringBuilder), bld.Field(1).(*array.Int64Builder)
		for _, k := range part {
			text = strconv.AppendInt(text[:0], k, 10)
			kb.BinaryBuilder.Append(text)
			vb.Append(1)
		}
		out = append(out, exec.Chunk{Batch: bld.NewRecordBatch()})
		bld.Release()
	}
	return out
}

// pauseAgg is oneAgg over keys of -ckpt.keytype.
func pauseAgg() agg.HashConfig {
	cfg := oneAgg
	if *ckptKeyType == "varchar" {
		cfg.Input = []types.T{types.VarcharT, types.BigIntT}
	}
	return cfg
}

// BenchmarkCheckpointPauses measures issue 10's no-pause target: with
// checkpoints every second over 10M resident keys, the per-batch
// processing time's p99 within 2× its median, and the synchronous part of
// a checkpoint (the aggregate's BeginSnapshot, on its goroutine, while
// its input waits) at most 50 ms; the rest of the snapshot is written by
// a writer goroutine or, when it cannot be, in steps between batches,
// which the stalls include (step-*, deferred-*). SELECT k, COUNT(*),
// SUM(v) GROUP BY k at parallelism 1 behind a hash exchange, state in
// Badger: every key once and a first (full) checkpoint, then 4,096-row
// batches for 10 s (-ckpt.measure), unthrottled, measured with checkpoints
// every second and, in the same run, without (the baseline). -ckpt.keys,
// -ckpt.store and -ckpt.keytype change the number of keys, the store and
// the key's type, -ckpt.rate paces the input. Two key distributions: uniform over
// the 10M keys (a second of input dirties about as many groups as it has
// rows), and hot, where every row goes to one of 1% of the keys.
//
//	go test ./exec/build -run XXX -bench BenchmarkCheckpointPauses -benchtime 1x -count 3 -cpu 2 -timeout 60m [-ckpt.store mem] [-ckpt.keys N] [-ckpt.keytype varchar] [-ckpt.hugeheap 4294967296]
func BenchmarkCheckpointPauses(b *testing.B) {
	measure := *ckptMeasure
	if *ckptHugeHeap > 0 {
		b.Logf("%s", hugepage.ReserveHeap(*ckptHugeHeap))
	}
	alloc := memory.NewGoAllocator()
	resident := *ckptPauseKeys
	all := make([]int64, resident)
	for i := range all {
		all[i] = int64(i)
	}
	load := pauseBatches(b, alloc, all)
	all = nil
	rng := rand.New(rand.NewPCG(11, 12))
	cycles := map[string][]exec.Chunk{}
	for _, dist := range []string{"uniform", "hot"} {
		span := resident
		if dist == "hot" {
			span /= 100
		}
		keys := make([]int64, 1024*ckptBatchRows)
		for i := range keys {
			keys[i] = rng.Int64N(span) * (resident / span)
		}
		cycles[dist] = pauseBatches(b, alloc, keys)
	}
	b.Cleanup(func() {
		for _, cs := range append([][]exec.Chunk{load}, cycles["uniform"], cycles["hot"]) {
			for _, c := range cs {
				c.Batch.Release()
			}
		}
	})
	for _, dist := range []string{"uniform", "hot"} {
		for _, every := range []time.Duration{0, time.Second} {
			name := dist + "/no-checkpoints"
			if every > 0 {
				name = dist + "/every-1s"
			}
			b.Run(name, func(b *testing.B) {
				for range b.N {
					benchPauses(b, alloc, load, cycles[dist], every, measure)
				}
			})
		}
	}
}

// benchPauses runs one measurement of BenchmarkCheckpointPauses: load,
// a full checkpoint, then cycle for measure with a checkpoint every
// every (none when 0), and reports the figures.
func benchPauses(b *testing.B, alloc memory.Allocator, load, cycle []exec.Chunk, every, measure time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var stop, measuring atomic.Bool
	src := &cycleSource{load: load, cycle: cycle, stop: &stop, rate: *ckptRate}
	op := &timedAgg{HashAgg: agg.NewHashAgg(pauseAgg()), measuring: &measuring}
	g := aggGraph(dataflow.StageSpec{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil }}, 1,
		func(int) (exec.Operator, error) { return op, nil })
	var store storage.StateStore
	switch *ckptStore {
	case "badger":
		store = openBadgerState(b)
	case "mem":
		var err error
		if store, err = mem.New().State("bench"); err != nil {
			b.Fatal(err)
		}
		defer store.Close()
	default:
		b.Fatalf("-ckpt.store: badger or mem, not %q", *ckptStore)
	}
	job, err := dataflow.StartJob(ctx, g, dataflow.JobOptions{Alloc: alloc, State: store, Coalesce: true})
	if err != nil {
		b.Fatal(err)
	}
	defer job.Stop()
	// The first checkpoint, after the load: every group is new.
	for job.Stats()[0].RowsOut < int64(len(load))*ckptBatchRows {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := job.CheckpointNext(ctx); err != nil {
		b.Fatal(err)
	}
	first := lastCheckpoint(b, job)
	rows0 := job.Stats()[1].RowsIn
	measuring.Store(true)
	start := time.Now()
	cpuStart, cpuKnown := processCPU()
	var wg sync.WaitGroup
	var ckptErr error
	var neighborStop atomic.Bool
	var neighborBusy time.Duration
	if every == 0 && *ckptNeighbor > 0 {
		wg.Go(func() { neighborBusy = busyNeighbor(*ckptNeighbor, &neighborStop) })
	}
	if every > 0 {
		wg.Go(func() {
			tick := time.NewTicker(every)
			defer tick.Stop()
			for time.Since(start) < measure {
				<-tick.C
				if _, err := job.CheckpointNext(ctx); err != nil {
					ckptErr = err
					return
				}
			}
		})
	}
	time.Sleep(measure)
	neighborStop.Store(true)
	wg.Wait()
	measuring.Store(false)
	elapsed := time.Since(start)
	cpuEnd, _ := processCPU()
	rows := job.Stats()[1].RowsIn - rows0
	stop.Store(true)
	if err := job.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	if ckptErr != nil {
		b.Fatal(ckptErr)
	}
	var ckpts int
	var bytes int64
	var durs, deferred []time.Duration
	for _, c := range job.Checkpoints() {
		if c.Epoch > first.Epoch && c.Err == nil {
			ckpts++
			bytes += c.Bytes
			durs, deferred = append(durs, c.Duration), append(deferred, c.Deferred)
		}
	}
	for _, ds := range [][]time.Duration{op.batches, op.stalls, op.snaps, op.cpuBatches, op.cpuStalls, op.cpuSnaps, op.steps, op.cpuSteps, durs, deferred} {
		slices.Sort(ds)
	}
	b.ReportMetric(float64(rows)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(ms(first.Duration), "full-ckpt-ms")
	if cpuKnown {
		b.ReportMetric((cpuEnd-cpuStart).Seconds()/elapsed.Seconds(), "process-cores")
	}
	if neighborBusy > 0 {
		b.ReportMetric(neighborBusy.Seconds()/elapsed.Seconds(), "neighbor-cores")
	}
	// Wall time: what the rows behind a batch wait, the machine's load
	// included; CPU time: the work alone.
	reportBatches(b, "", op.batches, op.stalls)
	if *ckptSlowLog != "" {
		writeSlowLog(b, op)
	}
	if !*ckptWallOnly {
		reportBatches(b, "cpu-", op.cpuBatches, op.cpuStalls)
	}
	if every > 0 {
		b.ReportMetric(float64(ckpts), "ckpts")
		b.ReportMetric(float64(bytes)/float64(max(ckpts, 1)), "bytes/ckpt")
		b.ReportMetric(ms(quantile(durs, 0.5)), "ckpt-p50-ms")
		b.ReportMetric(ms(quantile(op.snaps, 0.5)), "sync-p50-ms")
		b.ReportMetric(ms(slices.Max(append(op.snaps, 0))), "sync-max-ms")
		if !*ckptWallOnly {
			b.ReportMetric(ms(slices.Max(append(op.cpuSnaps, 0))), "cpu-sync-max-ms")
		}
		// The rest, written in steps between batches.
		b.ReportMetric(ms(quantile(op.steps, 0.5)), "step-p50-ms")
		b.ReportMetric(ms(quantile(op.steps, 0.99)), "step-p99-ms")
		b.ReportMetric(ms(slices.Max(append(op.steps, 0))), "step-max-ms")
		if !*ckptWallOnly {
			b.ReportMetric(ms(slices.Max(append(op.cpuSteps, 0))), "cpu-step-max-ms")
		}
		b.ReportMetric(ms(quantile(deferred, 0.5)), "deferred-p50-ms")
	}
}
