package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// waitForFile polls path until it holds want or the deadline passes, and
// returns what it last held.
func waitForFile(t *testing.T, path, want string, deadline time.Time) string {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		b, _ := os.ReadFile(path)
		if string(b) == want || !time.Now().Before(deadline) {
			return string(b)
		}
		<-tick.C
	}
}

// TestSinkOutputWithoutFlush checks that a file sink's rows reach its file
// within its flush interval, without FLUSH and however slowly its input
// comes: here a followed file trickles a few rows, far fewer than fill the
// sink's buffer, into a sink with the default interval (a second) and one
// with flush_interval = '50ms'.
func TestSinkOutputWithoutFlush(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("id,v\n1,a\n2,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := openAt(t, dir)
	defer e.Close()
	run(t, e.NewSession(SessionOptions{}), `
		CREATE STREAM src (id BIGINT, v VARCHAR) WITH (connector = 'file', path = 'in.csv', format = 'csv', header = 'true', follow = 'true');
		CREATE SINK by_default AS SELECT id, v FROM src WITH (connector = 'file', path = 'default.jsonl');
		CREATE SINK quick AS SELECT id, v FROM src WITH (connector = 'file', path = 'quick.jsonl', flush_interval = '50ms');`)
	want := `{"id":1,"v":"a"}` + "\n" + `{"id":2,"v":"b"}` + "\n"
	// Bounded: a second of flush interval, plus generous slack for a busy
	// machine; the rows never came before the interval existed.
	deadline := time.Now().Add(20 * time.Second)
	for _, name := range []string{"default.jsonl", "quick.jsonl"} {
		if got := waitForFile(t, filepath.Join(dir, name), want, deadline); got != want {
			t.Fatalf("%s holds %q, want %q", name, got, want)
		}
	}
	// A row appended later follows, again without FLUSH.
	f, err := os.OpenFile(in, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("3,c\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	want += `{"id":3,"v":"c"}` + "\n"
	deadline = time.Now().Add(20 * time.Second)
	for _, name := range []string{"default.jsonl", "quick.jsonl"} {
		if got := waitForFile(t, filepath.Join(dir, name), want, deadline); got != want {
			t.Fatalf("%s holds %q after the append, want %q", name, strings.TrimSpace(got), want)
		}
	}
}
