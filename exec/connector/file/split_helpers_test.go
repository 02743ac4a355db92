package file

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/eddysql/eddy/exec"
)

// splitRead is what reading a file in p splits gave: every split's rows
// together, the warnings of all of them in the order they came, the bad
// rows they counted together, and the error each split ended with (nil at
// io.EOF).
type splitRead struct {
	rows     []string
	warnings []string
	bad      int64
	errs     []error
}

// stageEnvs returns the envs of p instances of one stage, as the runtime
// makes them: instance i of p, one exec.Shared, warnings into one list.
func stageEnvs(t testing.TB, p int, warnings *[]string) []*testEnv {
	shared := &exec.Shared{}
	envs := make([]*testEnv, p)
	for i := range envs {
		env := newTestEnv(t)
		env.Instance, env.Parallelism, env.Shared = i, p, shared
		env.OnWarning = func(msg string) { *warnings = append(*warnings, msg) }
		envs[i] = env
	}
	return envs
}

// openSplits opens the p splits of cfg's file, as one stage, each
// reading at most readLimit bytes at a time (0: no limit).
func openSplits(t testing.TB, cfg Config, p, readLimit int, warnings *[]string) ([]*Source, []*testEnv) {
	t.Helper()
	envs := stageEnvs(t, p, warnings)
	srcs := make([]*Source, p)
	for i := range srcs {
		s := newSource(t, cfg)
		if readLimit > 0 {
			s.rd.readLimit, s.rd.buf = readLimit, make([]byte, 4)
		}
		if err := s.Open(context.Background(), envs[i].Env); err != nil {
			t.Fatalf("split %d of %d: Open: %v", i, p, err)
		}
		srcs[i] = s
	}
	return srcs, envs
}

// readSplits reads cfg's file in p splits: one after the other, in
// instance order, or, with interleave, a chunk of each in turn.
func readSplits(t testing.TB, cfg Config, p, readLimit int, interleave bool) splitRead {
	t.Helper()
	var r splitRead
	srcs, envs := openSplits(t, cfg, p, readLimit, &r.warnings)
	r.errs = make([]error, p)
	done := make([]bool, p)
	ts := typesOf(cfg.Columns)
	next := func(i int) {
		c, err := srcs[i].Next(context.Background())
		switch {
		case errors.Is(err, io.EOF):
			done[i] = true
		case err != nil:
			done[i], r.errs[i] = true, err
		default:
			r.rows = append(r.rows, formatChunk(t, c, ts)...)
			c.Batch.Release()
		}
	}
	for i := range srcs {
		for !interleave && !done[i] {
			next(i)
		}
	}
	for interleave && slices.Contains(done, false) {
		for i := range srcs {
			if !done[i] {
				next(i)
			}
		}
	}
	for _, env := range envs {
		r.bad += env.Metrics.BadRows.Load()
	}
	return r
}

// sorted returns rows sorted: the multiset splits read in any order.
func sorted(rows []string) []string {
	rows = slices.Clone(rows)
	slices.Sort(rows)
	return rows
}
