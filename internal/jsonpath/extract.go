package jsonpath

import (
	"errors"
	"strconv"
)

// ErrInvalid is a document that is not valid JSON.
var ErrInvalid = errors.New("invalid JSON text")

// Valid reports whether doc is one valid JSON value, whitespace around it
// allowed.
func Valid(doc []byte) bool {
	_, ok := root(doc)
	return ok
}

// root checks doc and returns the offset of its value.
func root(doc []byte) (int, bool) {
	i := skipWS(doc, 0)
	end, ok := scanValue(doc, i, 0)
	if !ok || skipWS(doc, end) != len(doc) {
		return 0, false
	}
	return i, true
}

// Normalize appends doc in MySQL's normalized spelling (normalize.go):
// {"a": 1, "b": [1, 2]}, keys sorted and once, strings minimally escaped.
func Normalize(dst, doc []byte) ([]byte, error) {
	i, ok := root(doc)
	if !ok {
		return dst, ErrInvalid
	}
	var n normalizer
	dst, _ = n.value(dst, doc, i)
	return dst, nil
}

// Extract appends the value doc holds at p, normalized, and reports
// whether there was one; a path with a wildcard appends every value it
// selects as an array (as MySQL's JSON_EXTRACT), and reports false when it
// selects none. A document that is not valid JSON is ErrInvalid.
func Extract(dst, doc []byte, p Path) ([]byte, bool, error) {
	i, ok := root(doc)
	if !ok {
		return dst, false, ErrInvalid
	}
	w := walker{doc: doc, out: dst, wild: p.Wildcard()}
	w.walk(i, p.legs)
	switch {
	case w.found == 0:
		return dst, false, nil
	case w.wild:
		w.out = append(w.out, ']')
	}
	return w.out, true, nil
}

// walker walks a checked document along a path's legs.
type walker struct {
	doc     []byte
	out     []byte
	wild    bool // the matches go into an array
	found   int
	scratch []byte
	norm    normalizer
}

// walk selects, from the value at doc[i], what legs select.
func (w *walker) walk(i int, legs []leg) {
	if len(legs) == 0 {
		w.emit(i)
		return
	}
	l, rest := legs[0], legs[1:]
	doc := w.doc
	switch l.kind {
	case member, anyMember:
		if doc[i] != '{' {
			return
		}
		last := -1
		w.members(i, func(key []byte, v int) {
			switch {
			case l.kind == anyMember:
				w.walk(v, rest)
			case keyIs(key, l.name, &w.scratch):
				last = v // a key given twice: the last one counts, as in MySQL
			}
		})
		if last >= 0 {
			w.walk(last, rest)
		}
	case anyIndex:
		if doc[i] == '[' {
			w.elements(i, func(_, v int) bool { w.walk(v, rest); return true })
		}
	case index:
		if doc[i] != '[' {
			// A value that is not an array is an array of itself at [0]
			// and [last], as in MySQL.
			if l.n == 0 {
				w.walk(i, rest)
			}
			return
		}
		want := l.n
		if l.fromLast {
			count := 0
			w.elements(i, func(int, int) bool { count++; return true })
			if want = count - 1 - l.n; want < 0 {
				return
			}
		}
		w.elements(i, func(k, v int) bool {
			if k == want {
				w.walk(v, rest)
				return false
			}
			return true
		})
	}
}

// emit appends the value at doc[i] to the output.
func (w *walker) emit(i int) {
	switch {
	case w.wild && w.found == 0:
		w.out = append(w.out, '[')
	case w.wild:
		w.out = append(w.out, ", "...)
	case w.found > 0:
		return
	}
	w.found++
	w.out, _ = w.norm.value(w.out, w.doc, i)
}

// members calls f with each key (with its quotes) and value offset of the
// checked object at doc[i].
func (w *walker) members(i int, f func(key []byte, v int)) {
	doc := w.doc
	for i = skipWS(doc, i+1); doc[i] != '}'; {
		end := stringEnd(doc, i)
		v := skipWS(doc, skipWS(doc, end)+1)
		f(doc[i:end], v)
		next := valueEnd(doc, v)
		if i = skipWS(doc, next); doc[i] == ',' {
			i = skipWS(doc, i+1)
		}
	}
}

// elements calls f with each element's position and offset of the checked
// array at doc[i], until f returns false.
func (w *walker) elements(i int, f func(k, v int) bool) {
	doc := w.doc
	for k, i := 0, skipWS(doc, i+1); doc[i] != ']'; k++ {
		if !f(k, i) {
			return
		}
		next := valueEnd(doc, i)
		if i = skipWS(doc, next); doc[i] == ',' {
			i = skipWS(doc, i+1)
		}
	}
}

// Unquote appends the text of a JSON value: a string's characters, its
// escapes decoded; any other value's JSON text, normalized. A document
// that is not valid JSON is appended as it is (as MySQL's JSON_UNQUOTE
// leaves text that is not a JSON string).
func Unquote(dst, doc []byte) []byte {
	i, ok := root(doc)
	if !ok {
		return append(dst, doc...)
	}
	if doc[i] == '"' {
		end := stringEnd(doc, i)
		dst, _ = appendUnquoted(dst, doc[i:end])
		return dst
	}
	var n normalizer
	dst, _ = n.value(dst, doc, i)
	return dst
}

// Type returns MySQL's name of the type of the document's value: OBJECT,
// ARRAY, STRING, INTEGER, DOUBLE, BOOLEAN or NULL.
func Type(doc []byte) (string, error) {
	i, ok := root(doc)
	if !ok {
		return "", ErrInvalid
	}
	switch doc[i] {
	case '{':
		return "OBJECT", nil
	case '[':
		return "ARRAY", nil
	case '"':
		return "STRING", nil
	case 't', 'f':
		return "BOOLEAN", nil
	case 'n':
		return "NULL", nil
	}
	end, _ := scanNumber(doc, i)
	for _, c := range doc[i:end] {
		if c == '.' || c == 'e' || c == 'E' {
			return "DOUBLE", nil
		}
	}
	if _, err := strconv.ParseInt(string(doc[i:end]), 10, 64); err != nil {
		return "DOUBLE", nil // beyond BIGINT
	}
	return "INTEGER", nil
}

// Length returns the number of members of an object or elements of an
// array, and 1 for any other value.
func Length(doc []byte) (int, error) {
	i, ok := root(doc)
	if !ok {
		return 0, ErrInvalid
	}
	w := walker{doc: doc}
	n := 0
	switch doc[i] {
	case '{':
		w.members(i, func([]byte, int) { n++ })
	case '[':
		w.elements(i, func(int, int) bool { n++; return true })
	default:
		n = 1
	}
	return n, nil
}

// Keys appends the keys of the document's object as a JSON array, and
// reports false when its value is not an object.
func Keys(dst, doc []byte) ([]byte, bool, error) {
	i, ok := root(doc)
	if !ok {
		return dst, false, ErrInvalid
	}
	if doc[i] != '{' {
		return dst, false, nil
	}
	w := walker{doc: doc}
	// The keys of the normalized object: sorted, each once.
	obj, _ := w.norm.value(nil, doc, i)
	w.doc = obj
	dst = append(dst, '[')
	first := true
	w.members(0, func(key []byte, _ int) {
		if !first {
			dst = append(dst, ", "...)
		}
		first = false
		dst = append(dst, key...)
	})
	return append(dst, ']'), true, nil
}

// ExtractAll appends every value the paths select, in the paths' order,
// as one array (MySQL's JSON_EXTRACT with several paths), and reports
// false when they select none.
func ExtractAll(dst, doc []byte, ps []Path) ([]byte, bool, error) {
	i, ok := root(doc)
	if !ok {
		return dst, false, ErrInvalid
	}
	w := walker{doc: doc, out: dst, wild: true}
	for _, p := range ps {
		w.walk(i, p.legs)
	}
	if w.found == 0 {
		return dst, false, nil
	}
	return append(w.out, ']'), true, nil
}
