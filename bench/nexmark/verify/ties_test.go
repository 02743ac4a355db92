package verify

import (
	"context"
	dbsql "database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/exec/engine/difftest"
)

// A query that picks rows by ROW_NUMBER() has one right answer only when
// its ORDER BY has no ties among the rows it must choose between;
// otherwise eddy and SQLite may each pick a different, equally right, row.
// noTies holds, per query, SQLite queries that count such ties in the
// run's events: each must be 0 for the query's result to be checked row
// for row, and a different seed that breaks this fails the test rather
// than making it flaky. q19 has ties (it orders bids by price alone), so
// checkTopNTies checks it in a way that allows any choice among them.
var noTies = map[string][]string{
	// ORDER BY price DESC per auction, then AVG() OVER ... ORDER BY the
	// chosen bid's date_time.
	"q6": {distinctTimes, `
WITH m AS (SELECT a.id, b.price FROM auction AS a JOIN bid AS b ON a.id = b.auction
           WHERE b.date_time BETWEEN a.date_time AND a.expires),
     t AS (SELECT id, MAX(price) AS top FROM m GROUP BY id)
SELECT COUNT(*) FROM (SELECT m.id FROM m JOIN t ON m.id = t.id AND m.price = t.top
                      GROUP BY m.id HAVING COUNT(*) > 1)`},
	// ORDER BY price DESC, date_time ASC per auction.
	"q9": {distinctTimes},
	// ORDER BY date_time DESC per (bidder, auction).
	"q18": {distinctTimes},
}

// distinctTimes counts bids sharing a date_time with another bid.
const distinctTimes = `SELECT COUNT(*) - COUNT(DISTINCT date_time) FROM bid`

// checkNoTies runs q's tie counts (noTies).
func checkNoTies(ctx context.Context, db *dbsql.DB, q string) error {
	for _, count := range noTies[q] {
		res, err := difftest.Query(ctx, db, count)
		if err != nil {
			return fmt.Errorf("%w\n%s", err, count)
		}
		if n, ok := res.Values[0][0].(int64); !ok || n != 0 {
			return fmt.Errorf("the run's events have %v ties that make %s's result ambiguous (choose another seed):\n%s",
				res.Values[0][0], q, strings.TrimSpace(count))
		}
	}
	return nil
}

// checkTopNTies checks q19's result (auction, bidder, price, channel,
// url, date_time, extra, rank_number: each auction's 10 highest bids)
// allowing any choice among bids of equal price: what is determined is
// the price at each rank of each auction, so (auction, price,
// rank_number) must equal SQLite's, and every row must be a distinct bid
// of the run.
func checkTopNTies(ctx context.Context, db *dbsql.DB, data *difftest.Data, got *difftest.Result, want *difftest.SQLiteResult) error {
	proj := []int{0, 2, 7}
	pg := &difftest.Result{View: got.View}
	for _, j := range proj {
		pg.Columns = append(pg.Columns, got.Columns[j])
	}
	for _, row := range got.Rows {
		var r []types.Datum
		for _, j := range proj {
			r = append(r, row[j])
		}
		pg.Rows = append(pg.Rows, r)
	}
	pw := &difftest.SQLiteResult{View: want.View, Columns: []string{"auction", "price", "rank_number"}}
	for _, vals := range want.Values {
		var r []any
		for _, j := range proj {
			r = append(r, vals[j])
		}
		pw.Values = append(pw.Values, r)
	}
	diff, err := difftest.Compare(pg, pw)
	if err != nil {
		return err
	}
	if !diff.Empty() {
		return fmt.Errorf("the prices at each rank differ:\n%s", diff)
	}
	bids := map[string]bool{}
	for _, row := range data.Final("bid") {
		bids[valueKey(row)] = true
	}
	seen := map[string]bool{}
	for _, row := range got.Rows {
		k := datumKey(row[:7], got.Columns[:7])
		switch {
		case !bids[k]:
			return fmt.Errorf("eddy's row %s is no bid of the run", k)
		case seen[k]:
			return fmt.Errorf("eddy's row %s appears twice", k)
		}
		seen[k] = true
	}
	return nil
}

// valueKey renders a row of the dumped events for matching with datumKey.
func valueKey(row difftest.Row) string {
	parts := make([]string, len(row))
	for j, v := range row {
		if v.Kind == difftest.KString {
			parts[j] = strconv.Quote(v.S)
		} else {
			parts[j] = strconv.FormatInt(v.I, 10)
		}
	}
	return strings.Join(parts, ",")
}

// datumKey renders a row of eddy's result as valueKey renders the same
// values.
func datumKey(row []types.Datum, cols []engine.Column) string {
	parts := make([]string, len(row))
	for j, d := range row {
		if cols[j].Type.Physical() == types.PhysString {
			parts[j] = strconv.Quote(d.S)
		} else {
			parts[j] = strconv.FormatInt(d.I, 10)
		}
	}
	return strings.Join(parts, ",")
}
