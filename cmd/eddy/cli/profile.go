package cli

import (
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
