package tpch

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/pingcap/go-tpc/tpch/dbgen"
)

// Sizes says how many rows of each table Generate writes.
type Sizes struct {
	Parts, LineItems int
}

// SF001 are the sizes of scale factor 0.01.
var SF001 = Sizes{Parts: 2000, LineItems: 60000}

// dbgen keeps its state in package variables: one generation at a time.
// Its initialization (a 300 MB text pool, about 10 s) is done once; a
// second Generate in one process goes on with dbgen's random streams, so
// it makes other rows.
var (
	genMu    sync.Mutex
	initOnce sync.Once
)

// errEnough stops dbgen once a table has the rows asked for.
var errEnough = errors.New("tpch: enough rows")

// PartColumns and LineItemColumns are the CSV files' columns, as eddy
// declares them.
const (
	PartColumns     = "p_partkey BIGINT, p_name VARCHAR, p_mfgr VARCHAR, p_brand VARCHAR, p_type VARCHAR, p_size INT, p_container VARCHAR, p_retailprice DOUBLE"
	LineItemColumns = "l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INT, l_quantity INT, l_extendedprice DOUBLE, l_discount DOUBLE, l_tax DOUBLE, l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR, l_shipmode VARCHAR"
)

// Generate writes part.csv and lineitem.csv (with headers) of the given
// sizes into dir.
func Generate(dir string, sz Sizes) error {
	genMu.Lock()
	defer genMu.Unlock()
	parts, err := newCSV(filepath.Join(dir, "part.csv"), "p_partkey,p_name,p_mfgr,p_brand,p_type,p_size,p_container,p_retailprice")
	if err != nil {
		return err
	}
	lines, err := newCSV(filepath.Join(dir, "lineitem.csv"), "l_orderkey,l_partkey,l_suppkey,l_linenumber,l_quantity,l_extendedprice,l_discount,l_tax,l_returnflag,l_linestatus,l_shipdate,l_commitdate,l_receiptdate,l_shipinstruct,l_shipmode")
	if err != nil {
		parts.close()
		return err
	}
	pl := &partLoader{out: parts, left: sz.Parts}
	ll := &lineLoader{out: lines, left: sz.LineItems, parts: int64(sz.Parts)}
	initOnce.Do(func() { dbgen.InitDbGen(1) })
	// Each table stops with errEnough, which dbgen reports as a failure
	// ending the call: one call a table.
	_ = dbgen.DbGen(map[dbgen.Table]dbgen.Loader{dbgen.TPart: pl}, []dbgen.Table{dbgen.TPart})
	_ = dbgen.DbGen(map[dbgen.Table]dbgen.Loader{dbgen.TLine: ll}, []dbgen.Table{dbgen.TLine})
	err = errors.Join(pl.err, ll.err, parts.close(), lines.close())
	if err == nil && (pl.left > 0 || ll.left > 0) {
		err = fmt.Errorf("tpch: dbgen made too few rows (%d parts and %d line items short)", pl.left, ll.left)
	}
	return err
}

// csvFile is a CSV file being written.
type csvFile struct {
	f *os.File
	w *bufio.Writer
	b []byte
}

func newCSV(path, header string) (*csvFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	c := &csvFile{f: f, w: bufio.NewWriterSize(f, 1<<16)}
	c.w.WriteString(header + "\n")
	return c, nil
}

func (c *csvFile) close() error {
	return errors.Join(c.w.Flush(), c.f.Close())
}

// field appends a text field, quoted when it needs to be.
func (c *csvFile) field(s string) {
	quote := false
	for i := 0; i < len(s); i++ {
		if s[i] == ',' || s[i] == '"' || s[i] == '\n' {
			quote = true
			break
		}
	}
	if !quote {
		c.b = append(c.b, s...)
		return
	}
	c.b = append(c.b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			c.b = append(c.b, '"')
		}
		c.b = append(c.b, s[i])
	}
	c.b = append(c.b, '"')
}

// money appends an amount of cents as dollars.
func (c *csvFile) money(cents int64) {
	c.b = strconv.AppendFloat(c.b, float64(cents)/100, 'f', 2, 64)
}

func (c *csvFile) row() error {
	c.b = append(c.b, '\n')
	_, err := c.w.Write(c.b)
	c.b = c.b[:0]
	return err
}

// partLoader writes parts until it has enough.
type partLoader struct {
	out  *csvFile
	left int
	err  error
}

func (l *partLoader) Load(item any) error {
	if l.left <= 0 {
		return errEnough
	}
	p := item.(*dbgen.Part)
	c := l.out
	c.b = strconv.AppendInt(c.b, int64(p.PartKey), 10)
	for _, s := range []string{p.Name, p.Mfgr, p.Brand, p.Type} {
		c.b = append(c.b, ',')
		c.field(s)
	}
	c.b = append(append(c.b, ','), strconv.FormatInt(int64(p.Size), 10)...)
	c.b = append(c.b, ',')
	c.field(p.Container)
	c.b = append(c.b, ',')
	c.money(int64(p.RetailPrice))
	if l.err = c.row(); l.err != nil {
		return l.err
	}
	l.left--
	return nil
}

func (l *partLoader) Flush() error { return nil }

// lineLoader writes the line items of orders until it has enough.
type lineLoader struct {
	out   *csvFile
	left  int
	parts int64
	err   error
}

func (l *lineLoader) Load(item any) error {
	o := item.(*dbgen.Order)
	c := l.out
	for _, li := range o.Lines {
		if l.left <= 0 {
			return errEnough
		}
		c.b = strconv.AppendInt(c.b, int64(li.OKey), 10)
		c.b = append(c.b, ',')
		c.b = strconv.AppendInt(c.b, (int64(li.PartKey)-1)%l.parts+1, 10)
		for _, v := range []int64{int64(li.SuppKey), int64(li.LCnt), int64(li.Quantity)} {
			c.b = strconv.AppendInt(append(c.b, ','), v, 10)
		}
		c.b = append(c.b, ',')
		c.money(int64(li.EPrice))
		c.b = append(c.b, ',')
		c.money(int64(li.Discount))
		c.b = append(c.b, ',')
		c.money(int64(li.Tax))
		c.b = append(c.b, ',', li.RFlag, ',', li.LStatus)
		for _, s := range []string{li.SDate, li.CDate, li.RDate, li.ShipInstruct, li.ShipMode} {
			c.b = append(c.b, ',')
			c.field(s)
		}
		if l.err = c.row(); l.err != nil {
			return l.err
		}
		l.left--
	}
	return nil
}

func (l *lineLoader) Flush() error { return nil }
