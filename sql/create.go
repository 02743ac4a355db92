package sql

// parseCreate parses CREATE STREAM | TABLE | MATERIALIZED VIEW | SINK.
func (p *parser) parseCreate(base Base) (Stmt, error) {
	p.next()
	t := p.peek()
	if t.is("OR") && p.peekAt(1).is("REPLACE") {
		p.next()
		p.next()
		if !p.peek().is("MATERIALIZED") || !p.peekAt(1).is("VIEW") {
			return nil, p.errAt(t, "not supported yet: CREATE OR REPLACE of anything but a MATERIALIZED VIEW")
		}
		p.next()
		p.next()
		st, err := p.parseCreateView(base)
		if err != nil {
			return nil, err
		}
		cv := st.(*CreateView)
		if cv.IfNotExists {
			return nil, p.errAt(t, "CREATE OR REPLACE and IF NOT EXISTS cannot go together")
		}
		cv.OrReplace = true
		return cv, nil
	}
	switch {
	case t.is("STREAM"):
		p.next()
		return p.parseCreateStream(base)
	case t.is("TABLE"):
		p.next()
		return p.parseCreateTable(base)
	case t.is("MATERIALIZED"):
		p.next()
		if err := p.expect("VIEW", "after MATERIALIZED"); err != nil {
			return nil, err
		}
		return p.parseCreateView(base)
	case t.is("SINK"):
		p.next()
		return p.parseCreateSink(base)
	case t.is("SOURCE"):
		return nil, p.errf("CREATE SOURCE is spelled CREATE STREAM in eddy")
	}
	return nil, p.unsupported(p.errf("expected STREAM, TABLE, MATERIALIZED VIEW or SINK after CREATE, found %s", describe(t)))
}

// parseCreateStream parses the rest of
//
//	CREATE STREAM [IF NOT EXISTS] name [(columns)] [WITH (options)]
//	CREATE STREAM [IF NOT EXISTS] name [WITH (options)] AS query
//
// A source stream without columns is allowed when it has options: its
// connector (nexmark, say) may know the schema.
func (p *parser) parseCreateStream(base Base) (Stmt, error) {
	cs := &CreateStream{Base: base}
	var err error
	if cs.IfNotExists, cs.Name, err = p.createName("a stream name"); err != nil {
		return nil, err
	}
	if p.peek().isOp("(") {
		body, err := p.parseTableBody("stream")
		if err != nil {
			return nil, err
		}
		cs.Columns, cs.Watermark = body.cols, body.wm
	}
	if cs.With, err = p.optionalOptions(); err != nil {
		return nil, err
	}
	if t := p.peek(); t.is("AS") {
		if cs.Columns != nil {
			return nil, p.errf("a stream with column definitions cannot also be defined AS a query")
		}
		p.next()
		if cs.Query, err = p.parseQuery(queryOpts{}); err != nil {
			return nil, err
		}
	}
	if cs.Columns == nil && cs.With == nil && cs.Query == nil {
		return nil, p.errf("expected '(' and column definitions, WITH (...) or AS <query> after the stream name, found %s", describe(p.peek()))
	}
	return cs, nil
}

// parseCreateTable parses the rest of
//
//	CREATE TABLE [IF NOT EXISTS] name (columns, PRIMARY KEY (...)) [WITH (options)]
func (p *parser) parseCreateTable(base Base) (Stmt, error) {
	ct := &CreateTable{Base: base}
	var err error
	if ct.IfNotExists, ct.Name, err = p.createName("a table name"); err != nil {
		return nil, err
	}
	if p.peek().is("AS") {
		return nil, p.errf("CREATE TABLE ... AS is not supported: use CREATE MATERIALIZED VIEW for a query's result")
	}
	if !p.peek().isOp("(") {
		return nil, p.errf("expected '(' and column definitions after the table name, found %s", describe(p.peek()))
	}
	body, err := p.parseTableBody("table")
	if err != nil {
		return nil, err
	}
	ct.Columns, ct.PrimaryKey, ct.Watermark = body.cols, body.pk, body.wm
	if ct.With, err = p.optionalOptions(); err != nil {
		return nil, err
	}
	return ct, nil
}

// parseCreateView parses the rest of
//
//	CREATE MATERIALIZED VIEW [IF NOT EXISTS] name [WITH (options)] AS query [EMIT ON WINDOW CLOSE]
func (p *parser) parseCreateView(base Base) (Stmt, error) {
	cv := &CreateView{Base: base}
	var err error
	if cv.IfNotExists, cv.Name, err = p.createName("a view name"); err != nil {
		return nil, err
	}
	if cv.With, err = p.optionalOptions(); err != nil {
		return nil, err
	}
	what := "after the view name"
	if cv.With != nil {
		what = "after the view's options"
	}
	if err := p.expect("AS", what); err != nil {
		return nil, err
	}
	if cv.Query, err = p.parseQuery(queryOpts{}); err != nil {
		return nil, err
	}
	return cv, nil
}

// parseCreateSink parses the rest of
//
//	CREATE SINK [IF NOT EXISTS] name FROM name WITH (options)
//	CREATE SINK [IF NOT EXISTS] name AS query WITH (options)
func (p *parser) parseCreateSink(base Base) (Stmt, error) {
	ck := &CreateSink{Base: base}
	var err error
	if ck.IfNotExists, ck.Name, err = p.createName("a sink name"); err != nil {
		return nil, err
	}
	switch {
	case p.accept("FROM"):
		from, err := p.ident("the name of the view or stream the sink reads")
		if err != nil {
			return nil, err
		}
		ck.From = &from
	case p.accept("AS"):
		if ck.Query, err = p.parseQuery(queryOpts{sinkWith: true}); err != nil {
			return nil, err
		}
	default:
		return nil, p.errf("expected FROM <name> or AS <query> after the sink name, found %s", describe(p.peek()))
	}
	if !p.peek().is("WITH") {
		what := "input"
		if ck.Query != nil {
			what = "query"
		}
		return nil, p.errf("expected WITH (connector = ...) after the sink's %s, found %s", what, describe(p.peek()))
	}
	if ck.With, err = p.parseOptions(); err != nil {
		return nil, err
	}
	return ck, nil
}

// createName parses `[IF NOT EXISTS] name` after CREATE and the kind of
// object; what names the name ("a table name") for errors.
func (p *parser) createName(what string) (ifNotExists bool, name Ident, err error) {
	if ifNotExists, err = p.ifNotExists(); err != nil {
		return false, Ident{}, err
	}
	name, err = p.ident(what)
	return ifNotExists, name, err
}
