package build

import (
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkMachineFloor measures the machine rather than eddy: batches
// shaped like BenchmarkCheckpointPauses' aggregate (random reads then
// writes over a gigabyte, about a millisecond each, with no eddy code),
// timed as that benchmark times them, once with the other core idle and
// once beside a goroutine that keeps it busy with arithmetic alone for
// -ckpt.neighbor of the time (0.6 unless set: what the checkpoints'
// background took in the pause benchmark). The batches share nothing with
// the neighbor but the machine, so how far their p99 moves off the
// median is the floor any work on the other core sets for the pause
// target here.
//
//	go test -run XXX -bench BenchmarkMachineFloor -benchtime 1x -cpu 2 -ckpt.measure 30s ./exec/build
func BenchmarkMachineFloor(b *testing.B) {
	const words = 1 << 27 // 1 GiB of uint64
	const perBatch = 32 << 10
	data := make([]uint64, words)
	for i := range data {
		data[i] = uint64(i)
	}
	rng := rand.New(rand.NewPCG(13, 14))
	idx := make([][]uint32, 256)
	for i := range idx {
		idx[i] = make([]uint32, perBatch)
		for j := range idx[i] {
			idx[i][j] = uint32(rng.IntN(words))
		}
	}
	share := *ckptNeighbor
	if share <= 0 {
		share = 0.6
	}
	for _, neighbor := range []bool{false, true} {
		name := "idle"
		if neighbor {
			name = "busy-neighbor"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				floorRun(b, data, idx, neighbor, share)
			}
		})
	}
}

// floorRun times BenchmarkMachineFloor's batches for -ckpt.measure, with
// the neighbor at share of a core when neighbor is set, and reports them.
func floorRun(b *testing.B, data []uint64, idx [][]uint32, neighbor bool, share float64) {
	var stop atomic.Bool
	var wg sync.WaitGroup
	var busy time.Duration
	if neighbor {
		wg.Go(func() { busy = busyNeighbor(share, &stop) })
	}
	lockThread()
	var walls, cpus []time.Duration
	var sum uint64
	start := time.Now()
	for i := 0; time.Since(start) < *ckptMeasure; i++ {
		rows := idx[i%len(idx)]
		cpu0, _ := threadCPU()
		t := time.Now()
		for _, j := range rows {
			sum += data[j]
		}
		for _, j := range rows {
			data[j] = sum
		}
		wall := time.Since(t)
		cpu1, _ := threadCPU()
		walls, cpus = append(walls, wall), append(cpus, cpu1-cpu0)
	}
	elapsed := time.Since(start)
	stop.Store(true)
	wg.Wait()
	if sum == 1 { // keeps the loops from being optimized away
		b.Log(sum)
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	reportBatches(b, "", walls, walls)
	if cpus[len(cpus)-1] > 0 {
		reportBatches(b, "cpu-", cpus, cpus)
	}
	b.ReportMetric(busy.Seconds()/elapsed.Seconds(), "neighbor-cores")
}
