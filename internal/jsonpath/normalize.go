package jsonpath

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// MySQL's normalized spelling of a JSON value, which Normalize, Extract
// and Unquote write: no whitespace but one space after each ',' and ':';
// an object's keys sorted (shorter first, then by their bytes) and each
// once (the last of a key given twice, as MySQL keeps it); strings with
// only the escapes they need (\" \\ \b \f \n \r \t, and \u00XX for other
// control characters), so that equal values are equal text. Numbers stay
// as written.

// normalizer writes checked values normalized, reusing its scratch space
// from value to value.
type normalizer struct {
	members []objMember // the members of the objects being written, a stack
	keys    []byte      // their decoded keys
}

// objMember is one member of an object being written: its key (decoded, in
// normalizer.keys) and where its value starts in the document.
type objMember struct {
	keyLo, keyHi int
	value        int
	order        int
}

// value appends the checked value at doc[i] normalized and returns the
// offset after it.
func (n *normalizer) value(dst, doc []byte, i int) ([]byte, int) {
	switch doc[i] {
	case '"':
		end := stringEnd(doc, i)
		return n.str(dst, doc[i:end]), end
	case '[':
		dst = append(dst, '[')
		i = skipWS(doc, i+1)
		for first := true; doc[i] != ']'; first = false {
			if !first {
				dst = append(dst, ", "...)
			}
			dst, i = n.value(dst, doc, i)
			if i = skipWS(doc, i); doc[i] == ',' {
				i = skipWS(doc, i+1)
			}
		}
		return append(dst, ']'), i + 1
	case '{':
		return n.object(dst, doc, i)
	}
	end := valueEnd(doc, i)
	return append(dst, doc[i:end]...), end
}

// object appends the checked object at doc[i] normalized.
func (n *normalizer) object(dst, doc []byte, i int) ([]byte, int) {
	base, keyBase := len(n.members), len(n.keys)
	i = skipWS(doc, i+1)
	for k := 0; doc[i] != '}'; k++ {
		end := stringEnd(doc, i)
		lo := len(n.keys)
		n.keys, _ = appendUnquoted(n.keys, doc[i:end])
		v := skipWS(doc, skipWS(doc, end)+1)
		n.members = append(n.members, objMember{keyLo: lo, keyHi: len(n.keys), value: v, order: k})
		next := valueEnd(doc, v)
		if i = skipWS(doc, next); doc[i] == ',' {
			i = skipWS(doc, i+1)
		}
	}
	end := i + 1
	ms := n.members[base:]
	keys := n.keys
	slices.SortFunc(ms, func(a, b objMember) int {
		ka, kb := keys[a.keyLo:a.keyHi], keys[b.keyLo:b.keyHi]
		if len(ka) != len(kb) {
			return len(ka) - len(kb)
		}
		if c := bytes.Compare(ka, kb); c != 0 {
			return c
		}
		return a.order - b.order
	})
	dst = append(dst, '{')
	first := true
	for j := range ms {
		m := n.members[base+j] // the stack may move while values are written
		if j+1 < len(ms) {
			next := n.members[base+j+1]
			if bytes.Equal(n.keys[m.keyLo:m.keyHi], n.keys[next.keyLo:next.keyHi]) {
				continue // the last of equal keys wins
			}
		}
		if !first {
			dst = append(dst, ", "...)
		}
		first = false
		dst = appendQuoted(dst, n.keys[m.keyLo:m.keyHi])
		dst = append(dst, ": "...)
		dst, _ = n.value(dst, doc, m.value)
	}
	n.members, n.keys = n.members[:base], n.keys[:keyBase]
	return append(dst, '}'), end
}

// str appends the checked JSON string q (with quotes) with only the
// escapes it needs.
func (n *normalizer) str(dst, q []byte) []byte {
	plain := true
	for _, c := range q[1 : len(q)-1] {
		if c == '\\' || c < 0x20 {
			plain = false
			break
		}
	}
	if plain && utf8.Valid(q) {
		return append(dst, q...)
	}
	lo := len(n.keys)
	n.keys, _ = appendUnquoted(n.keys, q)
	dst = appendQuoted(dst, n.keys[lo:])
	n.keys = n.keys[:lo]
	return dst
}

// appendQuoted appends s as a JSON string with only the escapes it needs
// (invalid UTF-8 becomes U+FFFD).
func appendQuoted(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, w := utf8.DecodeRune(s[i:])
			dst = utf8.AppendRune(dst, r)
			i += w
			continue
		}
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			dst = append(dst, c)
		}
		i++
	}
	return append(dst, '"')
}

// Quote appends s as a JSON string (MySQL's JSON_QUOTE).
func Quote(dst []byte, s string) []byte { return appendQuoted(dst, []byte(s)) }
