package expr

import (
	"strings"
	"unsafe"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/internal/jsonpath"
	"github.com/eddysql/eddy/planner/plan"
)

// The JSON functions (docs/dialect-notes.md, "JSON"): they read a
// document's text (a VARCHAR or a JSON value) with internal/jsonpath,
// without building a tree. A document that is not valid JSON makes them
// NULL, as Flink's JSON_VALUE and JSON_QUERY are by default, rather than
// failing the query over one bad event; CAST(text AS JSON) is the check
// that fails.

// bytesAt returns row i's string value as bytes, aliasing v's memory.
func (v *vector) bytesAt(i int) []byte {
	i = v.row(i)
	return v.data[v.offs[i]:v.offs[i+1]]
}

// toJSONKernel is CAST(VARCHAR AS JSON): the text normalized; text that
// is not JSON is a BadCast error.
func toJSONKernel(from types.T) (kernel, error) {
	if from.Physical() != types.PhysString {
		return nil, notSupported("CAST(%s AS JSON)", from)
	}
	return func(in []*vector, n int, out *result) error {
		out.strings(n, totalLen(in[0], n))
		for i := 0; i < n; i++ {
			if !out.isValid(i) {
				out.appendStr("")
				continue
			}
			d, err := jsonpath.Normalize(out.buf.data, in[0].bytesAt(i))
			if err != nil {
				return &RowError{Kind: BadCast, Msg: "cannot cast " + sqlValue(in[0], i, from) + " to JSON: invalid JSON text"}
			}
			out.buf.data = d
			out.buf.offs = append(out.buf.offs, int32(len(d)))
		}
		out.finishStrings()
		return nil
	}, nil
}

// constPaths are the compiled constant paths of a call, compiled once. An
// invalid one fails the rows that reach it, as a varying one does, not
// the compilation: a CASE branch no row takes, or a NULL document, must
// not fail.
type constPaths struct {
	paths []jsonpath.Path // nil when a path is not constant
	err   error
}

// jsonPaths compiles the constant paths of arguments from on.
func jsonPaths(e *plan.Func, from int) constPaths {
	var cp constPaths
	for k := from; k < len(e.Args); k++ {
		d, ok := constArg(e, k)
		if !ok || d.Null {
			return constPaths{}
		}
		p, err := jsonpath.Parse(d.S)
		if err != nil && cp.err == nil {
			cp.err = badArgument("%s: %v", strings.ToUpper(e.Name), err)
		}
		cp.paths = append(cp.paths, p)
	}
	return cp
}

// pathAt returns row i's path of argument k (first is the first path's
// argument): the constant one, or the row's compiled (last caches the
// previous row's).
func pathAt(fixed constPaths, k, first int, in []*vector, i int, last *jsonpath.Path, name string) (jsonpath.Path, error) {
	if fixed.err != nil {
		return jsonpath.Path{}, fixed.err
	}
	if fixed.paths != nil {
		return fixed.paths[k-first], nil
	}
	s := in[k].str(i)
	if last.String() == s && s != "" {
		return *last, nil
	}
	p, err := jsonpath.Parse(strings.Clone(s))
	if err != nil {
		return jsonpath.Path{}, badArgument("%s: %v", strings.ToUpper(name), err)
	}
	*last = p
	return p, nil
}

// jsonExtractKernel is JSON_EXTRACT(doc, path, ...) (and doc -> path;
// doc ->> path is JSON_UNQUOTE of it): the value at the path, or with
// several paths (or a wildcard) an array of the values found; NULL when
// none is, or doc is not JSON.
func jsonExtractKernel(e *plan.Func) (kernel, error) {
	{
		fixed := jsonPaths(e, 1)
		var last jsonpath.Path
		var scratch []byte
		var rowPaths []jsonpath.Path
		return func(in []*vector, n int, out *result) error {
			out.strings(n, totalLen(in[0], n)/2)
			for i := 0; i < n; i++ {
				if !out.isValid(i) {
					out.appendStr("")
					continue
				}
				doc := in[0].bytesAt(i)
				var found bool
				var err error
				if len(in) == 2 {
					p, perr := pathAt(fixed, 1, 1, in, i, &last, e.Name)
					if perr != nil {
						return perr
					}
					scratch, found, err = jsonpath.Extract(scratch[:0], doc, p)
				} else {
					if fixed.err != nil {
						return fixed.err
					}
					ps := fixed.paths
					if ps == nil {
						rowPaths = rowPaths[:0]
						for k := 1; k < len(in); k++ {
							p, perr := pathAt(constPaths{}, k, 1, in, i, &last, e.Name)
							if perr != nil {
								return perr
							}
							rowPaths = append(rowPaths, p)
						}
						ps = rowPaths
					}
					scratch, found, err = jsonpath.ExtractAll(scratch[:0], doc, ps)
				}
				if err != nil || !found {
					out.setNull(i, n)
					out.appendStr("")
					continue
				}
				out.appendBytes(scratch)
			}
			out.finishStrings()
			return nil
		}, nil
	}
}

// jsonUnquoteKernel is JSON_UNQUOTE(s): a JSON string's text, any other
// JSON value's normalized text, and text that is not JSON as it is.
func jsonUnquoteKernel(*plan.Func) (kernel, error) {
	return func(in []*vector, n int, out *result) error {
		out.strings(n, totalLen(in[0], n))
		for i := 0; i < n; i++ {
			if out.isValid(i) {
				out.buf.data = jsonpath.Unquote(out.buf.data, in[0].bytesAt(i))
			}
			out.buf.offs = append(out.buf.offs, int32(len(out.buf.data)))
		}
		out.finishStrings()
		return nil
	}, nil
}

// jsonQuoteKernel is JSON_QUOTE(s): s as a JSON string.
func jsonQuoteKernel(*plan.Func) (kernel, error) {
	return func(in []*vector, n int, out *result) error {
		out.strings(n, totalLen(in[0], n)+2*n)
		for i := 0; i < n; i++ {
			if out.isValid(i) {
				out.buf.data = jsonpath.Quote(out.buf.data, in[0].str(i))
			}
			out.buf.offs = append(out.buf.offs, int32(len(out.buf.data)))
		}
		out.finishStrings()
		return nil
	}, nil
}

// jsonValidKernel is JSON_VALID(doc).
func jsonValidKernel(*plan.Func) (kernel, error) {
	return func(in []*vector, n int, out *result) error {
		r := out.bools(n)
		for i := range r {
			r[i] = out.isValid(i) && jsonpath.Valid(in[0].bytesAt(i))
		}
		return nil
	}, nil
}

// jsonAtPath runs f on the value of row i's document at its path (the
// second argument, when the call has one): f's answer, or NULL when
// there is no such value or the document is not JSON.
// A text result (prepare calls out.strings) is built by f appending a
// row's string only when it answers.
func jsonAtPath(e *plan.Func, text bool, f func(val []byte, i int, out *result) bool, prepare func(out *result, n int)) (kernel, error) {
	fixed := jsonPaths(e, 1)
	var last jsonpath.Path
	var scratch []byte
	return func(in []*vector, n int, out *result) error {
		prepare(out, n)
		for i := 0; i < n; i++ {
			ok := false
			if out.isValid(i) {
				val := in[0].bytesAt(i)
				if len(in) > 1 {
					p, err := pathAt(fixed, 1, 1, in, i, &last, e.Name)
					if err != nil {
						return err
					}
					var found bool
					scratch, found, err = jsonpath.Extract(scratch[:0], val, p)
					val = scratch
					if err != nil || !found {
						val = nil
					}
				}
				ok = val != nil && f(val, i, out)
			}
			if ok {
				continue
			}
			if out.isValid(i) {
				out.setNull(i, n)
			}
			if text {
				out.buf.offs = append(out.buf.offs, int32(len(out.buf.data)))
			}
		}
		if text {
			out.finishStrings()
		}
		return nil
	}, nil
}

// jsonTypeKernel is JSON_TYPE(doc): OBJECT, ARRAY, STRING, INTEGER,
// DOUBLE, BOOLEAN or NULL.
func jsonTypeKernel(e *plan.Func) (kernel, error) {
	return jsonAtPath(e, true, func(val []byte, i int, out *result) bool {
		t, err := jsonpath.Type(val)
		if err != nil {
			return false
		}
		out.appendStr(t)
		return true
	}, func(out *result, n int) { out.strings(n, 8*n) })
}

// jsonLengthKernel is JSON_LENGTH(doc[, path]).
func jsonLengthKernel(e *plan.Func) (kernel, error) {
	return jsonAtPath(e, false, func(val []byte, i int, out *result) bool {
		l, err := jsonpath.Length(val)
		out.i64[i] = int64(l)
		return err == nil
	}, func(out *result, n int) { out.int64s(n) })
}

// jsonKeysKernel is JSON_KEYS(doc[, path]): the object's keys as a JSON
// array, NULL when the value is not an object.
func jsonKeysKernel(e *plan.Func) (kernel, error) {
	return jsonAtPath(e, true, func(val []byte, i int, out *result) bool {
		d, ok, err := jsonpath.Keys(out.buf.data, val)
		if err != nil || !ok {
			return false
		}
		out.buf.data = d
		out.buf.offs = append(out.buf.offs, int32(len(d)))
		return true
	}, func(out *result, n int) { out.strings(n, 16*n) })
}

// jsonValueKernel is JSON_VALUE(doc, path [RETURNING type]): the scalar
// at the path, unquoted and converted to the call's type; NULL when there
// is none, it is an object or an array, or it does not convert (MySQL's
// NULL ON EMPTY and NULL ON ERROR).
func jsonValueKernel(e *plan.Func) (kernel, error) {
	to := e.Typ
	p := to.Physical()
	text := p == types.PhysString
	var parse func(s string, i int, out *result) bool
	if !text {
		var err error
		if parse, err = stringParser(to); err != nil {
			return nil, err
		}
	}
	var unq []byte
	// Only the document and the path: the type is the call's.
	call := *e
	call.Args = e.Args[:2]
	return jsonAtPath(&call, text, func(val []byte, i int, out *result) bool {
		if val[0] == '{' || val[0] == '[' {
			return false
		}
		if text {
			out.buf.data = jsonpath.Unquote(out.buf.data, val)
			out.buf.offs = append(out.buf.offs, int32(len(out.buf.data)))
			return true
		}
		if string(val) == "null" {
			return false
		}
		if unq = jsonpath.Unquote(unq[:0], val); len(unq) == 0 {
			return false
		}
		// The parsers keep nothing of the string they read.
		return parse(strings.TrimSpace(unsafe.String(&unq[0], len(unq))), i, out)
	}, func(out *result, n int) {
		if text {
			out.strings(n, 8*n)
		} else {
			prepareParsed(out, p, n)
		}
	})
}
