package difftest

import (
	"fmt"
	"slices"
	"strings"
)

// Column is a column of a source: its name and its eddy SQL type.
type Column struct {
	Name string
	Type string
}

// Source is a stream or table that the generator feeds: its schema, and
// for a table its primary key.
type Source struct {
	Name    string
	Table   bool     // a TABLE (latest row per key) rather than a STREAM
	Key     []string // the primary key of a table
	Columns []Column
	// Watermark is the expression of the WATERMARK clause, declared only
	// when the "watermark" feature is supported.
	Watermark string
}

// col returns the position of column name.
func (s *Source) col(name string) int {
	return slices.IndexFunc(s.Columns, func(c Column) bool { return c.Name == name })
}

// keyOf renders the primary key of row, to find the rows a table replaces.
func (s *Source) keyOf(row Row) string {
	var b strings.Builder
	for _, k := range s.Key {
		b.WriteString(row[s.col(k)].Literal())
		b.WriteByte(0)
	}
	return b.String()
}

// DDL returns the eddy statement that creates the source, with its
// WATERMARK clause when watermarks are supported.
func (s *Source) DDL(watermarks bool) string {
	var parts []string
	for _, c := range s.Columns {
		parts = append(parts, c.Name+" "+c.Type)
	}
	if watermarks && s.Watermark != "" {
		parts = append(parts, fmt.Sprintf("WATERMARK FOR %s AS %s", s.Columns[s.col(timeColumn(s))].Name, s.Watermark))
	}
	kind := "STREAM"
	if s.Table {
		kind = "TABLE"
		parts = append(parts, "PRIMARY KEY ("+strings.Join(s.Key, ", ")+")")
	}
	return fmt.Sprintf("CREATE %s %s (%s);", kind, s.Name, strings.Join(parts, ", "))
}

// timeColumn returns the column a source's watermark is declared on: the
// first column the watermark expression names.
func timeColumn(s *Source) string {
	for _, c := range s.Columns {
		if strings.HasPrefix(s.Watermark, c.Name+" ") {
			return c.Name
		}
	}
	panic("difftest: watermark of " + s.Name + " names no column")
}

// SQLiteDDL returns the SQLite statement creating a plain table called
// name with the source's columns (in SQLite's storage classes) followed
// by extra column definitions.
func (s *Source) SQLiteDDL(name string, extra ...string) string {
	var parts []string
	for _, c := range s.Columns {
		parts = append(parts, c.Name+" "+sqliteType(c.Type))
	}
	parts = append(parts, extra...)
	return fmt.Sprintf("CREATE TABLE %s (%s)", name, strings.Join(parts, ", "))
}

// sqliteType maps an eddy column type to the SQLite type that stores its
// values: temporal values are INTEGER milliseconds since the epoch,
// booleans INTEGER 0/1, decimals and doubles REAL.
func sqliteType(t string) string {
	u := strings.ToUpper(t)
	switch {
	case strings.HasPrefix(u, "VARCHAR"), strings.HasPrefix(u, "TEXT"):
		return "TEXT"
	case strings.HasPrefix(u, "DECIMAL"), u == "DOUBLE", u == "FLOAT":
		return "REAL"
	}
	return "INTEGER"
}

// The sources every corpus entry can read. Their columns are what the
// corpus is written against; change them only with the corpus.
var (
	// bidSource is a Nexmark-like bid stream: skewed auctions and bidders,
	// a few channels, URLs to cut into pieces, and event times that are
	// unique and at most one position out of order.
	bidSource = &Source{Name: "bid", Columns: []Column{
		{"auction", "BIGINT"}, {"bidder", "BIGINT"}, {"price", "BIGINT"},
		{"channel", "VARCHAR"}, {"url", "VARCHAR"}, {"date_time", "TIMESTAMP(3)"},
	}, Watermark: "date_time - INTERVAL '4' SECOND"}

	// personSource is a table of people keyed by id, upserted in every
	// round: cities and credits change, accounts are deactivated and come
	// back (a view filtering on active sees rows deleted and reinserted).
	personSource = &Source{Name: "person", Table: true, Key: []string{"id"}, Columns: []Column{
		{"id", "BIGINT"}, {"name", "VARCHAR"}, {"email", "VARCHAR"}, {"city", "VARCHAR"},
		{"state", "VARCHAR"}, {"credit", "DECIMAL(10,2)"}, {"active", "BOOLEAN"}, {"joined", "TIMESTAMP(3)"},
	}}

	// auctionSource is a table of auctions keyed by id; not every auction
	// a bid names exists, and reserves and categories change.
	auctionSource = &Source{Name: "auction", Table: true, Key: []string{"id"}, Columns: []Column{
		{"id", "BIGINT"}, {"seller", "BIGINT"}, {"category", "BIGINT"}, {"reserve", "BIGINT"},
		{"expires", "TIMESTAMP(3)"},
	}}

	// evSource is a small stream of awkward values: NULL in every column
	// but id, heavily skewed keys (one holds half the rows), the empty
	// string, negative numbers, and times on both sides of the epoch.
	evSource = &Source{Name: "ev", Columns: []Column{
		{"id", "BIGINT"}, {"k", "VARCHAR"}, {"g", "BIGINT"}, {"x", "DOUBLE"}, {"d", "DECIMAL(8,3)"},
		{"s", "VARCHAR"}, {"flag", "BOOLEAN"}, {"ts", "TIMESTAMP(3)"}, {"day", "DATE"},
	}}
)
