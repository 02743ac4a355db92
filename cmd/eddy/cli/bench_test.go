package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchHelperEnv marks the test binary run as eddy by benchSelf in
// TestBenchNexmark.
const benchHelperEnv = "EDDY_CLI_BENCH_HELPER"

// TestBenchHelperProcess is not a test: it is eddy, run by the bench as a
// child process (see useTestBinaryAsEddy).
func TestBenchHelperProcess(t *testing.T) {
	if os.Getenv(benchHelperEnv) != "1" {
		return
	}
	args := os.Args
	for len(args) > 0 && args[0] != "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		os.Exit(exitUsage)
	}
	os.Exit(Main(context.Background(), args[1:], StdIO()))
}

// useTestBinaryAsEddy makes the bench run its children as this test
// binary, which TestBenchHelperProcess turns into eddy.
func useTestBinaryAsEddy(t *testing.T) {
	old := benchSelf
	benchSelf = func() ([]string, error) {
		return []string{os.Args[0], "-test.run=^TestBenchHelperProcess$", "--"}, nil
	}
	t.Setenv(benchHelperEnv, "1")
	t.Cleanup(func() { benchSelf = old })
}

func runBench(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), append([]string{"bench", "nexmark"}, args...), IO{In: strings.NewReader(""), Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

func TestBenchUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--events", "0"}, "--events must be at least 1"},
		{[]string{"--events", "many"}, "invalid argument"},
		{[]string{"--rate", "-5"}, "--rate must not be negative"},
		{[]string{"--checkpoint-interval", "-1s"}, "--checkpoint-interval must not be negative"},
		{[]string{"--watermark-alignment", "-1s"}, "--watermark-alignment must be 0 or at least 1ms"},
		{[]string{"--watermark-alignment", "100us"}, "--watermark-alignment must be 0 or at least 1ms"},
		{[]string{"--generate", "everything"}, `--generate must be read or all, got "everything"`},
		{[]string{"--queries", "q0,bid"}, `"bid" is not a query name`},
		{[]string{"--queries", ""}, "no queries"},
		{[]string{"--queries", "q0,q99"}, "no query q99"},
		{[]string{"--dir", "/nonexistent/nexmark"}, "query directory"},
		{[]string{"extra"}, "unknown command"},
	} {
		code, out, errOut := runBench(t, tc.args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

func TestBenchHelp(t *testing.T) {
	code, out, _ := runBench(t, "--help")
	if code != exitOK || !strings.Contains(out, "--events") || !strings.Contains(out, "--queries") || !strings.Contains(out, "--generate") || strings.Contains(out, "--child") {
		t.Errorf("exit %d, help:\n%s", code, out)
	}
}

// TestBenchNexmark runs the bench end to end, children and all, on q0 and
// q1 with a tiny run.
func TestBenchNexmark(t *testing.T) {
	useTestBinaryAsEddy(t)
	code, out, errOut := runBench(t, "--events", "20000", "--queries", "q0,q1", "--parallelism", "2", "--json")
	if code != exitOK {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines (baseline, q0, q1), got:\n%s\nstderr:\n%s", out, errOut)
	}
	for i, want := range []string{"baseline", "q0", "q1"} {
		var f struct {
			Query             string   `json:"query"`
			Events            *int64   `json:"events"`
			WallS             *float64 `json:"wall_s"`
			CPUS              *float64 `json:"cpu_s"`
			SysS              *float64 `json:"sys_s"`
			Cores             *float64 `json:"cores"`
			EventsPerS        *float64 `json:"events_per_s"`
			EventsPerSPerCore *float64 `json:"events_per_s_per_core"`
			PeakRSSBytes      *int64   `json:"peak_rss_bytes"`
			Generate          string   `json:"generate"`
		}
		dec := json.NewDecoder(strings.NewReader(lines[i]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("line %d: %v: %s", i, err, lines[i])
		}
		if f.Query != want || f.Events == nil || *f.Events != 20000 || f.WallS == nil || *f.WallS <= 0 ||
			f.CPUS == nil || *f.CPUS < 0 || f.SysS == nil || *f.SysS < 0 || *f.SysS > *f.CPUS || f.Cores == nil || f.EventsPerS == nil || *f.EventsPerS <= 0 ||
			f.EventsPerSPerCore == nil || f.PeakRSSBytes == nil || *f.PeakRSSBytes < 1<<20 || f.Generate != "read" {
			t.Errorf("line %d: %s", i, lines[i])
		}
	}
	if !strings.Contains(errOut, "nexmark [3/3] q1: 20,000 events in") {
		t.Errorf("progress:\n%s", errOut)
	}
}

// TestBenchNexmarkGenerateAll runs q3 with --generate all: its JSON lines
// say so, with the same events as under read, and so does the
// description on standard error; the table report says it at its top.
func TestBenchNexmarkGenerateAll(t *testing.T) {
	useTestBinaryAsEddy(t)
	code, out, errOut := runBench(t, "--events", "20000", "--queries", "q3", "--parallelism", "2", "--json", "--generate", "all")
	if code != exitOK {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines (baseline, q3), got:\n%s\nstderr:\n%s", out, errOut)
	}
	for i, want := range []string{"baseline", "q3"} {
		var f struct {
			Query    string `json:"query"`
			Events   int64  `json:"events"`
			Generate string `json:"generate"`
			Error    string `json:"error"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &f); err != nil {
			t.Fatal(err)
		}
		if f.Query != want || f.Events != 20000 || f.Generate != "all" || f.Error != "" {
			t.Errorf("line %d: %s", i, lines[i])
		}
	}
	if !strings.Contains(errOut, "every event of every table, every column, whatever the query reads (--generate all)") {
		t.Errorf("description:\n%s", errOut)
	}
	code, out, errOut = runBench(t, "--events", "20000", "--queries", "q0", "--generate", "all")
	if code != exitOK || !strings.Contains(out, "(--generate all)") || !strings.Contains(out, "\nq0 ") {
		t.Errorf("table: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestBenchNexmarkTable runs one query with the table report.
func TestBenchNexmarkTable(t *testing.T) {
	useTestBinaryAsEddy(t)
	code, out, errOut := runBench(t, "--events", "20000", "--queries", "q2")
	if code != exitOK || !strings.Contains(out, "\nbaseline ") || !strings.Contains(out, "\nq2 ") || !strings.HasSuffix(out, "1 of 1 queries ran.\n") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestBenchNexmarkCheckpoints runs a query checkpointed every millisecond
// into a data directory: its JSON line counts the checkpoints that
// committed and their durations (q0 is stateless: its checkpoints write
// its sources' positions, which are not operator state, so no bytes).
func TestBenchNexmarkCheckpoints(t *testing.T) {
	useTestBinaryAsEddy(t)
	code, out, errOut := runBench(t, "--events", "1000000", "--queries", "q0", "--parallelism", "2", "--json", "--checkpoint-interval", "1ms")
	if code != exitOK {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines (baseline, q0), got:\n%s\nstderr:\n%s", out, errOut)
	}
	var f struct {
		Query           string  `json:"query"`
		Checkpoints     int     `json:"checkpoints"`
		CheckpointBytes int64   `json:"checkpoint_bytes"`
		MaxMs           float64 `json:"checkpoint_max_ms"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &f); err != nil {
		t.Fatal(err)
	}
	if f.Query != "q0" || f.Checkpoints < 1 || f.CheckpointBytes != 0 || f.MaxMs <= 0 {
		t.Errorf("q0 checkpointed every millisecond: %s", lines[1])
	}
	if !strings.Contains(errOut, "checkpoints every 1ms into a Badger data directory") {
		t.Errorf("description:\n%s", errOut)
	}
}

// TestBenchNexmarkOutsideTheCheckout runs the bench from a directory that
// is no eddy checkout: the queries are built into the binary, and q13's
// side input with them. --dir still reads a directory of its own instead.
func TestBenchNexmarkOutsideTheCheckout(t *testing.T) {
	useTestBinaryAsEddy(t)
	t.Chdir(t.TempDir())
	code, out, errOut := runBench(t, "--events", "20000", "--queries", "q13", "--json")
	if code != exitOK {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"query":"q13"`) || strings.Contains(lines[1], `"error"`) {
		t.Errorf("want the baseline and q13 without an error, got:\n%s\nstderr:\n%s", out, errOut)
	}

	// --dir overrides, relative to the working directory.
	if err := os.Mkdir("mine", 0o755); err != nil {
		t.Fatal(err)
	}
	q := "CREATE SINK q99 AS SELECT auction FROM bid WITH (connector = 'blackhole');\n"
	if err := os.WriteFile(filepath.Join("mine", "q99.sql"), []byte(q), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runBench(t, "--events", "20000", "--queries", "all", "--dir", "mine", "--json")
	lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != exitOK || len(lines) != 2 || !strings.Contains(lines[1], `"query":"q99"`) || strings.Contains(lines[1], `"error"`) {
		t.Errorf("--dir mine: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, _, errOut := runBench(t, "--queries", "q0", "--dir", "mine"); code != exitUsage || !strings.Contains(errOut, "no query q0 in "+filepath.Join(mustGetwd(t), "mine")+" (there are: q99)") {
		t.Errorf("--dir without q0: exit %d, stderr %q", code, errOut)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
