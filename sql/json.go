package sql

// rewriteJSONValue rewrites JSON_VALUE(doc, path RETURNING type), whose
// RETURNING TiDB does not parse, at token j into JSON_VALUE(doc, path,
// 'TYPE') (the type's canonical spelling), which the binder reads. It
// returns the index of RETURNING and of the closing ')', or -1 when the
// call has no RETURNING. The ON EMPTY and ON ERROR clauses are refused:
// JSON_VALUE is NULL for both.
func (p *parser) rewriteJSONValue(j, hi int) (ret, closing int, err error) {
	ret = -1
	closing, err = p.callClose(j+1, hi, "JSON_VALUE", func(k int) error {
		switch t := p.toks[k]; {
		case t.is("RETURNING") && ret < 0:
			ret = k
		case t.is("ON") && (p.toks[k+1].is("EMPTY") || p.toks[k+1].is("ERROR")):
			return p.errAt(t, "not supported yet: JSON_VALUE's ON EMPTY and ON ERROR clauses (it is NULL on both)")
		}
		return nil
	})
	if err != nil {
		return -1, -1, err
	}
	if ret < 0 {
		return -1, -1, nil
	}
	t, err := p.typeBefore(ret+1, closing, "JSON_VALUE's RETURNING type")
	if err != nil {
		return -1, -1, err
	}
	p.edits = append(p.edits, edit{lo: p.toks[ret].off, hi: p.toks[closing-1].end, repl: ", '" + t.String() + "'", anchor: p.toks[ret].off})
	return ret, closing, nil
}
