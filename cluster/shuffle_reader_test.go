package cluster

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
)

func openReader(t *testing.T, producers int) *Reader {
	t.Helper()
	r := NewReader(ReaderConfig{Topic: "t", Partition: 2, Producers: producers})
	if err := r.Open(context.Background(), exec.NewTestEnv(memory.DefaultAllocator)); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReaderWatermarks: the reader's watermark is the least of its
// producers' once each has sent one, skips idle producers, is idle when
// all are, and never goes back.
func TestReaderWatermarks(t *testing.T) {
	r := openReader(t, 3)
	step := func(p int, wm int64, idle bool) string {
		r.wms[p], r.idle[p] = wm, idle
		m, ok := r.watermark()
		switch {
		case !ok:
			return "-"
		case m.Idle:
			return "idle"
		}
		return m.String()
	}
	got := []string{
		step(0, 100, false), // producers 1 and 2 have sent none
		step(1, 50, false),
		step(2, 70, false),  // least: 50
		step(1, 90, false),  // least: 70
		step(2, 60, false),  // 60 < 70: no step back
		step(2, 0, true),    // 2 idle: least of 100 and 90
		step(0, 0, true),    // 0 idle too
		step(1, 0, true),    // all idle
		step(1, 120, false), // 1 back: its 120
	}
	want := []string{"-", "-", "watermark(50)", "watermark(70)", "-", "watermark(90)", "-", "idle", "watermark(120)"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d: %s, want %s", i, got[i], want[i])
		}
	}
}

// TestReaderPosition: a position restores the offset and every
// producer's watermark, and a position of another partition, another
// producer count, or a damaged one is refused.
func TestReaderPosition(t *testing.T) {
	r := openReader(t, 2)
	r.next, r.wms[0], r.wms[1], r.idle[1], r.out = 42, 1000, 900, true, 1000
	pos, err := r.Position()
	if err != nil {
		t.Fatal(err)
	}
	back := openReader(t, 2)
	if err := back.Seek(context.Background(), pos); err != nil {
		t.Fatal(err)
	}
	if back.next != 42 || back.wms[0] != 1000 || back.wms[1] != 900 || !back.idle[1] || back.idle[0] || back.out != 1000 {
		t.Errorf("restored: next %d wms %v idle %v out %d", back.next, back.wms, back.idle, back.out)
	}
	if err := openReader(t, 3).Seek(context.Background(), pos); err == nil {
		t.Error("a reader of 3 producers took a position of 2")
	}
	other := NewReader(ReaderConfig{Topic: "t", Partition: 3, Producers: 2})
	if err := other.Open(context.Background(), exec.NewTestEnv(memory.DefaultAllocator)); err != nil {
		t.Fatal(err)
	}
	if err := other.Seek(context.Background(), pos); err == nil {
		t.Error("a reader of partition 3 took a position of partition 2")
	}
	for i := range pos {
		bad := append([]byte(nil), pos...)
		bad[i] ^= 0x10
		if err := openReader(t, 2).Seek(context.Background(), bad); err == nil {
			t.Errorf("a position flipped at byte %d was taken", i)
		}
	}
}
