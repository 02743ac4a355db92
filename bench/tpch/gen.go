package tpch

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/pingcap/go-tpc/tpch/dbgen"
)

// Column is a column of a TPC-H table: its name and eddy's type for it.
type Column struct {
	Name, Type string
}

// Table is one TPC-H table: its columns, primary key and rows. A row's
// values are int64 (keys, counts, sizes), float64 (money, discounts and
// taxes, in dollars and fractions as dbgen prints them) or string (text,
// and dates as 'YYYY-MM-DD'), in the order of Columns.
type Table struct {
	Name    string
	Columns []Column
	Key     []string
	Rows    [][]any
}

// ColumnList is the table's column definitions as CREATE TABLE or CREATE
// STREAM takes them: "p_partkey BIGINT, p_name VARCHAR, ...".
func (t *Table) ColumnList() string {
	defs := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		defs[i] = c.Name + " " + c.Type
	}
	return strings.Join(defs, ", ")
}

// Names are the table's column names.
func (t *Table) Names() []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

// cols reads "name TYPE, name TYPE, ..." into columns.
func cols(list string) []Column {
	var out []Column
	for _, def := range strings.Split(list, ",") {
		name, typ, _ := strings.Cut(strings.TrimSpace(def), " ")
		out = append(out, Column{Name: name, Type: typ})
	}
	return out
}

// The tables' columns, in dbgen's order, but for the two comments no
// query reads, p_comment and l_comment (the longest of lineitem's values).
var (
	regionCols   = cols("r_regionkey BIGINT, r_name VARCHAR, r_comment VARCHAR")
	nationCols   = cols("n_nationkey BIGINT, n_name VARCHAR, n_regionkey BIGINT, n_comment VARCHAR")
	supplierCols = cols("s_suppkey BIGINT, s_name VARCHAR, s_address VARCHAR, s_nationkey BIGINT, s_phone VARCHAR, s_acctbal DOUBLE, s_comment VARCHAR")
	customerCols = cols("c_custkey BIGINT, c_name VARCHAR, c_address VARCHAR, c_nationkey BIGINT, c_phone VARCHAR, c_acctbal DOUBLE, c_mktsegment VARCHAR, c_comment VARCHAR")
	partCols     = cols("p_partkey BIGINT, p_name VARCHAR, p_mfgr VARCHAR, p_brand VARCHAR, p_type VARCHAR, p_size INT, p_container VARCHAR, p_retailprice DOUBLE")
	partsuppCols = cols("ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty INT, ps_supplycost DOUBLE, ps_comment VARCHAR")
	ordersCols   = cols("o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus VARCHAR, o_totalprice DOUBLE, o_orderdate DATE, o_orderpriority VARCHAR, o_clerk VARCHAR, o_shippriority INT, o_comment VARCHAR")
	lineitemCols = cols("l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INT, l_quantity INT, l_extendedprice DOUBLE, l_discount DOUBLE, l_tax DOUBLE, l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR, l_shipmode VARCHAR")
)

// Sizes are the rows a scale factor gives the tables that scale (lineitem
// has every line of the orders, about four an order).
type Sizes struct {
	Parts, Suppliers, Customers, Orders int
}

// SizesOf returns the table sizes of scale factor sf, as dbgen scales its
// base sizes (SF 1: 200,000 parts, 10,000 suppliers, 150,000 customers
// and 1,500,000 orders). sf must be in (0, 1].
func SizesOf(sf float64) (Sizes, error) {
	if !(sf > 0 && sf <= 1) {
		return Sizes{}, fmt.Errorf("tpch: scale factor %g is not in (0, 1]", sf)
	}
	n := func(base float64) int { return int(math.Round(base * sf)) }
	sz := Sizes{Parts: n(200000), Suppliers: n(10000), Customers: n(150000), Orders: n(1500000)}
	// A part's four suppliers must differ (partsupp's key), and every
	// customer key left by folding must exist.
	if sz.Suppliers < 4 || sz.Customers < 3 || sz.Parts < 1 {
		return Sizes{}, fmt.Errorf("tpch: scale factor %g is too small (%d suppliers, %d customers)", sf, sz.Suppliers, sz.Customers)
	}
	return sz, nil
}

// dbgen keeps its state in package variables and its random streams go on
// from one call to the next: Generate runs once per process, at the first
// scale factor asked for. Its initialization (a 300 MB text pool) takes
// about 10 s.
var (
	genMu    sync.Mutex
	genSF    float64
	genOut   []*Table
	genErr   error
	genCalls int
)

// errEnough stops dbgen once a table has the rows asked for.
var errEnough = errors.New("tpch: enough rows")

// Generate returns the eight TPC-H tables at scale factor sf (region,
// nation, supplier, customer, part, partsupp, orders, lineitem), made
// once per process: a later call with another scale factor fails.
func Generate(sf float64) ([]*Table, error) {
	genMu.Lock()
	defer genMu.Unlock()
	if genCalls > 0 {
		if sf != genSF {
			return nil, fmt.Errorf("tpch: this process generated scale factor %g; dbgen cannot start again at %g", genSF, sf)
		}
		return genOut, genErr
	}
	genCalls++
	genSF = sf
	genOut, genErr = generate(sf)
	return genOut, genErr
}

// generate runs dbgen at SF 1 and keeps the first rows of each table, with
// the foreign keys folded onto the rows kept (see fold).
func generate(sf float64) ([]*Table, error) {
	sz, err := SizesOf(sf)
	if err != nil {
		return nil, err
	}
	f := fold{sz: sz}
	dbgen.InitDbGen(1)
	region := &Table{Name: "region", Columns: regionCols, Key: []string{"r_regionkey"}}
	nation := &Table{Name: "nation", Columns: nationCols, Key: []string{"n_nationkey"}}
	supplier := &Table{Name: "supplier", Columns: supplierCols, Key: []string{"s_suppkey"}}
	customer := &Table{Name: "customer", Columns: customerCols, Key: []string{"c_custkey"}}
	part := &Table{Name: "part", Columns: partCols, Key: []string{"p_partkey"}}
	partsupp := &Table{Name: "partsupp", Columns: partsuppCols, Key: []string{"ps_partkey", "ps_suppkey"}}
	orders := &Table{Name: "orders", Columns: ordersCols, Key: []string{"o_orderkey"}}
	lineitem := &Table{Name: "lineitem", Columns: lineitemCols, Key: []string{"l_orderkey", "l_linenumber"}}

	loaders := []struct {
		t    dbgen.Table
		rows int // -1: all of them
		load func(item any) error
	}{
		{dbgen.TRegion, -1, func(item any) error {
			r := item.(*dbgen.Region)
			region.Rows = append(region.Rows, []any{int64(r.Code), r.Text, r.Comment})
			return nil
		}},
		{dbgen.TNation, -1, func(item any) error {
			n := item.(*dbgen.Nation)
			nation.Rows = append(nation.Rows, []any{int64(n.Code), n.Text, int64(n.Join), n.Comment})
			return nil
		}},
		{dbgen.TSupp, sz.Suppliers, func(item any) error {
			s := item.(*dbgen.Supp)
			supplier.Rows = append(supplier.Rows, []any{int64(s.SuppKey), s.Name, s.Address, int64(s.NationCode), s.Phone, money(int64(s.Acctbal)), s.Comment})
			return nil
		}},
		{dbgen.TCust, sz.Customers, func(item any) error {
			c := item.(*dbgen.Cust)
			customer.Rows = append(customer.Rows, []any{int64(c.CustKey), c.Name, c.Address, int64(c.NationCode), c.Phone, money(int64(c.Acctbal)), c.MktSegment, c.Comment})
			return nil
		}},
		{dbgen.TPart, sz.Parts, func(item any) error {
			p := item.(*dbgen.Part)
			key := int64(p.PartKey)
			part.Rows = append(part.Rows, []any{key, p.Name, p.Mfgr, p.Brand, p.Type, int64(p.Size), p.Container, money(int64(p.RetailPrice))})
			seen := map[int64]bool{}
			for i, ps := range p.S {
				supp := f.bridge(key, int64(i))
				if seen[supp] {
					return fmt.Errorf("tpch: at %d suppliers, part %d has supplier %d twice; choose another scale factor", sz.Suppliers, key, supp)
				}
				seen[supp] = true
				partsupp.Rows = append(partsupp.Rows, []any{key, supp, int64(ps.Qty), money(int64(ps.SCost)), ps.Comment})
			}
			return nil
		}},
		{dbgen.TOrder, sz.Orders, func(item any) error {
			o := item.(*dbgen.Order)
			orders.Rows = append(orders.Rows, []any{int64(o.OKey), f.customer(int64(o.CustKey)), string(o.Status), money(int64(o.TotalPrice)),
				o.Date, o.OrderPriority, o.Clerk, o.ShipPriority, o.Comment})
			for _, l := range o.Lines {
				pk, sk, err := f.lineKeys(int64(l.PartKey), int64(l.SuppKey))
				if err != nil {
					return err
				}
				lineitem.Rows = append(lineitem.Rows, []any{int64(l.OKey), pk, sk, int64(l.LCnt), int64(l.Quantity),
					money(int64(l.EPrice)), money(int64(l.Discount)), money(int64(l.Tax)), string(l.RFlag), string(l.LStatus),
					l.SDate, l.CDate, l.RDate, l.ShipInstruct, l.ShipMode})
			}
			return nil
		}},
	}
	for _, l := range loaders {
		ld := &loader{left: l.rows, load: l.load}
		// A table stops with errEnough, which dbgen reports as a failure
		// ending the call: one call a table.
		_ = dbgen.DbGen(map[dbgen.Table]dbgen.Loader{l.t: ld}, []dbgen.Table{l.t})
		if ld.err != nil {
			return nil, ld.err
		}
		if ld.left > 0 {
			return nil, fmt.Errorf("tpch: dbgen made %d rows too few of table %d", ld.left, l.t)
		}
	}
	return []*Table{region, nation, supplier, customer, part, partsupp, orders, lineitem}, nil
}

// money is an amount of cents (or hundredths) in dollars (or a fraction).
func money(cents int64) float64 { return float64(cents) / 100 }

// loader passes dbgen's rows to load until it has had enough of them.
type loader struct {
	left int // -1: no limit
	load func(item any) error
	err  error
}

func (l *loader) Load(item any) error {
	if l.left == 0 {
		return errEnough
	}
	if l.err = l.load(item); l.err != nil {
		return l.err
	}
	if l.left > 0 {
		l.left--
	}
	return nil
}

func (l *loader) Flush() error { return nil }

// fold maps the foreign keys of SF 1's first rows onto the rows kept,
// as dbgen would draw them at the smaller scale:
//
//   - a part key k becomes ((k − 1) mod parts) + 1;
//   - a line item's supplier is its part's supplier of the same number
//     (0 to 3) at the smaller scale, dbgen's PART_SUPP_BRIDGE with that
//     scale's supplier count, so that (l_partkey, l_suppkey) is in
//     partsupp;
//   - a customer key, never a multiple of 3 (dbgen leaves a third of the
//     customers without orders), is folded among the customer keys that
//     are not multiples of 3, so that this stays true.
type fold struct {
	sz Sizes
}

// sf1Suppliers is the supplier count of SF 1, which the generated keys
// are drawn from.
const sf1Suppliers = 10000

// bridgeAt is dbgen's PART_SUPP_BRIDGE: the supplier number s (0 to 3) of
// part p, among n suppliers.
func bridgeAt(p, s, n int64) int64 {
	return (p+s*(n/4+(p-1)/n))%n + 1
}

// bridge is the supplier number s of part p at the kept scale.
func (f fold) bridge(p, s int64) int64 { return bridgeAt(p, s, int64(f.sz.Suppliers)) }

// lineKeys folds a line item's part and supplier keys.
func (f fold) lineKeys(part, supp int64) (int64, int64, error) {
	folded := (part-1)%int64(f.sz.Parts) + 1
	for s := int64(0); s < 4; s++ {
		if bridgeAt(part, s, sf1Suppliers) == supp {
			return folded, f.bridge(folded, s), nil
		}
	}
	return 0, 0, fmt.Errorf("tpch: line item supplier %d is none of part %d's", supp, part)
}

// customer folds a customer key that is not a multiple of 3.
func (f fold) customer(c int64) int64 {
	n := int64(f.sz.Customers - f.sz.Customers/3) // keys not multiples of 3
	i := (2*(c/3) + c%3 - 1) % n
	return 3*(i/2) + i%2 + 1
}
