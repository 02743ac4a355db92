package opttest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// JoinQuery returns the shape of the planning benchmarks' join: the DDL of
// n tables t0 ... t(n-1) (k BIGINT PRIMARY KEY, v BIGINT), one statement
// each without its semicolon, and a comma-separated FROM of them joined as
// a random tree (drawn from seed) by equalities in WHERE, plus one filter.
func JoinQuery(n int, seed uint64) (ddl []string, query string) {
	r := rand.New(rand.NewPCG(seed, 1))
	var from, where []string
	for i := range n {
		ddl = append(ddl, fmt.Sprintf("CREATE TABLE t%d (k BIGINT PRIMARY KEY, v BIGINT)", i))
		from = append(from, fmt.Sprintf("t%d", i))
		if i > 0 {
			where = append(where, fmt.Sprintf("t%d.k = t%d.v", i, r.IntN(i)))
		}
	}
	where = append(where, "t0.v > 5")
	return ddl, "SELECT t0.k FROM " + strings.Join(from, ", ") + " WHERE " + strings.Join(where, " AND ")
}
