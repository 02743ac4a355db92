package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/sql"
)

// displayMeta runs the meta commands of the display and the catalog — \d,
// \x and \pager — and reports whether cmd was one of them. rest is the
// line after the command.
func (sh *shell) displayMeta(ctx context.Context, cmd string, args []string, rest string) bool {
	p := sh.r.p
	switch cmd {
	case `\x`:
		m, ok := parseExpanded(args, p.expanded)
		if !ok {
			p.printError(errors.New(`usage: \x [on|off|auto]`), "")
			break
		}
		p.expanded = m
		fmt.Fprintf(sh.out, "Expanded display is %s.\n", m)
	case `\pager`:
		if p.pager == nil {
			p.pager = &pager{}
		}
		on, ok := onOff(args, p.pager.on)
		if !ok {
			p.printError(errors.New(`usage: \pager [on|off]`), "")
			break
		}
		p.pager.on = on
		switch {
		case !on:
			fmt.Fprintln(sh.out, "Pager is off.")
		case p.pager.command == "":
			fmt.Fprintln(sh.out, "Pager is on, but there is none: set $PAGER, or install less.")
		default:
			fmt.Fprintf(sh.out, "Pager is on (%s), for results longer or wider than the terminal.\n", p.pager.command)
		}
	case `\d`:
		if name := strings.TrimSpace(rest); name != "" {
			sh.describeObject(ctx, unquoteName(name))
		} else {
			sh.listObjects(ctx)
		}
	default:
		return false
	}
	return true
}

// unquoteName takes the quotes off a name written `so` or "so".
func unquoteName(s string) string {
	if len(s) >= 2 && (s[0] == '`' || s[0] == '"') && s[len(s)-1] == s[0] {
		q := string(s[0])
		return strings.ReplaceAll(s[1:len(s)-1], q+q, q)
	}
	return s
}

// listObjects is \d: every object with its kind, connector and status.
func (sh *shell) listObjects(ctx context.Context) {
	start := time.Now()
	objs, err := sh.cat.objects(ctx)
	sh.printNotices()
	if err != nil {
		sh.r.p.printError(err, "")
		return
	}
	res := &engine.Result{Kind: engine.ResultRows,
		Columns: []engine.Column{{Name: "name", Type: types.VarcharT}, {Name: "kind", Type: types.VarcharT},
			{Name: "connector", Type: types.VarcharT}, {Name: "status", Type: types.VarcharT}}}
	for _, o := range objs {
		res.Rows = append(res.Rows, []types.Datum{types.StringDatum(o.Name), types.StringDatum(o.Kind),
			types.StringDatum(o.Connector), types.StringDatum(o.Status)})
	}
	if err := sh.r.p.printResult(ctx, res, start); err != nil {
		sh.r.p.printError(err, "")
	}
}

// describeObject is \d NAME: the object's kind and name, its columns, and
// below them its keys, watermark, connector, options and query.
func (sh *shell) describeObject(ctx context.Context, name string) {
	p := sh.r.p
	d, err := sh.cat.describe(ctx, name)
	sh.printNotices()
	if err != nil {
		var be *planner.BindError
		if errors.As(err, &be) {
			err = errors.New(be.Msg) // its position is in DESCRIBE's text, not the user's
		}
		p.printError(fmt.Errorf(`\d: %w`, err), "")
		return
	}
	var b strings.Builder
	title, footer := describeText(name, d)
	b.WriteString(title + "\n")
	p.writeRows(&b, d.columns.Columns, d.columns.Rows)
	for _, f := range footer {
		b.WriteString(f + "\n")
	}
	p.show(b.String())
}

// describeText returns the title of \d NAME and the lines below its
// columns, from DESCRIBE's rows and SHOW CREATE's statement.
func describeText(name string, d *description) (string, []string) {
	title := name
	var footer []string
	for _, k := range []struct{ key, label string }{{"PRI", "Primary key"}, {"UNI", "Unique key"}} {
		var cols []string
		for _, r := range d.columns.Rows {
			if cellString(r, 3) == k.key {
				cols = append(cols, sql.QuoteIdent(cellString(r, 0)))
			}
		}
		if len(cols) > 0 {
			footer = append(footer, k.label+": "+strings.Join(cols, ", "))
		}
	}
	var options []string
	for _, pr := range d.properties {
		switch key, v := pr[0], pr[1]; {
		case key == "watermark":
			footer = append(footer, "Watermark: "+v)
		case key == "connector":
			footer = append(footer, "Connector: "+v)
		case key == "inserts into":
			footer = append(footer, "Inserts into: "+v)
		case strings.HasPrefix(key, "option "):
			options = append(options, sql.QuoteOptionKey(strings.TrimPrefix(key, "option "))+" = "+sql.QuoteString(v))
		}
	}
	if len(options) > 0 {
		footer = append(footer, "Options: "+strings.Join(options, ", "))
	}
	stmt, err := sql.ParseOne(d.create, sql.Pos{Line: 1, Col: 1})
	if err != nil {
		return title, footer
	}
	var q *sql.Query
	switch st := stmt.(type) {
	case *sql.CreateStream:
		title, q = "Stream "+name, st.Query
	case *sql.CreateTable:
		title = "Table " + name
	case *sql.CreateView:
		title, q = "Materialized view "+name, st.Query
	case *sql.CreateSink:
		title, q = "Sink "+name, st.Query
		if st.From != nil {
			footer = append(footer, "From: "+sql.QuoteIdent(st.From.Name))
		}
	case *sql.Insert:
		title, q = "Sink "+name+" (a continuous INSERT)", st.Query
	}
	if q != nil {
		footer = append(footer, "Query: "+q.Text)
	}
	return title, footer
}

// printNotices prints the notices the catalog's statements returned.
func (sh *shell) printNotices() {
	if sh.cat == nil {
		return
	}
	for _, n := range sh.cat.take() {
		fmt.Fprintf(sh.r.p.errOut, "NOTICE: %s\n", n)
	}
}
