package brute

import (
	"math/rand/v2"
	"strings"
)

// Domains are the values randomized tests draw from, per type: few enough
// that groups, ties and identical rows are common, with NULLs, and doubles
// exact in binary, so that sums in any order agree. There is no -0: an
// operator may output it as 0, which it equals.
var Domains = map[string][]string{
	"bigint":        {"-3", "-1", "0", "1", "2", "7", "NULL"},
	"varchar":       {"a", "b", "ab", "''", "NULL"},
	"double":        {"-1.5", "0", "2.25", "3", "1e3", "NaN", "Inf", "-Inf", "NULL"},
	"decimal(10,2)": {"-1.50", "0.00", "2.25", "10.01", "NULL"},
	"date":          {"2024-01-01", "2024-02-29", "1969-12-31", "NULL"},
	"timestamp(3)":  {"2024-01-01T00:00:00.001", "2024-01-01T00:00:00", "1970-01-01T00:00:00", "NULL"},
	"boolean":       {"true", "false", "NULL"},
}

// RandomRow returns a function that draws rows of the column types input
// ("bigint varchar", exectest's header) from domains, as exectest's chunk
// text.
func RandomRow(r *rand.Rand, input string, domains map[string][]string) func() string {
	cols := strings.Fields(input)
	return func() string {
		vals := make([]string, len(cols))
		for i, c := range cols {
			d := domains[c]
			vals[i] = d[r.IntN(len(d))]
		}
		return strings.Join(vals, " ")
	}
}

// Changes draws random changelogs: inserts of rows Row draws, and deletes
// and updates that only ever retract a row of the integral (possibly one
// inserted earlier in the same chunk). An append-only one only inserts.
type Changes struct {
	Rand       *rand.Rand
	Row        func() string
	AppendOnly bool
	// Live are the rows of the integral, one entry per copy.
	Live []string
}

// Next returns the lines of a chunk of 1 to max changes ("+I row", "-D
// row", "-U old" and "+U new").
func (c *Changes) Next(max int) []string {
	var lines []string
	for range 1 + c.Rand.IntN(max) {
		switch k := c.Rand.IntN(10); {
		case c.AppendOnly || len(c.Live) == 0 || k < 5:
			row := c.Row()
			c.Live = append(c.Live, row)
			lines = append(lines, "+I "+row)
		case k < 8:
			i := c.Rand.IntN(len(c.Live))
			lines = append(lines, "-D "+c.Live[i])
			c.Live[i] = c.Live[len(c.Live)-1]
			c.Live = c.Live[:len(c.Live)-1]
		default:
			i := c.Rand.IntN(len(c.Live))
			row := c.Row()
			lines = append(lines, "-U "+c.Live[i], "+U "+row)
			c.Live[i] = row
		}
	}
	return lines
}
