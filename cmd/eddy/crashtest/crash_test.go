package crashtest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	// The harness runs eddy as a separate binary; importing its command
	// makes go test's cache see eddy's sources, so a change to them runs
	// the harness again rather than reusing a cached result.
	_ "github.com/eddysql/eddy/cmd/eddy/cli"
)

var (
	crashN     = flag.Int("crash.n", 3, "how many times the crash harness kills eddy")
	crashSeed  = flag.Uint64("crash.seed", 0, "the seed of the harness's kill moments (0: from the clock; the test logs it)")
	crashPanic = flag.Float64("crash.panic", 0.0005, "the probability with which a task of a checkpointed query panics before a chunk, in the killed runs")
)

// maxKillDelay bounds how long a process runs before it is killed.
const maxKillDelay = 1500 * time.Millisecond

// TestCrashHarness runs the workload twice — once killed at random
// moments (and with injected task failures), once never — and compares
// the views and the file sink's output: they must be identical.
func TestCrashHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash harness runs eddy as a child process; not in -short")
	}
	bin := buildEddy(t)
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -crash.seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))

	ref, crashed := newRun(t, bin, "reference"), newRun(t, bin, "crashed")
	for _, r := range []*run{ref, crashed} {
		r.exec(t, setup)
	}
	kills, rounds := 0, 0
	lifetime := maxKillDelay // how long the last process not killed ran
	for ; kills < *crashN && rounds < 4**crashN+5; rounds++ {
		// The first kills come while the Nexmark sources are read (a
		// started process reads them until it is killed), the later ones
		// while the new rows are, or while a process starts or closes:
		// at a random moment of a process's lifetime.
		delay := time.Duration(rng.Int64N(int64(lifetime)))
		killed, ran := crashed.killedDuring(t, "FLUSH;", delay, *crashPanic)
		if killed {
			kills++
		} else {
			lifetime = max(ran, 10*time.Millisecond)
		}
		for _, r := range []*run{ref, crashed} {
			r.appendLines(t, lines(rounds))
			r.exec(t, inserts(rounds))
		}
	}
	if kills < *crashN {
		t.Fatalf("only %d of %d processes were killed before they ended", kills, *crashN)
	}
	want, got := ref.exec(t, final()), crashed.exec(t, final())
	if dir := os.Getenv("CRASH_KEEP"); dir != "" {
		os.WriteFile(filepath.Join(dir, "want.txt"), []byte(want), 0o644)
		os.WriteFile(filepath.Join(dir, "got.txt"), []byte(got), 0o644)
	}
	if got != want {
		t.Errorf("after %d kills in %d rounds the views differ from the run that never crashed:\n%s", kills, rounds, diff(want, got))
	}
	wantSink, gotSink := ref.read(t, sinkFile), crashed.read(t, sinkFile)
	if gotSink != wantSink || !strings.Contains(wantSink, "\n") {
		t.Errorf("after %d kills the sink's file differs from the run that never crashed (%d vs %d bytes):\n%s",
			kills, len(gotSink), len(wantSink), diff(wantSink, gotSink))
	}
	t.Logf("%d kills in %d rounds: %d view lines and %d sink bytes identical", kills, rounds,
		strings.Count(want, "\n"), len(wantSink))
}

// buildEddy builds the eddy binary for the test.
func buildEddy(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "eddy")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/eddysql/eddy/cmd/eddy")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building eddy: %v\n%s", err, out)
	}
	return bin
}

// run is one data directory and file root the workload runs on.
type run struct {
	bin, name, data, root string
}

func newRun(t testing.TB, bin, name string) *run {
	dir := filepath.Join(t.TempDir(), name)
	r := &run{bin: bin, name: name, data: filepath.Join(dir, "data"), root: filepath.Join(dir, "files")}
	if err := os.MkdirAll(r.root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.root, "lines.csv"), []byte("k,tag\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return r
}

// command returns the eddy process that runs sql on r.
func (r *run) command(sql string) *exec.Cmd {
	cmd := exec.Command(r.bin, "--data-dir", r.data, "--file-root", r.root, "--parallelism", "2",
		"--checkpoint-interval", "100ms", "--timing=false", "exec", "-e", sql)
	// Every aggregate that can writes its snapshots in the background,
	// however few its groups.
	cmd.Env = append(os.Environ(), "EDDY_TEST_BACKGROUND_SNAPSHOT_SLOTS=1")
	return cmd
}

// exec runs sql to its end and returns its output, failing t if eddy
// fails.
func (r *run) exec(t testing.TB, sql string) string {
	t.Helper()
	cmd := r.command(sql)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s run: eddy exec %q: %v\nstdout:\n%s\nstderr:\n%s", r.name, firstLine(sql), err, out.String(), errOut.String())
	}
	return out.String()
}

// killedDuring starts a process running sql, its tasks panicking at rate
// panicRate, and kills it with SIGKILL after delay. It reports whether
// the process was killed rather than done by then, and if not how long it
// ran.
func (r *run) killedDuring(t *testing.T, sql string, delay time.Duration, panicRate float64) (bool, time.Duration) {
	t.Helper()
	cmd := r.command(sql)
	cmd.Env = append(cmd.Env, fmt.Sprintf("EDDY_TEST_TASK_PANIC_RATE=%g", panicRate))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		// Done before the kill: a query failing on an injected panic
		// may make FLUSH report it, which is no failure of the harness.
		if err != nil {
			t.Logf("%s run: a process ended with %v before its kill:\n%s", r.name, err, out.String())
		}
		return false, time.Since(start)
	case <-time.After(delay):
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatal(err)
	}
	<-done
	return true, 0
}

// appendLines appends text to the followed CSV file.
func (r *run) appendLines(t *testing.T, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(r.root, "lines.csv"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// read returns the content of a file under the file root.
func (r *run) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// diff shows the first lines where got departs from want.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q", i+1, wl, gl)
		}
	}
	return "(same lines)"
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}
