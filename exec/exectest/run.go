package exectest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
)

// Alloc returns a checked allocator that fails t, when the test ends, if
// any buffer allocated from it was not released.
func Alloc(t testing.TB) *memory.CheckedAllocator {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { alloc.AssertSize(t, 0) })
	return alloc
}

// Step is one step of an operator test: a chunk in text form fed to input
// In, or a control message when Ctl is set; then the changelog the step
// must emit (Want, compared after trimming indentation and blank lines),
// or the error it must fail with (Err, matched with errors.Is); then an
// optional check. AnyOut says the changelog is not compared with Want (a
// random step): only the collector's checks and the oracle judge it.
type Step struct {
	In     string
	Input  int
	Ctl    *exec.Control
	Want   string
	AnyOut bool
	Err    error
	Check  func(t *testing.T)
}

// Watermark returns a watermark control message for a Step.
func Watermark(ms int64) *exec.Control {
	return &exec.Control{Kind: exec.Watermark, Watermark: ms}
}

// Control returns a control message of kind for a Step.
func Control(kind exec.ControlKind) *exec.Control { return &exec.Control{Kind: kind} }

// Runner runs steps through an operator. Inputs, if set, integrates every
// input's chunks (index by input number), and Oracle, if set, is called
// after every step with them: it returns the expected integral of the
// output, compared with the Collector's Rows.
type Runner struct {
	Op     exec.Operator
	Env    *exec.Env
	Out    *Collector
	Inputs []*Integral
	Oracle func(inputs []*Integral) []string
}

// Run opens r.Op with r.Env, runs steps through it, and closes it. It
// stops after the first step that expects an error. Each chunk is
// released after Process, as the runtime does.
func (r *Runner) Run(t *testing.T, steps []Step) {
	t.Helper()
	ctx := context.Background()
	if err := r.Op.Open(ctx, r.Env); err != nil {
		t.Fatal(err)
	}
	defer r.Op.Close()
	for i, st := range steps {
		var err error
		if st.Ctl != nil {
			err = r.Op.OnControl(ctx, *st.Ctl, r.Out)
		} else {
			ch := Chunk(t, r.Env.Alloc, st.In)
			if st.Input < len(r.Inputs) && r.Inputs[st.Input] != nil {
				r.Inputs[st.Input].Add(ch)
			}
			err = r.Op.Process(ctx, st.Input, ch, r.Out)
			ch.Batch.Release()
		}
		if st.Err != nil {
			if !errors.Is(err, st.Err) {
				t.Fatalf("step %d: got error %v, want %v", i, err, st.Err)
			}
			return
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got, want := r.Out.Take(), Trim(st.Want); !st.AnyOut && got != want {
			t.Fatalf("step %d: emitted\n%s\nwant\n%s", i, got, want)
		}
		if r.Oracle != nil {
			if got, want := strings.Join(r.Out.Rows(), "\n"), strings.Join(r.Oracle(r.Inputs), "\n"); got != want {
				t.Fatalf("step %d: integrated output\n%s\nbrute force\n%s", i, got, want)
			}
		}
		if st.Check != nil {
			st.Check(t)
		}
	}
}

// Trim removes the indentation and the blank lines of a text.
func Trim(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
