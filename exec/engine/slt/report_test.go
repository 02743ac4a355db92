package slt

import (
	"strings"
	"testing"
)

func TestFailureString(t *testing.T) {
	mm, got := compare([]string{"1 a", "2 b"}, rendered("1|a"), 2, noSort)
	f := &Failure{File: "x.slt", Line: 7, SQL: "SELECT a,\n  b FROM t", Reason: "result mismatch: expected 2 rows, got 1", Diff: mm, Got: got}
	want := `x.slt:7: result mismatch: expected 2 rows, got 1
    SELECT a,
      b FROM t
  first difference at row 2:
    expected: 2 b
    got:      (missing)
  got (whitespace collapsed):
    1 a`
	if s := f.String(); s != want {
		t.Errorf("got\n%s\nwant\n%s", s, want)
	}
	rep := &Report{File: "x.slt", Passed: 3, Failed: 1, Skipped: 2, Failures: []Failure{*f}}
	if s := rep.String(); !strings.HasPrefix(s, want+"\n") || !strings.Contains(s, "x.slt: 3 passed, 1 failed, 2 skipped") {
		t.Errorf("report:\n%s", s)
	}
	if rep.OK() {
		t.Error("a report with a failure is OK")
	}
}
