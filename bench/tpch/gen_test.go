package tpch

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGenerate checks the files' sizes, headers and a few of dbgen's
// value domains.
func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	if err := Generate(dir, Sizes{Parts: 50, LineItems: 400}); err != nil {
		t.Fatal(err)
	}
	read := func(name string) [][]string {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var rows [][]string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			rows = append(rows, strings.Split(sc.Text(), ","))
		}
		return rows
	}
	parts, lines := read("part.csv"), read("lineitem.csv")
	if len(parts) != 51 || len(lines) != 401 {
		t.Fatalf("%d part lines and %d line item lines, want 51 and 401 (with headers)", len(parts), len(lines))
	}
	if parts[1][0] != "1" || !strings.HasPrefix(parts[1][3], "Brand#") {
		t.Errorf("first part %v", parts[1])
	}
	for _, l := range lines[1:] {
		if len(l) != 15 {
			t.Fatalf("line item %v has %d fields", l, len(l))
		}
		if k, err := strconv.Atoi(l[1]); err != nil || k < 1 || k > 50 {
			t.Fatalf("line item part key %s not among the 50 parts", l[1])
		}
	}
}
