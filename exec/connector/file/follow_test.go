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
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

// follower is a followed source under test.
type follower struct {
	t   *testing.T
	s   *Source
	env *testEnv
	ts  []types.T
}

func newFollower(t *testing.T, path, format string, header bool, specs ...string) *follower {
	t.Helper()
	cs := cols(t, specs...)
	s, err := New(Config{Path: filepath.Base(path), Root: rootAt(t, filepath.Dir(path)), Format: format,
		Header: header, Follow: true, Columns: cs})
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnv()
	if err := s.Open(context.Background(), env.Env); err != nil {
		t.Fatal(err)
	}
	return &follower{t: t, s: s, env: env, ts: typesOf(cs)}
}

func (f *follower) close() {
	f.t.Helper()
	if err := f.s.Close(); err != nil {
		f.t.Fatal(err)
	}
	f.env.alloc.AssertSize(f.t, 0)
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

// wait calls Wait with a timeout and returns its error.
func (f *follower) wait(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return f.s.Wait(ctx)
}

func TestFollowAppends(t *testing.T) {
	path := writeFile(t, t.TempDir(), "f.csv", "1,a\n2,b\n")
	f := newFollower(t, path, FormatCSV, false, "n BIGINT", "s VARCHAR")
	defer f.close()
	f.next("1 | a", "2 | b")
	if err := f.wait(120 * time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait on an idle file = %v, want DeadlineExceeded", err)
	}
	appendFile(t, path, "3,c\n4,\"d")
	if err := f.wait(5 * time.Second); err != nil {
		t.Fatalf("Wait after growth = %v", err)
	}
	f.next("3 | c") // the partial last line is held back
	if err := f.wait(120 * time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with only a partial line = %v, want DeadlineExceeded", err)
	}
	appendFile(t, path, "\nand more\"\n5,e")
	if err := f.wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	f.next("4 | d\nand more")
	appendFile(t, path, "\n6,x\n")
	if err := f.wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	f.next("5 | e", "6 | x")
	if len(f.env.warnings) != 0 {
		t.Errorf("warnings = %q", f.env.warnings)
	}
}

func TestFollowWaitWakesOnGrowth(t *testing.T) {
	path := writeFile(t, t.TempDir(), "f.jsonl", `{"n":1}`+"\n")
	f := newFollower(t, path, FormatJSON, false, "n BIGINT")
	defer f.close()
	f.next("1")
	done := make(chan error, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString(`{"n":2}` + "\n")
			f.Close()
		}
		done <- err
	}()
	start := time.Now()
	if err := f.wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Wait returned after %v", d)
	}
	f.next("2")
}

func TestFollowWaitCanceled(t *testing.T) {
	path := writeFile(t, t.TempDir(), "f.csv", "1\n")
	f := newFollower(t, path, FormatCSV, false, "n BIGINT")
	defer f.close()
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
	defer f.close()
	f.next("a | 1", "b | 2", "c | 3")

	// Truncated (shorter than what was read), with a new header order.
	writeFile(t, dir, "f.csv", "s,n\nx,9\n")
	if err := f.wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	f.next("x | 9")

	// Replaced by another file (renamed over it).
	writeFile(t, dir, "g.csv", "n,s\n7,new\n8,newer\n9,newest\n")
	if err := os.Rename(filepath.Join(dir, "g.csv"), path); err != nil {
		t.Fatal(err)
	}
	if err := f.wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	f.next("new | 7", "newer | 8", "newest | 9")
	assertLines(t, "warnings", f.env.warnings, []string{
		"f.csv: the file was truncated; reading it again from the beginning",
		"f.csv: the file was replaced; reading it again from the beginning",
	})
}

func TestFollowHeaderArrivesLater(t *testing.T) {
	path := writeFile(t, t.TempDir(), "f.csv", "")
	f := newFollower(t, path, FormatCSV, true, "b BIGINT")
	defer f.close()
	f.next()
	appendFile(t, path, "a,b")
	if err := f.wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	f.next() // the header line is not complete yet
	appendFile(t, path, "\n1,2\n")
	if err := f.wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	f.next("2")
}

func TestFollowMissingColumnInLateHeader(t *testing.T) {
	path := writeFile(t, t.TempDir(), "f.csv", "")
	f := newFollower(t, path, FormatCSV, true, "b BIGINT")
	defer f.close()
	f.next()
	appendFile(t, path, "a,c\n1,2\n")
	if err := f.wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := f.s.Next(context.Background()); err == nil || err.Error() != "file connector: "+path+": column b is missing from the CSV header (a, c)" {
			t.Fatalf("Next = %v", err)
		}
	}
}

func TestFollowJSONPartialLine(t *testing.T) {
	path := writeFile(t, t.TempDir(), "f.jsonl", `{"n":1}`+"\n"+`{"n":`)
	f := newFollower(t, path, FormatJSON, false, "n BIGINT")
	defer f.close()
	f.next("1")
	appendFile(t, path, "2}")
	if err := f.wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	f.next() // complete JSON, but no line break yet
	appendFile(t, path, "\n")
	if err := f.wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
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
	defer f.s.Close()
	f.next("1")
	relink("log.2")
	if err := f.wait(5 * time.Second); err != nil {
		t.Fatalf("Wait after the link moved = %v", err)
	}
	f.next("2")
	relink(filepath.Join(outside, "secret"))
	if err := f.wait(5 * time.Second); err != nil {
		t.Fatalf("Wait after the link moved out = %v", err)
	}
	rows, err := drain(t, f.s, f.ts)
	if !errors.Is(err, fileroot.ErrOutside) || len(rows) != 0 {
		t.Fatalf("after the link moved out: rows %v, error %v; want no rows and %v", rows, err, fileroot.ErrOutside)
	}
}
