package cli

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestProfileFlags runs eddy with --cpuprofile and --memprofile and checks
// that both files are profiles as pprof writes them (gzipped protocol
// buffers): of CPU samples, and of the allocations sampled since the
// start, which name the allocs profile's sample types.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	code, _, errOut := runCLI(t, nil, "", "--cpuprofile", cpu, "--memprofile", mem, "exec", "-e",
		"CREATE STREAM s (a BIGINT); INSERT INTO s VALUES (1), (2); SELECT SUM(a) FROM s;")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, f := range []struct{ path, sampleType string }{{cpu, "cpu"}, {mem, "alloc_space"}} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: not gzipped: %v", f.path, err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		if !bytes.Contains(raw, []byte(f.sampleType)) {
			t.Errorf("%s: no %s samples in %d bytes", f.path, f.sampleType, len(raw))
		}
	}
	if code, _, errOut := runCLI(t, nil, "", "--memprofile", filepath.Join(dir, "no", "such", "dir"), "exec", "-e", "SELECT 1;"); code == 0 || errOut == "" {
		t.Errorf("--memprofile into a missing directory: exit %d, stderr %q", code, errOut)
	}
}
