package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eddysql/eddy/storage/badger/damagetest"
)

// TestDamagedDataDirectoryExitCode checks that every command that opens a
// data directory reports damage in it on standard error and exits 3,
// without a panic and without changing the damaged file.
func TestDamagedDataDirectoryExitCode(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runEngine(t, dir, "", "exec", "-e", `
CREATE STREAM s (a BIGINT, b VARCHAR);
INSERT INTO s VALUES (1, 'x'), (2, 'y');`)
	if code != 0 {
		t.Fatalf("creating the directory: exit %d, %s", code, errOut)
	}
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(tables) == 0 {
		t.Fatal("closing the engine wrote no table file")
	}
	sst := tables[0]
	b, err := os.ReadFile(sst)
	if err != nil {
		t.Fatal(err)
	}
	damaged := b[:len(b)/2]
	if err := os.WriteFile(sst, damaged, 0o644); err != nil {
		t.Fatal(err)
	}

	// slt keeps its directories under --data-dir, one per file.
	slt := writeFile(t, "d.slt", "statement ok\nSELECT 1\n")
	sltDir := filepath.Join(t.TempDir(), "data")
	if err := damagetest.CopyDir(dir, filepath.Join(sltDir, "d")); err != nil {
		t.Fatal(err)
	}

	for name, args := range map[string][]string{
		"exec":  {"--data-dir", dir, "exec", "-e", "SELECT a FROM s;"},
		"shell": {"--data-dir", dir},
		"slt":   {"--data-dir", sltDir, "slt", slt},
	} {
		var out, errBuf bytes.Buffer
		stdin := "SELECT a FROM s;\n"
		code := Main(t.Context(), append([]string{"--timing=false"}, args...), IO{In: strings.NewReader(stdin), Out: &out, Err: &errBuf})
		msg := errBuf.String()
		t.Logf("%s: exit %d: %s", name, code, msg)
		if code != exitDamaged || !strings.Contains(msg, "ERROR: ") || !strings.Contains(msg, "damaged data: ") ||
			!strings.Contains(msg, filepath.Base(sst)+", which holds ") || !strings.Contains(msg, "restore the data directory from a copy") ||
			strings.Contains(msg, "panic") {
			t.Errorf("%s: exit %d, stderr:\n%s", name, code, msg)
		}
	}
	if after, err := os.ReadFile(sst); err != nil || !bytes.Equal(after, damaged) {
		t.Errorf("the damaged file was changed: %d bytes, %v", len(after), err)
	}
}
