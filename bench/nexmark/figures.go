package nexmark

import (
	"math"
	"slices"
	"time"
)

// Measurement is what one run of a query measured.
type Measurement struct {
	// Events is the length of the global event sequence the run consumed.
	Events int64
	// Wall is the elapsed time from just before the query's first
	// statement to just after FLUSH returned.
	Wall time.Duration
	// CPU is the user plus system CPU time the process spent over the
	// same span, and Sys the system part of it: on a VM, most of it is
	// the first touch of fresh memory (page faults), which swings from
	// run to run.
	CPU, Sys time.Duration
	// PeakRSS is the process's peak resident set size, in bytes.
	PeakRSS int64
	// Checkpoints is the number of checkpoints that committed during the
	// run (the one FLUSH takes at the end included), CheckpointBytes the
	// bytes of state entries they wrote (keys and values),
	// CheckpointDurations their durations from the barriers' request to
	// the commit, and CheckpointsFailed the number that failed.
	// CheckpointSyncMax is the longest synchronous part of a committed
	// checkpoint: the longest any task's input waited at a barrier for its
	// operators' snapshots (SHOW CHECKPOINTS' sync_ms).
	Checkpoints         int
	CheckpointBytes     int64
	CheckpointDurations []time.Duration
	CheckpointsFailed   int
	CheckpointSyncMax   time.Duration
}

// Figures are a query's results as `eddy bench nexmark --json` prints
// them, one JSON object per line with exactly these fields.
type Figures struct {
	Query             string  `json:"query"`
	Events            int64   `json:"events"`
	WallS             float64 `json:"wall_s"`
	CPUS              float64 `json:"cpu_s"`
	SysS              float64 `json:"sys_s"` // the system part of cpu_s
	Cores             float64 `json:"cores"`
	EventsPerS        float64 `json:"events_per_s"`
	EventsPerSPerCore float64 `json:"events_per_s_per_core"`
	PeakRSSBytes      int64   `json:"peak_rss_bytes"`
	// Generate is what the generator made: GenerateRead or GenerateAll.
	Generate string `json:"generate"`
	// The checkpoints of a checkpointed run (absent without checkpoints).
	Checkpoints        int     `json:"checkpoints,omitempty"`
	CheckpointsFailed  int     `json:"checkpoints_failed,omitempty"`
	CheckpointBytes    int64   `json:"checkpoint_bytes,omitempty"`
	CheckpointMedianMs float64 `json:"checkpoint_median_ms,omitempty"`
	CheckpointMaxMs    float64 `json:"checkpoint_max_ms,omitempty"`
	CheckpointSyncMs   float64 `json:"checkpoint_sync_max_ms,omitempty"`
}

// Compute derives the figures of a measurement: cores is CPU time per
// second of wall time, events per second per core is events per CPU
// second; CheckpointDurations gives the median and the longest checkpoint
// (it must be sorted), CheckpointSyncMax the longest synchronous part. Times are rounded to microseconds, cores to thousandths and
// rates to whole events, which is finer than a run can be repeated. A
// zero time gives zero for the rates that divide by it, never an infinity.
func Compute(query string, m Measurement) Figures {
	wall, cpu := m.Wall.Seconds(), m.CPU.Seconds()
	f := Figures{
		Query:        query,
		Events:       m.Events,
		WallS:        round(wall, 1e6),
		CPUS:         round(cpu, 1e6),
		SysS:         round(m.Sys.Seconds(), 1e6),
		PeakRSSBytes: m.PeakRSS,
	}
	if wall > 0 {
		f.Cores = round(cpu/wall, 1e3)
		f.EventsPerS = math.Round(float64(m.Events) / wall)
	}
	if cpu > 0 {
		f.EventsPerSPerCore = math.Round(float64(m.Events) / cpu)
	}
	f.Checkpoints, f.CheckpointsFailed, f.CheckpointBytes = m.Checkpoints, m.CheckpointsFailed, m.CheckpointBytes
	if d := m.CheckpointDurations; len(d) > 0 {
		ms := func(x time.Duration) float64 { return round(x.Seconds()*1e3, 1e3) }
		f.CheckpointMedianMs, f.CheckpointMaxMs = ms(d[len(d)/2]), ms(slices.Max(d))
		f.CheckpointSyncMs = ms(m.CheckpointSyncMax)
	}
	return f
}

// round rounds x to a multiple of 1/scale.
func round(x, scale float64) float64 { return math.Round(x*scale) / scale }

// Ratios are a query's figures divided by the baseline's; a ratio whose
// baseline figure is zero is NaN (printed as a dash).
type Ratios struct {
	Wall, CPU, Cores, EventsPerS, EventsPerSPerCore, PeakRSS float64
}

// RatiosTo returns f's figures divided by base's.
func (f Figures) RatiosTo(base Figures) Ratios {
	return Ratios{
		Wall:              ratio(f.WallS, base.WallS),
		CPU:               ratio(f.CPUS, base.CPUS),
		Cores:             ratio(f.Cores, base.Cores),
		EventsPerS:        ratio(f.EventsPerS, base.EventsPerS),
		EventsPerSPerCore: ratio(f.EventsPerSPerCore, base.EventsPerSPerCore),
		PeakRSS:           ratio(float64(f.PeakRSSBytes), float64(base.PeakRSSBytes)),
	}
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// Outcome is how one query of a run ended: its figures, or why it could
// not run.
type Outcome struct {
	Query   string
	Figures Figures // valid when Err is nil
	Err     error
}
