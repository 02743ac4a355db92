package nexmark

import (
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

// The values of the table option: which kind of event a stream carries.
const (
	TablePerson  = "person"
	TableAuction = "auction"
	TableBid     = "bid"
)

// kind is the kind of an event of the global sequence.
type kind uint8

const (
	kindPerson kind = iota
	kindAuction
	kindBid
	numKinds
)

// kindNames are the tables of the kinds, by kind.
var kindNames = [numKinds]string{TablePerson, TableAuction, TableBid}

// fieldType is how a field's values are stored.
type fieldType uint8

const (
	fieldInt    fieldType = iota // BIGINT
	fieldString                  // VARCHAR
	fieldTime                    // TIMESTAMP(3), milliseconds since the epoch
)

// sqlType returns the SQL type a column of this field has when the stream
// declares no columns.
func (t fieldType) sqlType() types.T {
	switch t {
	case fieldString:
		return types.VarcharT
	case fieldTime:
		return types.TimestampT(types.MaxFsp)
	}
	return types.BigIntT
}

// field is a column of one of the three tables. hint is the number of
// bytes per row a string column reserves up front: the longest value, or
// about the average where values vary widely (the buffer grows if needed).
type field struct {
	name string
	typ  fieldType
	hint int
}

// The fields of each table, in NEXMARK.md §1.1's order. The generators
// address them by these ordinals.
const (
	bidAuction = iota
	bidBidder
	bidPrice
	bidChannel
	bidURL
	bidDateTime
	bidExtra
)

const (
	auctionID = iota
	auctionItemName
	auctionDescription
	auctionInitialBid
	auctionReserve
	auctionDateTime
	auctionExpires
	auctionSeller
	auctionCategory
	auctionExtra
)

const (
	personID = iota
	personName
	personEmail
	personCreditCard
	personCity
	personState
	personDateTime
	personExtra
)

// maxFields is the number of fields of the widest table (auction).
const maxFields = 10

var bidFields = []field{
	{"auction", fieldInt, 0}, {"bidder", fieldInt, 0}, {"price", fieldInt, 0},
	{"channel", fieldString, maxChannelLen}, {"url", fieldString, maxURLLen}, {"date_time", fieldTime, 0},
	{"extra", fieldString, maxExtraLen(avgBidSize - bidSize)},
}

var auctionFields = []field{
	{"id", fieldInt, 0}, {"item_name", fieldString, 20}, {"description", fieldString, 56},
	{"initial_bid", fieldInt, 0}, {"reserve", fieldInt, 0}, {"date_time", fieldTime, 0},
	{"expires", fieldTime, 0}, {"seller", fieldInt, 0}, {"category", fieldInt, 0},
	{"extra", fieldString, 416},
}

var personFields = []field{
	{"id", fieldInt, 0}, {"name", fieldString, 14}, {"email_address", fieldString, 16},
	{"credit_card", fieldString, 19}, {"city", fieldString, 13}, {"state", fieldString, 2},
	{"date_time", fieldTime, 0}, {"extra", fieldString, 160},
}

// tableKind returns the event kind of a table name (case-insensitive).
func tableKind(table string) (kind, bool) {
	switch strings.ToLower(strings.TrimSpace(table)) {
	case TablePerson:
		return kindPerson, true
	case TableAuction:
		return kindAuction, true
	case TableBid:
		return kindBid, true
	}
	return 0, false
}

// fieldsOf returns the fields of the table of kind k.
func fieldsOf(k kind) []field {
	switch k {
	case kindPerson:
		return personFields
	case kindAuction:
		return auctionFields
	}
	return bidFields
}

// Columns returns the columns of a nexmark table ('bid', 'auction' or
// 'person', case-insensitive) in NEXMARK.md §1.1's order, for a stream
// declared without columns: BIGINT ids, prices and category, VARCHAR
// strings and TIMESTAMP(3) times, none nullable. It returns nil for an
// unknown table.
func Columns(table string) []catalog.Column {
	k, ok := tableKind(table)
	if !ok {
		return nil
	}
	fs := fieldsOf(k)
	out := make([]catalog.Column, len(fs))
	for i, f := range fs {
		out[i] = catalog.Column{Name: f.name, Type: f.typ.sqlType()}
	}
	return out
}

// fieldNames lists a table's column names for error messages.
func fieldNames(fs []field) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

// outColumn is a declared column bound to the field it shows.
type outColumn struct {
	col   catalog.Column
	field int
}

// bindColumns matches declared columns to the fields of the table of kind
// k by name, case-insensitively. No columns means all of them. A column
// that names no field, names one twice, or has a type that cannot hold the
// field's values is a *ColumnError.
func bindColumns(k kind, table string, cols []catalog.Column) ([]outColumn, error) {
	fs := fieldsOf(k)
	if len(cols) == 0 {
		cols = Columns(table)
	}
	out := make([]outColumn, len(cols))
	seen := make([]bool, len(fs))
	for i, c := range cols {
		f := -1
		for j := range fs {
			if strings.EqualFold(fs[j].name, c.Name) {
				f = j
				break
			}
		}
		if f < 0 {
			return nil, &ColumnError{Column: c.Name, Msg: "is not a column of nexmark table " + table + " (valid: " + fieldNames(fs) + ")"}
		}
		if seen[f] {
			return nil, &ColumnError{Column: c.Name, Msg: "is declared twice"}
		}
		seen[f] = true
		if !typeFits(fs[f].typ, c.Type) {
			return nil, &ColumnError{Column: c.Name, Msg: "has type " + c.Type.String() + "; nexmark table " + table + " gives it type " + fs[f].typ.sqlType().String()}
		}
		out[i] = outColumn{col: c, field: f}
	}
	return out, nil
}

// typeFits reports whether a column of type t can show a field of type ft:
// BIGINT for integers, VARCHAR for strings and a TIMESTAMP of any fsp for
// times (values are then rounded to the fsp, as a file source does).
func typeFits(ft fieldType, t types.T) bool {
	switch ft {
	case fieldString:
		return t.Kind == types.Varchar
	case fieldTime:
		return t.Kind == types.Timestamp
	}
	return t.Kind == types.BigInt
}
