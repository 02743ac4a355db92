package nexmark

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/bench/nexmark/queries"
)

func TestParseList(t *testing.T) {
	for _, tc := range []struct {
		in    string
		names []string
		all   bool
		err   string
	}{
		{in: "all", all: true},
		{in: " ALL ", all: true},
		{in: "q0", names: []string{"q0"}},
		{in: "q0,q5,Q22", names: []string{"q0", "q5", "q22"}},
		{in: "7, q7 ,q7.sql,3", names: []string{"q7", "q3"}},
		{in: "q5_rewrite", names: []string{"q5_rewrite"}},
		{in: "q0,,q1,", names: []string{"q0", "q1"}},
		{in: "", err: "no queries"},
		{in: " , ", err: "no queries"},
		{in: "q0,bid", err: `"bid" is not a query name`},
		{in: "q", err: `"q" is not a query name`},
		{in: "q1;q2", err: "is not a query name"},
	} {
		names, all, err := ParseList(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseList(%q): error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || all != tc.all || !reflect.DeepEqual(names, tc.names) {
			t.Errorf("ParseList(%q) = %q, %v, %v; want %q, %v", tc.in, names, all, err, tc.names, tc.all)
		}
	}
}

// queryDir writes files (name → text) into a new directory.
func queryDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadQueries(t *testing.T) {
	dir := queryDir(t, map[string]string{
		"q10.sql": "ten;", "q2.sql": "two;", "q0.sql": "zero;", "q5_rewrite.sql": "five b;", "q5.sql": "five;",
		"README.md": "docs", "side_input.csv": "1,1", "notes.sql": "not a query;",
	})
	if err := os.Mkdir(filepath.Join(dir, "q7.sql"), 0o755); err != nil { // a directory is no query
		t.Fatal(err)
	}
	qs, err := LoadQueries(dir, "all")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range qs {
		got = append(got, q.Name+"="+q.Text)
		if q.File != filepath.Join(dir, q.Name+".sql") {
			t.Errorf("%s: File = %s", q.Name, q.File)
		}
	}
	want := []string{"q0=zero;", "q2=two;", "q5=five;", "q5_rewrite=five b;", "q10=ten;"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("all: got %q, want %q", got, want)
	}

	qs, err = LoadQueries(dir, "10,q0")
	if err != nil || len(qs) != 2 || qs[0].Name != "q10" || qs[1].Name != "q0" {
		t.Errorf("10,q0: got %v, %v", qs, err)
	}
	_, err = LoadQueries(dir, "q0,q3")
	if err == nil || !strings.Contains(err.Error(), "no query q3") || !strings.Contains(err.Error(), "q0, q2, q5, q5_rewrite, q10") {
		t.Errorf("missing query: error %v", err)
	}
	if _, err := LoadQueries(dir, "nope"); err == nil {
		t.Error("a bad list loaded")
	}
	if _, err := LoadQueries(t.TempDir(), "all"); err == nil || !strings.Contains(err.Error(), "no query files") {
		t.Errorf("empty directory: error %v", err)
	}
	if _, err := LoadQueries(filepath.Join(dir, "missing"), "all"); err == nil {
		t.Error("a missing directory loaded")
	}
}

// TestBuiltInQueriesAreTheDirectory checks that the queries built into
// the binary are the files of the query directory: every file but the Go
// sources and the documentation is embedded, so a data file a query reads
// cannot be left out.
func TestBuiltInQueriesAreTheDirectory(t *testing.T) {
	entries, err := os.ReadDir("queries")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); ext != ".go" && ext != ".md" {
			want = append(want, e.Name())
		}
	}
	embedded, err := fs.ReadDir(queries.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range embedded {
		got = append(got, e.Name())
		disk, err := os.ReadFile(filepath.Join("queries", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := fs.ReadFile(queries.FS, e.Name()); !bytes.Equal(b, disk) {
			t.Errorf("%s: the embedded file differs from the one on disk", e.Name())
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("embedded %q, want the directory's %q", got, want)
	}
	if !slices.Contains(got, "side_input.csv") {
		t.Errorf("q13's side input is not embedded: %q", got)
	}
}

// TestQueryFiles checks the built-in query files: q0 to q22 are all
// there, in order, and each parses into at least one statement.
func TestQueryFiles(t *testing.T) {
	qs, err := LoadQueries("", "all")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, q := range qs {
		names = append(names, q.Name)
		if q.File != q.Name+".sql" {
			t.Errorf("%s: File = %s", q.Name, q.File)
		}
		if _, err := parseQuery(q); err != nil {
			t.Errorf("%s: %v", q.Name, err)
		}
	}
	var want []string
	for i := 0; i <= 22; i++ {
		want = append(want, "q"+strconv.Itoa(i))
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("query files %q, want %q", names, want)
	}
}
