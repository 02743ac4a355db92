package sql

import "github.com/eddysql/eddy/catalog/types"

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
	save := p.i
	p.i = ret + 1
	tn, err := p.parseType()
	end := p.i
	p.i = save
	if err != nil {
		return -1, -1, err
	}
	if end != closing {
		return -1, -1, p.errAt(p.toks[end], "expected ')' after JSON_VALUE's RETURNING type, found %s", describe(p.toks[end]))
	}
	t, err := types.FromName(tn.Name, tn.Args)
	if err != nil {
		return -1, -1, p.errAt(p.toks[ret+1], "%s", err.Error())
	}
	p.edits = append(p.edits, edit{lo: p.toks[ret].off, hi: p.toks[closing-1].end, repl: ", '" + t.String() + "'", anchor: p.toks[ret].off})
	return ret, closing, nil
}
