package proptest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
)

// Batch is the rows one INSERT statement writes into one source, each
// value written as a SQL literal.
type Batch struct {
	Source string
	Rows   [][]string
}

// SQL renders the batch as an INSERT statement.
func (b Batch) SQL() string {
	var sb strings.Builder
	sb.WriteString("INSERT INTO " + b.Source + " VALUES ")
	for i, row := range b.Rows {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("(" + strings.Join(row, ", ") + ")")
	}
	sb.WriteByte(';')
	return sb.String()
}

// Round is one step of ingestion: the tables' upserts and a FLUSH, then
// each stream's rows and a FLUSH, one stream after the other (in an order
// that changes from round to round). Flushing after the tables makes a
// lookup join deterministic: every stream row of a round looks up the
// tables as the round left them. Flushing after each stream fixes the
// order in which rows of different streams meet: no row of a stream is
// late, but a join can still output a row behind the watermark (its match
// came from the other stream later), and a window that closed before it
// drops it. Which rows those are must follow from the case, not from
// which source's rows happened to reach the join first.
type Round struct {
	Tables  []Batch
	Streams []Batch // each stream's batches together
}

// Statements returns the statements that feed the round, FLUSHes
// included.
func (r Round) Statements() []string {
	var out []string
	for _, b := range r.Tables {
		out = append(out, b.SQL())
	}
	out = append(out, "FLUSH;")
	for i, b := range r.Streams {
		out = append(out, b.SQL())
		if i == len(r.Streams)-1 || r.Streams[i+1].Source != b.Source {
			out = append(out, "FLUSH;")
		}
	}
	return out
}

// Data is the input of a case, round by round.
type Data struct {
	Rounds []Round
}

// Rows returns how many rows the data writes in all.
func (d *Data) Rows() int {
	n := 0
	for _, rd := range d.Rounds {
		for _, b := range append(append([]Batch(nil), rd.Tables...), rd.Streams...) {
			n += len(b.Rows)
		}
	}
	return n
}

// Value domains. They are small so that joins and groups match often.
var (
	strDomain = []string{"a", "b", "c", "ab", "B", ""}
	// epochMs is where event time starts: 2024-01-01 00:00:00 UTC.
	epochMs = int64(1704067200000)
)

// nullPct is the share of NULLs, in percent, in every nullable column.
const nullPct = 10

// GenData returns three to five rounds of rows for the schema's sources.
// Tables receive upserts of keys 0..9 (a key seen before is an update; a
// key may repeat within one INSERT, the last row winning). Streams receive
// rows with unique ids and event times that move forward with bounded
// disorder: on a watermarked stream no row is ever older than the largest
// event time so far minus the watermark delay, so no row is late however
// the rows are read.
func GenData(r *rand.Rand, s *Schema) *Data {
	d := &Data{}
	clocks := map[string]*clock{}
	ids := map[string]int64{}
	for _, src := range s.Streams() {
		clocks[src.Name] = &clock{now: epochMs + int64(r.IntN(3000)), max: -1, delay: int64(src.WatermarkSec) * 1000}
	}
	rounds := 3 + r.IntN(3)
	for rd := range rounds {
		var round Round
		for _, src := range s.Tables() {
			n := r.IntN(6)
			if rd == 0 {
				n = 6 + r.IntN(5)
			}
			if n == 0 {
				continue
			}
			b := Batch{Source: src.Name}
			for range n {
				b.Rows = append(b.Rows, genRow(r, src, nil, 0))
			}
			round.Tables = append(round.Tables, b)
		}
		streams := s.Streams()
		for _, k := range r.Perm(len(streams)) {
			src := streams[k]
			n := 5 + r.IntN(12)
			var rows [][]string
			for range n {
				ids[src.Name]++
				rows = append(rows, genRow(r, src, clocks[src.Name], ids[src.Name]))
			}
			// One or two INSERT statements a round.
			cut := n
			if r.IntN(2) == 0 {
				cut = r.IntN(n + 1)
			}
			for _, part := range [][][]string{rows[:cut], rows[cut:]} {
				if len(part) > 0 {
					round.Streams = append(round.Streams, Batch{Source: src.Name, Rows: part})
				}
			}
		}
		d.Rounds = append(d.Rounds, round)
	}
	return d
}

// clock is the event time of one stream.
type clock struct {
	now   int64 // moves forward by 0.1 to 0.7 seconds a row
	max   int64 // the largest event time so far
	delay int64 // the watermark delay in ms; 0 without a watermark
}

// next returns the event time of the stream's next row: behind the clock
// by a random disorder, but never late.
func (c *clock) next(r *rand.Rand) int64 {
	c.now += 100 + int64(r.IntN(600))
	disorder := int64(3000)
	if c.delay > 0 {
		disorder = c.delay
	}
	ts := c.now - int64(r.IntN(int(disorder)+1))
	if c.delay > 0 && c.max >= 0 && ts < c.max-c.delay {
		ts = c.max - c.delay
	}
	c.max = max(c.max, ts)
	return ts
}

// genRow returns one row of src: id is the stream row's unique id, and
// clk its stream's event time (both unused for tables).
func genRow(r *rand.Rand, src *Source, clk *clock, id int64) []string {
	row := make([]string, len(src.Columns))
	for i, c := range src.Columns {
		switch {
		case c.Name == src.Key && src.Table:
			row[i] = strconv.Itoa(r.IntN(10))
		case c.Name == src.Key:
			row[i] = strconv.FormatInt(id, 10)
		case c.Type == Time && clk != nil:
			ts := clk.next(r) // advance the clock even for a NULL
			row[i] = timeLiteral(ts)
			if r.IntN(100) < 3 {
				row[i] = "NULL"
			}
		default:
			row[i] = genValue(r, c.Type)
		}
	}
	return row
}

// genValue returns a literal of type t from the type's small domain, or
// NULL. Doubles are multiples of 0.25, so that their sums are exact in any
// order and aggregates over them cannot differ by rounding.
func genValue(r *rand.Rand, t Type) string {
	if r.IntN(100) < nullPct {
		return "NULL"
	}
	switch t {
	case Int:
		if r.IntN(3) == 0 {
			return strconv.Itoa(r.IntN(26) - 5) // -5..20
		}
		return strconv.Itoa(r.IntN(10))
	case Double:
		return strconv.FormatFloat(float64(r.IntN(81)-40)/4, 'f', -1, 64)
	case Decimal:
		// -5.00 to 9.99: mostly quarters, so that values repeat, and some
		// other cents.
		cents := 25*r.IntN(60) - 500
		if r.IntN(4) == 0 {
			cents = r.IntN(1500) - 500
		}
		sign := ""
		if cents < 0 {
			sign, cents = "-", -cents
		}
		return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
	case String:
		return quote(strDomain[r.IntN(len(strDomain))])
	case Bool:
		return []string{"TRUE", "FALSE"}[r.IntN(2)]
	case Time:
		return timeLiteral(epochMs + int64(r.IntN(20000)))
	}
	return "NULL"
}

// timeLiteral renders epoch milliseconds as a TIMESTAMP(3) literal.
func timeLiteral(ms int64) string { return "'" + types.FormatTimestamp(ms, 3) + "'" }

// quote renders s as a string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
