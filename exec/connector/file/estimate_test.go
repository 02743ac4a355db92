package file

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

// TestEstimateRows: a bounded file's rows are its size over its first
// lines' mean length (less a CSV header): exact for a file within the
// sample, close for one far larger; a followed or missing file has no
// estimate.
func TestEstimateRows(t *testing.T) {
	dir := t.TempDir()
	root, err := fileroot.New(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, lines int, header bool) {
		var b strings.Builder
		if header {
			b.WriteString("k,v\n")
		}
		for i := range lines {
			fmt.Fprintf(&b, "%d,value-%d\n", i, i%10)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("small.csv", 100, true)
	write("large.csv", 500_000, false)
	cols := []catalog.Column{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.VarcharT}}
	env := connector.Env{Root: root}
	estimate := func(opts map[string]string) float64 {
		opts["connector"] = "file"
		return Connector{}.EstimateRows(connector.Spec{Object: "s", Options: opts, Columns: cols}, env)
	}
	if got := estimate(map[string]string{"path": "small.csv", "header": "true"}); got != 100 {
		t.Errorf("100 rows under a header: estimated %v", got)
	}
	if got := estimate(map[string]string{"path": "large.csv"}); got < 450_000 || got > 550_000 {
		t.Errorf("500,000 rows: estimated %v", got)
	}
	if got := estimate(map[string]string{"path": "large.csv", "follow": "true"}); got != 0 {
		t.Errorf("a followed file: estimated %v", got)
	}
	if got := estimate(map[string]string{"path": "missing.csv"}); got != 0 {
		t.Errorf("a missing file: estimated %v", got)
	}
}
