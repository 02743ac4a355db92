package sql

import "strings"

// parseStmt parses the statement at the current token. top is false for
// the statement inside EXPLAIN.
func (p *parser) parseStmt(top bool) (Stmt, error) {
	t := p.peek()
	base := Base{Src: p.src, Start: p.pos(t)}
	switch {
	case t.is("CREATE"):
		return p.parseCreate(base)
	case t.is("INSERT"):
		return p.parseInsert(base)
	case t.is("UPDATE"), t.is("DELETE"):
		return p.parseDML(base)
	case t.is("SELECT"), t.is("WITH"), t.isOp("("):
		q, err := p.parseQuery(queryOpts{changes: true})
		if err != nil {
			return nil, err
		}
		return &Select{Base: base, Query: q}, nil
	case t.is("EXPLAIN"):
		if !top {
			return nil, p.errf("EXPLAIN cannot explain EXPLAIN")
		}
		return p.parseExplain(base)
	case t.is("SHOW"):
		return p.parseShow(base)
	case t.is("DESCRIBE"), t.is("DESC"):
		p.next()
		name, err := p.ident("a name after " + strings.ToUpper(t.text))
		if err != nil {
			return nil, err
		}
		return &Describe{Base: base, Name: name}, nil
	case t.is("DROP"):
		return p.parseDrop(base)
	case t.is("ALTER"):
		return p.parseAlter(base)
	case t.is("SET"):
		return p.parseSet(base)
	case t.is("FLUSH"):
		p.next()
		if !p.at(tEOF) {
			return nil, p.unsupported(p.errf("FLUSH takes no arguments, found %s", describe(p.peek())))
		}
		return &Flush{Base: base}, nil
	case t.is("ANALYZE"):
		p.next()
		if (p.peek().is("TABLE") || p.peek().is("STREAM")) && p.peekAt(1).isName() {
			p.next() // MySQL's ANALYZE TABLE t
		}
		name, err := p.ident("the name of a stream or table after ANALYZE")
		if err != nil {
			return nil, p.unsupported(err)
		}
		return &Analyze{Base: base, Name: name}, nil
	}
	if !top {
		return nil, p.errf("expected a statement to explain, found %s", describe(t))
	}
	return nil, p.unsupported(nil)
}

// parseExplain parses EXPLAIN [LOGICAL | VERBOSE] stmt and EXPLAIN ANALYZE name.
func (p *parser) parseExplain(base Base) (Stmt, error) {
	p.next()
	ex := &Explain{Base: base}
	switch {
	case p.accept("ANALYZE"):
		ex.Mode = ExplainAnalyze
		if t := p.peek(); t.is("SELECT") || t.is("WITH") || t.is("CREATE") || t.is("INSERT") || t.isOp("(") {
			return nil, p.errf("EXPLAIN ANALYZE takes the name of a running view, sink or derived stream, found %s", describe(t))
		}
		name, err := p.ident("the name of a view, sink or derived stream after EXPLAIN ANALYZE")
		if err != nil {
			return nil, err
		}
		ex.Target = &name
		return ex, nil
	case p.accept("LOGICAL"):
		ex.Mode = ExplainLogical
	case p.accept("VERBOSE"):
		ex.Mode = ExplainVerbose
	}
	start := p.peek()
	s, err := p.parseStmt(false)
	if err != nil {
		return nil, err
	}
	ok := false
	switch s := s.(type) {
	case *Select, *CreateView:
		ok = true
	case *CreateStream:
		ok = s.Query != nil
	case *CreateSink:
		ok = s.Query != nil
	case *Insert:
		ok = s.Query != nil
	}
	if !ok {
		return nil, p.errAt(start, "EXPLAIN takes a query, CREATE MATERIALIZED VIEW, CREATE STREAM ... AS, CREATE SINK ... AS or INSERT ... SELECT")
	}
	ex.Stmt = s
	return ex, nil
}

// parseShow parses SHOW STREAMS | TABLES | MATERIALIZED VIEWS | SINKS |
// QUERIES | CHECKPOINTS | FUNCTIONS | AUTOSCALE | CLUSTER and SHOW CREATE.
func (p *parser) parseShow(base Base) (Stmt, error) {
	p.next()
	t := p.peek()
	var what ShowKind
	switch {
	case t.is("CREATE"):
		return p.parseShowCreate(base)
	case t.is("STREAMS"):
		what = ShowStreams
	case t.is("TABLES"):
		what = ShowTables
	case t.is("MATERIALIZED") && p.peekAt(1).is("VIEWS"):
		p.next()
		what = ShowViews
	case t.is("SINKS"):
		what = ShowSinks
	case t.is("QUERIES"):
		what = ShowQueries
	case t.is("CHECKPOINTS"):
		what = ShowCheckpoints
	case t.is("FUNCTIONS"):
		what = ShowFunctions
	case t.is("AUTOSCALE"):
		what = ShowAutoscale
	case t.is("CLUSTER"):
		what = ShowCluster
	default:
		return nil, p.unsupported(p.errf("expected STREAMS, TABLES, MATERIALIZED VIEWS, SINKS, QUERIES, CHECKPOINTS, FUNCTIONS, AUTOSCALE, CLUSTER or CREATE after SHOW, found %s", describe(t)))
	}
	p.next()
	if !p.at(tEOF) {
		return nil, p.unsupported(p.errf("expected end of statement, found %s", describe(p.peek())))
	}
	return &Show{Base: base, What: what}, nil
}

// parseShowCreate parses the rest of SHOW CREATE [STREAM | TABLE |
// MATERIALIZED VIEW | SINK] name.
func (p *parser) parseShowCreate(base Base) (Stmt, error) {
	p.next()
	if p.peek().is("VIEW") && p.peekAt(1).isName() {
		return nil, p.errf("a view is a MATERIALIZED VIEW in eddy: SHOW CREATE MATERIALIZED VIEW %s", p.peekAt(1).text)
	}
	sc := &ShowCreate{Base: base, Kind: p.objectKind()}
	what := "the name of a stream, table, materialized view or sink after SHOW CREATE"
	if sc.Kind != 0 {
		what = "the name of the " + strings.ToLower(sc.Kind.String()) + " after SHOW CREATE " + sc.Kind.String()
	}
	var err error
	if sc.Name, err = p.ident(what); err != nil {
		return nil, err
	}
	if !p.at(tEOF) {
		return nil, p.errf("expected end of statement, found %s", describe(p.peek()))
	}
	return sc, nil
}

// objectKind parses STREAM | TABLE | MATERIALIZED VIEW | SINK, or returns 0.
func (p *parser) objectKind() ObjectKind {
	t := p.peek()
	switch {
	case t.is("STREAM"):
		p.next()
		return ObjStream
	case t.is("TABLE"):
		p.next()
		return ObjTable
	case t.is("MATERIALIZED") && p.peekAt(1).is("VIEW"):
		p.next()
		p.next()
		return ObjView
	case t.is("SINK"):
		p.next()
		return ObjSink
	}
	return 0
}

// parseDrop parses DROP STREAM | TABLE | MATERIALIZED VIEW | SINK [IF EXISTS] name.
func (p *parser) parseDrop(base Base) (Stmt, error) {
	p.next()
	kind := p.objectKind()
	if kind == 0 {
		return nil, p.unsupported(p.errf("expected STREAM, TABLE, MATERIALIZED VIEW or SINK after DROP, found %s", describe(p.peek())))
	}
	d := &Drop{Base: base, Kind: kind}
	var err error
	if d.IfExists, err = p.ifExists(); err != nil {
		return nil, err
	}
	if d.Name, err = p.ident("the name of the " + strings.ToLower(kind.String()) + " to drop"); err != nil {
		return nil, err
	}
	switch {
	case p.accept("CASCADE"):
		d.Cascade = true
	case p.accept("RESTRICT"): // the default
	}
	return d, nil
}

// parseSet parses SET name = value and SET name TO value.
func (p *parser) parseSet(base Base) (Stmt, error) {
	p.next()
	name, err := p.dottedIdent("a setting name after SET")
	if err != nil {
		return nil, p.unsupported(err)
	}
	if !p.acceptOp("=") && !p.accept("TO") {
		return nil, p.errf("expected '=' or TO after the setting name, found %s", describe(p.peek()))
	}
	v, pos, ok := p.literalValue()
	if !ok {
		return nil, p.errf("expected a value for %s ('string', number, identifier, TRUE or FALSE), found %s", shown(name.Name), describe(p.peek()))
	}
	return &Set{Base: base, Name: name, Value: v, ValuePos: pos}, nil
}

// parseAlter parses ALTER MATERIALIZED VIEW | SINK | STREAM name SET
// (options). ALTER of anything else (TABLE, MySQL's ALTER VIEW and
// ALTER DATABASE) is reported as TiDB's statements eddy does not run are.
func (p *parser) parseAlter(base Base) (Stmt, error) {
	p.next()
	if p.peek().is("VIEW") && p.peekAt(1).isName() {
		return nil, p.errf("a view is a MATERIALIZED VIEW in eddy: ALTER MATERIALIZED VIEW %s", p.peekAt(1).text)
	}
	var kind ObjectKind
	switch t := p.peek(); {
	case t.is("MATERIALIZED") && p.peekAt(1).is("VIEW"), t.is("SINK"), t.is("STREAM"):
		kind = p.objectKind()
	default:
		return nil, p.unsupported(nil)
	}
	a := &Alter{Base: base, Kind: kind}
	var err error
	if a.Name, err = p.ident("the name of the " + strings.ToLower(kind.String()) + " after ALTER " + kind.String()); err != nil {
		return nil, err
	}
	if err := p.expect("SET", "after the name in ALTER "+kind.String()); err != nil {
		return nil, err
	}
	if a.Set, err = p.optionList("SET"); err != nil {
		return nil, err
	}
	if !p.at(tEOF) {
		return nil, p.errf("expected end of statement, found %s", describe(p.peek()))
	}
	return a, nil
}
