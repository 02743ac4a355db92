package autoscale

import (
	"fmt"
	"runtime"
)

// Config holds the policy's bounds and the controller's rules. Start from
// DefaultConfig: the zero Config is not valid.
type Config struct {
	// Max is the highest parallelism the policy proposes for an
	// operator: the machine's cores by default, since instances beyond
	// them only share the same cores.
	Max int
	// MinRows is the fewest rows an operator must have processed in an
	// interval for its true rates to be estimated; below it the operator
	// keeps its parallelism. 100 by default: enough for busy time, timed
	// per batch, to mean a rate.
	MinRows int64
	// Activation is how many consecutive intervals must propose a change
	// before it is applied (2 by default: one noisy interval is not
	// enough). Scale-ups from a backpressured state apply at once.
	Activation int
	// WarmUp is how many intervals are ignored after the parallelism
	// changes, and at the start (1 by default: the interval in which a
	// rescaled query restores its state and catches up).
	WarmUp int
	// UpHeadroom is the spare capacity an operator gets when it scales,
	// up or down (0.15: its instances at most 87% busy at the target
	// rate), though never more than one instance beyond DS2's π.
	// Operators that keep up with less spare get it too when a change is
	// made anyway, and those a change left with less than half of it get
	// it at once.
	UpHeadroom float64
	// DownHeadroom is the spare capacity an operator must be able to
	// keep with fewer instances to scale down at all (0.4: one instance
	// fewer would be at most 71% busy). It exceeds UpHeadroom so that an
	// operator that has just scaled is in the dead band between the two,
	// far enough from both edges that noise of ±5% in rates and costs
	// moves it across neither, though each measure behind a change can
	// be off by ±10% (a backpressured operator's target and capacity are
	// measured apart): (1+DownHeadroom)/(1+UpHeadroom) > 1.1/0.95.
	DownHeadroom float64
	// Saturated is the busy fraction at or above which an operator's
	// busiest instance forbids scaling the operator down (0.95).
	Saturated float64
	// Skew is the Imbalance (busiest instance's busy time over the mean)
	// from which an operator counts as skewed, and scales down only as
	// far as a bound on its hot keys allows (1.5: more than ±20% apart in
	// speed, which alike instances on shared cores are not).
	Skew float64
	// Lag is how far below its target rate a source must read for the
	// dataflow to count as backpressured, so that a scale-up applies at
	// once (0.1: it reads less than 90% of its target rate).
	Lag float64
	// LogSize is how many decisions the controller keeps (256).
	LogSize int
}

// DefaultConfig returns the default settings, with Max the number of
// cores.
func DefaultConfig() Config {
	return Config{
		Max:          runtime.NumCPU(),
		MinRows:      100,
		Activation:   2,
		WarmUp:       1,
		UpHeadroom:   0.15,
		DownHeadroom: 0.4,
		Saturated:    0.95,
		Skew:         1.5,
		Lag:          0.1,
		LogSize:      256,
	}
}

// check reports a setting out of range.
func (c Config) check() error {
	switch {
	case c.Max < 1:
		return fmt.Errorf("%w: Max %d is below 1", ErrInvalid, c.Max)
	case c.MinRows < 0:
		return fmt.Errorf("%w: MinRows %d is negative", ErrInvalid, c.MinRows)
	case c.Activation < 1:
		return fmt.Errorf("%w: Activation %d is below 1", ErrInvalid, c.Activation)
	case c.WarmUp < 0:
		return fmt.Errorf("%w: WarmUp %d is negative", ErrInvalid, c.WarmUp)
	case !(c.UpHeadroom >= 0) || !(c.DownHeadroom >= c.UpHeadroom):
		return fmt.Errorf("%w: headrooms up %v and down %v (want 0 ≤ up ≤ down)", ErrInvalid, c.UpHeadroom, c.DownHeadroom)
	case !(c.Saturated > 0 && c.Saturated <= 1):
		return fmt.Errorf("%w: Saturated %v is not in (0, 1]", ErrInvalid, c.Saturated)
	case !(c.Skew >= 1):
		return fmt.Errorf("%w: Skew %v is below 1", ErrInvalid, c.Skew)
	case !(c.Lag >= 0 && c.Lag < 1):
		return fmt.Errorf("%w: Lag %v is not in [0, 1)", ErrInvalid, c.Lag)
	case c.LogSize < 1:
		return fmt.Errorf("%w: LogSize %d is below 1", ErrInvalid, c.LogSize)
	}
	return nil
}
