package file

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/conntest"
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

// follower is a followed source under test.
type follower struct {
	t    *testing.T
	path string
	s    *Source
	env  *testEnv
	ts   []types.T
}

func newFollower(t *testing.T, path, format string, header bool, specs ...string) *follower {
	t.Helper()
	cs := cols(t, specs...)
	env := newTestEnv(t)
	s := openSource(t, Config{Path: filepath.Base(path), Root: conntest.RootAt(t, filepath.Dir(path)), Format: format,
		Header: header, Follow: true, Columns: cs}, env)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return &follower{t: t, path: path, s: s, env: env, ts: typesOf(cs)}
}

// follow writes content to a file name in a new directory and follows it.
func follow(t *testing.T, name, content, format string, header bool, specs ...string) *follower {
	t.Helper()
	return newFollower(t, writeFile(t, t.TempDir(), name, content), format, header, specs...)
}

// next reads until the source is caught up and checks the rows read.
func (f *follower) next(want ...string) {
	f.t.Helper()
	rows, err := drain(f.t, f.s, f.ts)
	if err != nil {
		f.t.Fatal(err)
	}
	assertLines(f.t, "rows", rows, want)
	if _, err := f.s.Next(context.Background()); !errors.Is(err, exec.ErrCaughtUp) {
		f.t.Fatalf("Next after catching up = %v, want ErrCaughtUp", err)
	}
}

// grows appends content to the file and waits (at most 5 s) for Wait to
// see it.
func (f *follower) grows(content string) {
	f.t.Helper()
	appendFile(f.t, f.path, content)
	f.woken()
}

// woken waits (at most 5 s) for Wait to return, the file having changed.
func (f *follower) woken() {
	f.t.Helper()
	if err := f.wait(5 * time.Second); err != nil {
		f.t.Fatal(err)
	}
}

// wait calls Wait with a timeout and returns its error.
func (f *follower) wait(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return f.s.Wait(ctx)
}

func TestFollowAppends(t *testing.T) {
	f := follow(t, "f.csv", "1,a\n2,b\n", FormatCSV, false, "n BIGINT", "s VARCHAR")
	f.next("1 | a", "2 | b")
	if err := f.wait(120 * time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait on an idle file = %v, want DeadlineExceeded", err)
	}
	f.grows("3,c\n4,\"d")
	f.next("3 | c") // the partial last line is held back
	if err := f.wait(120 * time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with only a partial line = %v, want DeadlineExceeded", err)
	}
	f.grows("\nand more\"\n5,e")
	f.next("4 | d\nand more")
	f.grows("\n6,x\n")
	f.next("5 | e", "6 | x")
	if len(f.env.warnings) != 0 {
		t.Errorf("warnings = %q", f.env.warnings)
	}
}

func TestFollowWaitWakesOnGrowth(t *testing.T) {
	f := follow(t, "f.jsonl", `{"n":1}`+"\n", FormatJSON, false, "n BIGINT")
	f.next("1")
	done := make(chan error, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		file, err := os.OpenFile(f.path, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = file.WriteString(`{"n":2}` + "\n")
			file.Close()
		}
		done <- err
	}()
	start := time.Now()
	f.woken()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Wait returned after %v", d)
	}
	f.next("2")
}

func TestFollowWaitCanceled(t *testing.T) {
	f := follow(t, "f.csv", "1\n", FormatCSV, false, "n BIGINT")
	f.next("1")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(60 * time.Millisecond)
		cancel()
	}()
	if err := f.s.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait = %v, want context.Canceled", err)
	}
}

func TestFollowTruncatedAndReplaced(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "f.csv", "n,s\n1,a\n2,b\n3,c\n")
	f := newFollower(t, path, FormatCSV, true, "s VARCHAR", "n BIGINT")
	f.next("a | 1", "b | 2", "c | 3")

	// Truncated (shorter than what was read), with a new header order.
	writeFile(t, dir, "f.csv", "s,n\nx,9\n")
	f.woken()
	f.next("x | 9")

	// Replaced by another file (renamed over it).
	writeFile(t, dir, "g.csv", "n,s\n7,new\n8,newer\n9,newest\n")
	if err := os.Rename(filepath.Join(dir, "g.csv"), path); err != nil {
		t.Fatal(err)
	}
	f.woken()
	f.next("new | 7", "newer | 8", "newest | 9")
	assertLines(t, "warnings", f.env.warnings, []string{
		"f.csv: the file was truncated; reading it again from the beginning",
		"f.csv: the file was replaced; reading it again from the beginning",
	})
}

func TestFollowHeaderArrivesLater(t *testing.T) {
	f := follow(t, "f.csv", "", FormatCSV, true, "b BIGINT")
	f.next()
	f.grows("a,b")
	f.next() // the header line is not complete yet
	f.grows("\n1,2\n")
	f.next("2")
}

func TestFollowMissingColumnInLateHeader(t *testing.T) {
	f := follow(t, "f.csv", "", FormatCSV, true, "b BIGINT")
	f.next()
	f.grows("a,c\n1,2\n")
	for range 2 {
		if _, err := f.s.Next(context.Background()); err == nil || err.Error() != "file connector: "+f.path+": column b is missing from the CSV header (a, c)" {
			t.Fatalf("Next = %v", err)
		}
	}
}

func TestFollowJSONPartialLine(t *testing.T) {
	f := follow(t, "f.jsonl", `{"n":1}`+"\n"+`{"n":`, FormatJSON, false, "n BIGINT")
	f.next("1")
	f.grows("2}")
	f.next() // complete JSON, but no line break yet
	f.grows("\n")
	f.next("2")
}

// TestFollowLinkRotation checks that a followed path that is a link is
// resolved at every poll: moved to a new file inside the root (log
// rotation), the new file is read; moved out of the root, the source fails
// with the path error instead of reading it.
func TestFollowLinkRotation(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work, outside := filepath.Join(base, "work"), filepath.Join(base, "outside")
	for _, d := range []string{work, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, work, "log.1", "1\n")
	writeFile(t, work, "log.2", "2\n")
	writeFile(t, outside, "secret", "666\n")
	link := filepath.Join(work, "current")
	if err := os.Symlink("log.1", link); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	relink := func(target string) {
		t.Helper()
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	f := newFollower(t, link, FormatCSV, false, "n BIGINT")
	f.next("1")
	relink("log.2")
	f.woken()
	f.next("2")
	relink(filepath.Join(outside, "secret"))
	f.woken()
	rows, err := drain(t, f.s, f.ts)
	if !errors.Is(err, fileroot.ErrOutside) || len(rows) != 0 {
		t.Fatalf("after the link moved out: rows %v, error %v; want no rows and %v", rows, err, fileroot.ErrOutside)
	}
}
