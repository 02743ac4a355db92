package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile starts writing a CPU profile of the whole run to path (the
// --cpuprofile flag: where a slow start or statement spends its time) and
// returns the function that ends it.
func startProfile(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// startProfiles starts the profiles the flags ask for — a CPU profile to
// cpuPath, an allocation profile to memPath (empty: none) — and returns
// the function that ends them and writes them out.
func startProfiles(cpuPath, memPath string) (stop func() error, err error) {
	stopCPU := func() error { return nil }
	if cpuPath != "" {
		if stopCPU, err = startProfile(cpuPath); err != nil {
			return nil, err
		}
	}
	if memPath == "" {
		return stopCPU, nil
	}
	f, err := os.Create(memPath)
	if err != nil {
		stopCPU()
		return nil, fmt.Errorf("--memprofile: %w", err)
	}
	return func() error {
		err := stopCPU()
		// The allocs profile counts every allocation sampled since the
		// start (the heap profile only what is live at its end): where a
		// slow start's memory, and the page faults of its first touch,
		// come from.
		if werr := pprof.Lookup("allocs").WriteTo(f, 0); werr != nil {
			err = errors.Join(err, fmt.Errorf("--memprofile: %w", werr))
		}
		if cerr := f.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("--memprofile: %w", cerr))
		}
		return err
	}, nil
}
