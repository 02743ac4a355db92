package engine

import (
	"fmt"
	"slices"
	"testing"
)

// TestNoticesReachEverySession checks that a notice of a running query
// reaches every open session once, with its next statement, whichever
// session runs a statement first; that the first session also gets the
// notices added before it opened (those of the queries resumed at
// startup) and later sessions only those added after they opened; and
// that a session idle for long gets the latest maxNotices.
func TestNoticesReachEverySession(t *testing.T) {
	e := openEngine(t, Config{})
	defer e.Close()
	notices := func(s *Session) []string {
		t.Helper()
		return run(t, s, "SHOW STREAMS;").Notices
	}
	e.notices.add("resumed at startup")
	a := e.NewSession(SessionOptions{})
	e.notices.add("before b")
	b := e.NewSession(SessionOptions{})
	e.notices.add("for both")
	if got := notices(b); !slices.Equal(got, []string{"for both"}) {
		t.Fatalf("b got %q, want the notice added after it opened", got)
	}
	if got := notices(a); !slices.Equal(got, []string{"resumed at startup", "before b", "for both"}) {
		t.Fatalf("a got %q, want every notice: b's statement must not take them", got)
	}
	if got := notices(a); got != nil {
		t.Fatalf("a got %q again", got)
	}
	for i := range maxNotices + 10 {
		e.notices.add(fmt.Sprint(i))
	}
	got := notices(b)
	if len(got) != maxNotices || got[0] != "10" || got[len(got)-1] != fmt.Sprint(maxNotices+9) {
		t.Fatalf("b got %d notices from %q to %q, want the latest %d", len(got), got[0], got[len(got)-1], maxNotices)
	}
}
