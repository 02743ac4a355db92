package expr_test

import (
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/internal/jsonpath"
	"github.com/eddysql/eddy/planner/plan"
)

// The JSON functions' reference semantics take the meaning of documents
// and paths from internal/jsonpath, whose own tests check it (against
// MySQL's answers, and fuzzed against encoding/json): what the kernels'
// fuzzing checks is the vectorized evaluation around it — NULLs, constant
// and varying paths, selections, errors reaching only the rows that fail.
var jsonFuncs = map[string]refFunc{
	"json_extract": func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		var ps []jsonpath.Path
		for _, d := range a[1:] {
			p, err := jsonpath.Parse(d.S)
			if err != nil {
				return null, badArgument("%s: %v", strings.ToUpper(e.Name), err)
			}
			ps = append(ps, p)
		}
		var out []byte
		var found bool
		var err error
		if len(ps) == 1 {
			out, found, err = jsonpath.Extract(nil, []byte(a[0].S), ps[0])
		} else {
			out, found, err = jsonpath.ExtractAll(nil, []byte(a[0].S), ps)
		}
		if err != nil || !found {
			return null, nil
		}
		return str(string(out))
	},
	"json_unquote": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		return str(string(jsonpath.Unquote(nil, []byte(a[0].S))))
	},
	"json_quote": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		return str(string(jsonpath.Quote(nil, a[0].S)))
	},
	"json_valid": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		return types.BoolDatum(jsonpath.Valid([]byte(a[0].S))), nil
	},
	"json_type": jsonAt(func(v []byte, _ *plan.Func) (types.Datum, error) {
		t, err := jsonpath.Type(v)
		if err != nil {
			return null, nil
		}
		return str(t)
	}),
	"json_length": jsonAt(func(v []byte, _ *plan.Func) (types.Datum, error) {
		n, err := jsonpath.Length(v)
		if err != nil {
			return null, nil
		}
		return integer(n)
	}),
	"json_keys": jsonAt(func(v []byte, _ *plan.Func) (types.Datum, error) {
		k, ok, err := jsonpath.Keys(nil, v)
		if err != nil || !ok {
			return null, nil
		}
		return str(string(k))
	}),
	"json_value": jsonAt(func(v []byte, e *plan.Func) (types.Datum, error) {
		if v[0] == '{' || v[0] == '[' || (e.Typ.Kind != types.Varchar && string(v) == "null") {
			return null, nil
		}
		text := string(jsonpath.Unquote(nil, v))
		if e.Typ.Kind == types.Varchar {
			return str(text)
		}
		if text == "" {
			return null, nil
		}
		d, err := parse(strings.TrimSpace(text), e.Typ)
		if err != nil {
			return null, nil
		}
		return d, nil
	}),
}

// jsonAt makes the reference of a function of a document's value at an
// optional path (its second argument): NULL without one.
func jsonAt(f func(v []byte, e *plan.Func) (types.Datum, error)) refFunc {
	return func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		v := []byte(a[0].S)
		if len(a) > 1 {
			p, err := jsonpath.Parse(a[1].S)
			if err != nil {
				return null, badArgument("%s: %v", strings.ToUpper(e.Name), err)
			}
			out, found, err := jsonpath.Extract(nil, v, p)
			if err != nil || !found {
				return null, nil
			}
			v = out
		} else if !jsonpath.Valid(v) {
			if e.Name == "json_type" || e.Name == "json_length" || e.Name == "json_keys" {
				return null, nil
			}
		}
		return f(v, e)
	}
}
