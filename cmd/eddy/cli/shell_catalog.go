package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// catalogObject is one object of the catalog as the shell shows it.
type catalogObject struct {
	Name      string
	Kind      string // stream, table, materialized view, sink
	Connector string // streams, tables and sinks: the connector, insert or query
	Status    string // views and sinks: running, finished, failed: ...
	Columns   []string
}

// catalogNames are the names tab completion offers beyond keywords: the
// objects with their columns, and the functions.
type catalogNames struct {
	Objects   []catalogObject
	Functions []string
}

// nameSource gives the completer its names. The shell's is sqlCatalog,
// which asks whatever session the shell runs on.
type nameSource interface {
	names(ctx context.Context) (catalogNames, error)
}

// sqlCatalog answers the shell's questions about the catalog (\d, tab
// completion) by running SHOW, DESCRIBE and SHOW CREATE on the shell's
// session, so it works on any session the shell can run statements on,
// in the process or across the network. Notices the statements return
// are kept for the shell to print (take).
type sqlCatalog struct {
	sess    session
	notices []string
}

// query runs one statement and returns its rows.
func (c *sqlCatalog) query(ctx context.Context, text string) (*engine.Result, error) {
	stmt, err := sql.ParseOne(text, sql.Pos{Line: 1, Col: 1})
	if err != nil {
		return nil, err
	}
	res, err := c.sess.Execute(ctx, stmt)
	if err != nil {
		return nil, err
	}
	c.notices = append(c.notices, res.Notices...)
	if res.Kind != engine.ResultRows {
		if res.Stream != nil {
			res.Stream.Close()
		}
		return nil, fmt.Errorf("%s returned no rows", text)
	}
	return res, nil
}

// take returns the notices gathered so far and forgets them.
func (c *sqlCatalog) take() []string {
	n := c.notices
	c.notices = nil
	return n
}

// showKinds are the SHOW statements that list each kind of object, with
// the column holding the connector and the status (-1: none).
var showKinds = []struct {
	kind, stmt        string
	connector, status int
}{
	{"stream", "SHOW STREAMS", 1, -1},
	{"table", "SHOW TABLES", 1, -1},
	{"materialized view", "SHOW MATERIALIZED VIEWS", -1, 1},
	{"sink", "SHOW SINKS", 1, 2},
}

// objects lists every object, by name.
func (c *sqlCatalog) objects(ctx context.Context) ([]catalogObject, error) {
	var out []catalogObject
	for _, k := range showKinds {
		res, err := c.query(ctx, k.stmt)
		if err != nil {
			return nil, err
		}
		for _, r := range res.Rows {
			o := catalogObject{Name: cellString(r, 0), Kind: k.kind}
			if k.connector >= 0 {
				o.Connector = cellString(r, k.connector)
			}
			if k.status >= 0 {
				o.Status = cellString(r, k.status)
			}
			out = append(out, o)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out, nil
}

// names lists the objects with their columns, and the functions.
func (c *sqlCatalog) names(ctx context.Context) (catalogNames, error) {
	objs, err := c.objects(ctx)
	if err != nil {
		return catalogNames{}, err
	}
	for i := range objs {
		d, err := c.describe(ctx, objs[i].Name)
		if err != nil {
			continue // dropped meanwhile
		}
		for _, col := range d.columns.Rows {
			objs[i].Columns = append(objs[i].Columns, cellString(col, 0))
		}
	}
	res, err := c.query(ctx, "SHOW FUNCTIONS")
	if err != nil {
		return catalogNames{}, err
	}
	var fns []string
	for _, r := range res.Rows {
		if f := cellString(r, 0); len(fns) == 0 || fns[len(fns)-1] != f {
			fns = append(fns, f)
		}
	}
	return catalogNames{Objects: objs, Functions: fns}, nil
}

// description is what \d NAME shows.
type description struct {
	columns    *engine.Result // DESCRIBE's column rows
	properties [][2]string    // DESCRIBE's rows after the columns: watermark, connector, options
	create     string         // SHOW CREATE's statement
}

// describe runs DESCRIBE and SHOW CREATE on name. DESCRIBE's rows whose
// nullable is NULL are the object's properties, not columns.
func (c *sqlCatalog) describe(ctx context.Context, name string) (*description, error) {
	res, err := c.query(ctx, "DESCRIBE "+sql.QuoteIdent(name))
	if err != nil {
		return nil, err
	}
	d := &description{columns: &engine.Result{Kind: engine.ResultRows, Columns: res.Columns}}
	for _, r := range res.Rows {
		if len(r) > 2 && r[2].Null {
			d.properties = append(d.properties, [2]string{cellString(r, 0), cellString(r, 1)})
			continue
		}
		d.columns.Rows = append(d.columns.Rows, r)
	}
	if sc, err := c.query(ctx, "SHOW CREATE "+sql.QuoteIdent(name)); err == nil && len(sc.Rows) == 1 {
		d.create = cellString(sc.Rows[0], 1)
	}
	return d, nil
}

// cellString returns value j of row r as text ("" for NULL or past the
// row).
func cellString(r []types.Datum, j int) string {
	if j >= len(r) || r[j].Null {
		return ""
	}
	return r[j].S
}
