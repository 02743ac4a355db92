package dataflow

import (
	"reflect"
	"testing"

	"github.com/eddysql/eddy/exec"
)

func TestAlignerWatermarkIsMinimumOverSenders(t *testing.T) {
	a := newAligner(2)
	if got := a.add(0, exec.Control{Kind: exec.Watermark, Watermark: 10}); len(got) != 0 {
		t.Fatalf("one sender's watermark must not advance the output: %v", got)
	}
	got := a.add(1, exec.Control{Kind: exec.Watermark, Watermark: 5})
	want := []exec.Control{{Kind: exec.Watermark, Watermark: 5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := a.add(1, exec.Control{Kind: exec.Watermark, Watermark: 7}); !reflect.DeepEqual(got, []exec.Control{{Kind: exec.Watermark, Watermark: 7}}) {
		t.Fatalf("advance to 7: got %v", got)
	}
	// A watermark going backwards is ignored.
	if got := a.add(0, exec.Control{Kind: exec.Watermark, Watermark: 3}); len(got) != 0 {
		t.Fatalf("regressing watermark: got %v", got)
	}
	// An ended sender no longer holds the watermark back.
	got = a.add(1, exec.Control{Kind: exec.EndOfInput})
	if !reflect.DeepEqual(got, []exec.Control{{Kind: exec.Watermark, Watermark: 10}}) {
		t.Fatalf("after end of sender 1: got %v", got)
	}
	got = a.add(0, exec.Control{Kind: exec.EndOfInput})
	want = []exec.Control{{Kind: exec.CaughtUp, Input: 0}, {Kind: exec.CaughtUp, Input: -1}, {Kind: exec.EndOfInput}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after both ended: got %v, want %v", got, want)
	}
}

func TestAlignerCaughtUpPerInput(t *testing.T) {
	// Senders 0 and 1 feed input 0; sender 2 feeds input 1.
	a := newAligner(3)
	a.setInput(2, 1)
	if got := a.add(2, exec.Control{Kind: exec.CaughtUp, Input: -1}); !reflect.DeepEqual(got, []exec.Control{{Kind: exec.CaughtUp, Input: 1}}) {
		t.Fatalf("input 1 caught up: got %v", got)
	}
	if got := a.add(0, exec.Control{Kind: exec.CaughtUp, Input: -1}); len(got) != 0 {
		t.Fatalf("half of input 0 caught up: got %v", got)
	}
	want := []exec.Control{{Kind: exec.CaughtUp, Input: 0}, {Kind: exec.CaughtUp, Input: -1}}
	if got := a.add(1, exec.Control{Kind: exec.EndOfInput}); !reflect.DeepEqual(got, want) {
		t.Fatalf("an ended sender counts as caught up: got %v, want %v", got, want)
	}
	if got := a.add(0, exec.Control{Kind: exec.CaughtUp, Input: -1}); len(got) != 0 {
		t.Fatalf("caught up is reported once: got %v", got)
	}
}

func TestAlignerIgnoresDeafSendersWatermarks(t *testing.T) {
	a := newAligner(2)
	a.ignoreWatermarks(1)
	if got := a.add(0, exec.Control{Kind: exec.Watermark, Watermark: 5}); !reflect.DeepEqual(got, []exec.Control{{Kind: exec.Watermark, Watermark: 5}}) {
		t.Fatalf("the other sender alone sets the watermark: got %v", got)
	}
	if got := a.add(1, exec.Control{Kind: exec.Watermark, Watermark: 1}); len(got) != 0 {
		t.Fatalf("a deaf sender's watermark counted: got %v", got)
	}
}

func TestAlignerMarkersWaitForEverySender(t *testing.T) {
	a := newAligner(3)
	if got := a.add(0, exec.Control{Kind: exec.Flush, FlushID: 1}); len(got) != 0 {
		t.Fatalf("got %v", got)
	}
	if got := a.add(2, exec.Control{Kind: exec.Flush, FlushID: 2}); len(got) != 0 {
		t.Fatalf("got %v", got)
	}
	// Sender 1 reaches flush 2 (having passed 1): the aligned flush is the
	// lowest every sender passed, 1.
	if got := a.add(1, exec.Control{Kind: exec.Flush, FlushID: 2}); !reflect.DeepEqual(got, []exec.Control{{Kind: exec.Flush, FlushID: 1}}) {
		t.Fatalf("got %v", got)
	}
	if got := a.add(0, exec.Control{Kind: exec.Flush, FlushID: 2}); !reflect.DeepEqual(got, []exec.Control{{Kind: exec.Flush, FlushID: 2}}) {
		t.Fatalf("got %v", got)
	}
	// Barriers align independently of flushes.
	a.add(0, exec.Control{Kind: exec.Barrier, Epoch: 1})
	a.add(1, exec.Control{Kind: exec.Barrier, Epoch: 1})
	if got := a.add(2, exec.Control{Kind: exec.EndOfInput}); !reflect.DeepEqual(got, []exec.Control{{Kind: exec.Barrier, Epoch: 1}}) {
		t.Fatalf("an ended sender must release the barrier: got %v", got)
	}
}

// TestAlignerCaughtUpCostsConstantPerSender aligns exec.CaughtUp for a task
// with as many inputs as senders — a union of 3,000 members — as each
// sender catches up and ends. Every input is reported once, when its
// sender catches up, and all of them after the last. The work is a
// constant per sender: the aligner used to scan every input's senders
// for every exec.CaughtUp and end of input, 18M steps here (and minutes of
// planning-then-running for a union of 5,000 SELECTs).
func TestAlignerCaughtUpCostsConstantPerSender(t *testing.T) {
	const n = 3000
	a := newAligner(n)
	for s := range n {
		a.setInput(s, s)
	}
	var got []exec.Control
	for s := n - 1; s >= 0; s-- {
		got = append(got, a.add(s, exec.Control{Kind: exec.CaughtUp, Input: -1})...)
		got = append(got, a.add(s, exec.Control{Kind: exec.EndOfInput})...)
	}
	var want []exec.Control
	for s := n - 1; s >= 0; s-- {
		want = append(want, exec.Control{Kind: exec.CaughtUp, Input: s})
	}
	want = append(want, exec.Control{Kind: exec.CaughtUp, Input: -1}, exec.Control{Kind: exec.EndOfInput})
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %d messages, want %d (first %v, last %v)", len(got), len(want), got[:min(3, len(got))], got[max(0, len(got)-3):])
	}
	if a.caughtWork > 3*n {
		t.Errorf("aligning exec.CaughtUp for %d senders took %d steps, more than %d", n, a.caughtWork, 3*n)
	}
}
