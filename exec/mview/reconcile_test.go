package mview

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// TestSinkReconciles runs a Sink with Reconcile over a view that holds
// rows already (a query rebuilt from its inputs while its view is kept):
// until the first flush marker the view and its subscriber see nothing of
// the rebuilt query's output; at the marker the view becomes what the
// query integrated, and the subscriber receives the difference alone —
// retractions of the rows that went or changed value under their key
// (one per copy too many), then the rows that came — before the marker;
// later changes apply as they come.
func TestSinkReconciles(t *testing.T) {
	for _, c := range []struct {
		name    string
		key     []int
		initial string // the rows the view holds
		rebuilt string // the rebuilt query's output before the marker
		want    string // the view's rows after the marker
		diff    []string
	}{
		{"multiset", nil, "+I 1 10\n+I 1 10\n+I 2 20\n+I 4 40", "+I 1 10\n+I 3 30\n+I 4 40\n+I 4 40\n+I 5 50\n-D 5 50",
			"1 10\n3 30\n4 40\n4 40", []string{"-D 1 10", "-D 2 20", "+I 3 30", "+I 4 40"}},
		{"keyed", []int{0}, "+I 1 10\n+I 2 20\n+I 3 30", "+I 1 11\n+I 3 30\n+I 4 40",
			"1 11\n3 30\n4 40", []string{"-D 1 10", "-D 2 20", "+I 1 11", "+I 4 40"}},
		{"same", []int{0}, "+I 1 10", "+I 1 10", "1 10", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			alloc := exectest.Alloc(t)
			ctx := context.Background()
			mv := New([]string{"k", "v"}, kv, c.key)
			initial := exectest.Chunk(t, alloc, "bigint bigint\n"+c.initial)
			if err := mv.Apply(ctx, initial); err != nil {
				t.Fatal(err)
			}
			initial.Batch.Release()
			sub := mv.Subscribe(alloc)
			defer sub.Close()
			changed := -1
			sink := &Sink{MV: mv, Reconcile: true, Reconciled: func(n int) { changed = n }}
			r := &exectest.Runner{Op: sink, Env: exec.NewTestEnv(alloc), Out: exectest.NewCollector(t, exectest.CollectorOptions{})}
			before := strings.ReplaceAll(exectest.Trim(c.initial), "+I ", "")
			r.Run(t, []exectest.Step{
				{In: "bigint bigint\n" + c.rebuilt, Check: func(t *testing.T) { holdsSorted(t, mv, before) }},
				{Ctl: exectest.Control(exec.Flush), Check: func(t *testing.T) { holdsSorted(t, mv, c.want) }},
			})
			if changed != len(c.diff) {
				t.Errorf("Reconciled(%d), want %d", changed, len(c.diff))
			}
			// The subscriber: the initial rows, then the difference, then
			// the marker.
			var got []string
			for {
				chunk, ctl, err := sub.NextMessage(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if ctl.Kind == exec.Flush {
					break
				}
				for i, row := range types.Rows(chunk.Batch, kv) {
					got = append(got, chunk.Op(i).String()+" "+exectest.FormatRow(row, kv, exectest.Text))
				}
				chunk.Batch.Release()
			}
			// Rows come in no particular order, but every retraction of
			// the difference before its inserts.
			init := strings.Split(exectest.Trim(c.initial), "\n")
			n := min(len(init), len(got))
			head, diff := slices.Sorted(slices.Values(got[:n])), got[n:]
			retractionsFirst := func(a, b string) int {
				switch ra, rb := a[0] == '-', b[0] == '-'; {
				case ra == rb:
					return 0
				case ra:
					return -1
				}
				return 1
			}
			ordered := slices.IsSortedFunc(diff, retractionsFirst)
			if !slices.Equal(head, slices.Sorted(slices.Values(init))) || !ordered ||
				!slices.Equal(slices.Sorted(slices.Values(diff)), slices.Sorted(slices.Values(c.diff))) {
				t.Errorf("the subscriber got\n%s\nwant the rows\n%s\nthen, retractions first,\n%s",
					strings.Join(got, "\n"), strings.Join(init, "\n"), strings.Join(c.diff, "\n"))
			}
		})
	}
}

// holdsSorted is holds for rows given in any order.
func holdsSorted(t *testing.T, mv *View, want string) {
	t.Helper()
	lines := strings.Split(exectest.Trim(want), "\n")
	slices.Sort(lines)
	holds(t, mv, strings.Join(lines, "\n"))
}
