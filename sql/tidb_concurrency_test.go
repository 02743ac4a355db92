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

// TestParsedTreesStayWithTheirReader parses statements on several
// goroutines while each reads the text positions of the trees it got. TiDB's
// parser keeps its symbol stack between parses and, on a reduction by an
// empty rule, sets the position of the expression left in a stack slot,
// which can belong to a tree an earlier parse returned to another goroutine;
// the pool must hand out parsers cleared of those trees (go test -race
// reported the write here before it did).
func TestParsedTreesStayWithTheirReader(t *testing.T) {
	texts := []string{
		"SELECT NULLIF(a, 1), COALESCE(b, c + 1) FROM t WHERE g(a, b) > 2",
		"SELECT CASE WHEN a > 0 THEN f(a) END FROM t GROUP BY a ORDER BY h(b) LIMIT 3",
		"SELECT COUNT(*), SUM(a) FROM t GROUP BY b HAVING COUNT(*) > 1",
		"SELECT a FROM (SELECT f(a) AS a FROM t) AS s WHERE a IN (1, 2)",
		"INSERT INTO t VALUES (f(1), 2), (3, g(4))",
	}
	const workers, rounds = 4, 300
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var p positions
			for r := range rounds {
				stmts, err := tidbParse(texts[(w+r)%len(texts)])
				if err != nil {
					t.Error(err)
					return
				}
				p.exprs = p.exprs[:0]
				for _, s := range stmts {
					s.Accept(&p)
				}
				for _, e := range p.exprs {
					if e.OriginTextPosition() < 0 {
						t.Errorf("%T at a negative position", e)
					}
				}
			}
		})
	}
	wg.Wait()
}

// positions collects the expressions of a tree.
type positions struct{ exprs []ast.ExprNode }

// Enter records n if it is an expression.
func (p *positions) Enter(n ast.Node) (ast.Node, bool) {
	if e, ok := n.(ast.ExprNode); ok {
		p.exprs = append(p.exprs, e)
	}
	return n, false
}

// Leave continues the walk.
func (p *positions) Leave(n ast.Node) (ast.Node, bool) { return n, true }
