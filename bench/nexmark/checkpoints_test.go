package nexmark

import (
	"strings"
	"testing"
	"time"
)

// TestComputeCheckpoints checks the checkpoint figures: counts and bytes
// as measured, the median and longest of the sorted durations in
// milliseconds, and none of them without checkpoints.
func TestComputeCheckpoints(t *testing.T) {
	f := Compute("q5", Measurement{Events: 10, Wall: time.Second, CPU: time.Second,
		Checkpoints: 3, CheckpointsFailed: 1, CheckpointBytes: 12345,
		CheckpointDurations: []time.Duration{10 * time.Millisecond, 25500 * time.Microsecond, 2 * time.Second},
		CheckpointSyncMax:   1234 * time.Microsecond})
	if f.Checkpoints != 3 || f.CheckpointsFailed != 1 || f.CheckpointBytes != 12345 || f.CheckpointMedianMs != 25.5 || f.CheckpointMaxMs != 2000 ||
		f.CheckpointSyncMs != 1.234 {
		t.Errorf("got %+v", f)
	}
	f = Compute("q5", Measurement{Events: 10, Wall: time.Second, CPU: time.Second})
	if f.Checkpoints != 0 || f.CheckpointMedianMs != 0 || f.CheckpointMaxMs != 0 || f.CheckpointSyncMs != 0 {
		t.Errorf("without checkpoints: %+v", f)
	}
}

// TestTableCheckpointColumns checks that the table gains the checkpoint
// columns when a run took checkpoints, and only then.
func TestTableCheckpointColumns(t *testing.T) {
	base := Compute(BaselineName, Measurement{Events: 100, Wall: time.Second, CPU: time.Second, Checkpoints: 2, CheckpointBytes: 40,
		CheckpointDurations: []time.Duration{time.Millisecond, 3 * time.Millisecond}})
	q := Compute("q18", Measurement{Events: 100, Wall: 2 * time.Second, CPU: 2 * time.Second, Checkpoints: 1, CheckpointsFailed: 1,
		CheckpointBytes: 3 << 20, CheckpointDurations: []time.Duration{1500 * time.Millisecond}})
	var b strings.Builder
	if err := WriteTable(&b, []Outcome{{Query: BaselineName, Figures: base}, {Query: "q18", Figures: q}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"checkpoints", "written", "median ms", "max ms", "sync max ms", "1 (1 failed)", "3.0 MiB", "1500.0"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	b.Reset()
	if err := WriteTable(&b, []Outcome{{Query: "q1", Figures: Compute("q1", Measurement{Events: 1, Wall: time.Second})}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "checkpoints") {
		t.Errorf("checkpoint columns without checkpoints:\n%s", b.String())
	}
}

// TestDescribeState checks what the report says of the engine's state.
func TestDescribeState(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{Events: 1}, "state in memory, no checkpoints"},
		{Config{Events: 1, OnDisk: true}, "a Badger data directory, no checkpoints"},
		{Config{Events: 1, CheckpointInterval: 10 * time.Second}, "checkpoints every 10s into a Badger data directory"},
	} {
		if text := strings.Join(Describe(tc.c), "\n"); !strings.Contains(text, tc.want) {
			t.Errorf("%+v: missing %q in\n%s", tc.c, tc.want, text)
		}
	}
	if err := (Config{Events: 1, CheckpointInterval: -time.Second}).Validate(); err == nil {
		t.Error("a negative checkpoint interval is valid")
	}
}
