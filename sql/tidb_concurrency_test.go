package sql

import (
	"fmt"
	"sync"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// TestParseConcurrently parses different statements on several goroutines
// at once: each must get its own statement, never one parsed for another
// (the TiDB parsers are pooled and reuse their result slices).
func TestParseConcurrently(t *testing.T) {
	const workers, rounds = 8, 200
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			table := fmt.Sprintf("t%d", w)
			text := fmt.Sprintf("SELECT a%d FROM %s WHERE b > %d", w, table, w)
			for range rounds {
				st, err := ParseOne(text, Pos{Line: 1, Col: 1})
				if err != nil {
					errs <- fmt.Errorf("%s: %v", text, err)
					return
				}
				sel, ok := st.(*Select).Query.Select.(*ast.SelectStmt)
				if !ok {
					errs <- fmt.Errorf("%s: parsed as %T", text, st.(*Select).Query.Select)
					return
				}
				src := sel.From.TableRefs.Left.(*ast.TableSource).Source.(*ast.TableName)
				if src.Name.O != table {
					errs <- fmt.Errorf("%s: parsed a statement reading %s", text, src.Name.O)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
