package nexmark

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// helperEnv marks the test binary run as a child process by helperCommand.
const helperEnv = "EDDY_NEXMARK_TEST_HELPER"

// helperCommand returns a command that runs this test binary as a child
// process: TestHelperProcess then acts as mode says, for query.
func helperCommand(ctx context.Context, mode, query string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperProcess$", "--", mode, query)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	return cmd
}

// TestHelperProcess is not a test: it is the child process of the tests
// of runChild and Run. Mode serve runs a query as `eddy bench nexmark
// --child` does; the other modes misbehave.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		return
	}
	args := os.Args
	for len(args) > 0 && args[0] != "--" {
		args = args[1:]
	}
	if len(args) != 3 {
		fmt.Fprintf(os.Stderr, "helper: bad arguments %q\n", os.Args)
		os.Exit(2)
	}
	mode, name := args[1], args[2]
	switch mode {
	case "serve":
		c := testConfig(t)
		q := Baseline()
		if name != BaselineName {
			qs, err := LoadQueries(c.Dir, name)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			q = qs[0]
		}
		if err := ServeChild(context.Background(), c, q, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	case "crash":
		fmt.Println(`{"progress":{"rows":5,"elapsed_ns":1000}}`)
		fmt.Fprintln(os.Stderr, "panic: boom")
		os.Exit(3)
	case "garbage":
		fmt.Println("hello")
		os.Exit(0)
	}
	os.Exit(0) // silent
}

func TestRunChild(t *testing.T) {
	ctx := context.Background()
	var progress []Progress
	f, err := runChild(helperCommand(ctx, "serve", "q0"), func(p Progress) { progress = append(progress, p) })
	if err != nil || f.Query != "q0" || f.Events != 20_000 || f.WallS <= 0 {
		t.Errorf("serve: %+v, %v", f, err)
	}
	_, err = runChild(helperCommand(ctx, "crash", "q0"), func(p Progress) { progress = append(progress, p) })
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "panic: boom") {
		t.Errorf("crash: %v", err)
	}
	if len(progress) == 0 || progress[len(progress)-1].Rows != 5 {
		t.Errorf("progress %+v", progress)
	}
	_, err = runChild(helperCommand(ctx, "garbage", "q0"), nil)
	if err == nil || !strings.Contains(err.Error(), "reported nothing") || !strings.Contains(err.Error(), "hello") {
		t.Errorf("garbage: %v", err)
	}
	_, err = runChild(helperCommand(ctx, "silent", "q0"), nil)
	if err == nil || !strings.Contains(err.Error(), "reported nothing") {
		t.Errorf("silent: %v", err)
	}
	_, err = runChild(exec.Command("/nonexistent/eddy"), nil)
	if err == nil || !strings.Contains(err.Error(), "starting the child process") {
		t.Errorf("no binary: %v", err)
	}
}

// runOptions runs the baseline and queries through helper processes;
// q98 crashes.
func runOptions(queries ...string) (Options, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	o := Options{Config: Config{Events: 20_000, Parallelism: 2}, Out: &out, Err: &errOut,
		Command: func(ctx context.Context, query string) *exec.Cmd {
			if query == "q98" {
				return helperCommand(ctx, "crash", query)
			}
			return helperCommand(ctx, "serve", query)
		}}
	for _, q := range queries {
		o.Queries = append(o.Queries, Query{Name: q})
	}
	return o, &out, &errOut
}

func TestRunJSON(t *testing.T) {
	o, out, errOut := runOptions("q0", "q98", "q2")
	o.JSON = true
	outcomes, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 4 || outcomes[2].Err == nil {
		t.Fatalf("outcomes %+v", outcomes)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	var names []string
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		names = append(names, m["query"].(string))
		if m["query"] == "q98" {
			if len(m) != 2 || !strings.Contains(m["error"].(string), "panic: boom") {
				t.Errorf("error line %s", l)
			}
		} else if len(m) != 10 || m["events"] != 20_000.0 || m["generate"] != GenerateRead {
			t.Errorf("line %s", l)
		}
	}
	if got := strings.Join(names, ","); got != "baseline,q0,q98,q2" {
		t.Errorf("lines for %s", got)
	}
	for _, want := range []string{"nexmark: 20,000 events", "nexmark [1/4] baseline: starting", "nexmark [3/4] q98: cannot run"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, errOut.String())
		}
	}
}

func TestRunTable(t *testing.T) {
	o, out, _ := runOptions("q0")
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"nexmark: 20,000 events", "\nquery ", "\nbaseline ", "\nq0 ", "×)", "1 of 1 queries ran.\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}

func TestRunBaselineFails(t *testing.T) {
	o, out, _ := runOptions("q0")
	o.Command = func(ctx context.Context, query string) *exec.Cmd { return helperCommand(ctx, "crash", query) }
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "baseline") {
		t.Errorf("error %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("a report without a baseline: %s", out.String())
	}
	o.Command = nil
	if _, err := Run(context.Background(), o); err == nil {
		t.Error("ran without a Command")
	}
}
