package datagen

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/position/postest"
)

// testCols are the columns of the tests' streams: one of every type.
var testCols = []catalog.Column{
	{Name: "id", Type: types.BigIntT},
	{Name: "small", Type: types.T{Kind: types.SmallInt}, Nullable: true},
	{Name: "name", Type: types.VarcharT, Nullable: true},
	{Name: "amount", Type: types.DecimalT(8, 2)},
	{Name: "flag", Type: types.BoolT},
	{Name: "day", Type: types.DateT},
	{Name: "x", Type: types.DoubleT, Nullable: true},
	{Name: "ts", Type: types.TimestampT(3)},
}

// config returns the Config of opts over testCols; a bad option fails t.
func config(t testing.TB, opts map[string]string) Config {
	t.Helper()
	cfg, err := FromOptions(opts, testCols)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// opener returns an opener of split instance of p of cfg.
func opener(cfg Config, instance, p int) postest.Opener {
	return func(t testing.TB) exec.Positioned {
		src := New(cfg)
		env := exec.NewTestEnv(exectest.Alloc(t))
		env.Instance, env.Parallelism = instance, p
		if err := src.Open(context.Background(), env); err != nil {
			t.Fatal(err)
		}
		return src
	}
}

// rows reads every split of cfg at parallelism p to its end and returns
// the rows, formatted, sorted.
func rows(t *testing.T, cfg Config, p int) []string {
	t.Helper()
	var all []string
	for i := range p {
		src := opener(cfg, i, p)(t)
		for _, c := range postest.Read(t, src, -1) {
			all = append(all, c...)
		}
		src.Close()
	}
	slices.Sort(all)
	return all
}

// field returns field i of every row (formatted as postest formats rows:
// values separated by single spaces, which no test value holds).
func field(rows []string, i int) []string {
	out := make([]string, len(rows))
	for k, r := range rows {
		out[k] = strings.Fields(r)[i]
	}
	return out
}
