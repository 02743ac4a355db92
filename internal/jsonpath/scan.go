package jsonpath

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is how deeply arrays and objects may nest, the document's own
// included (the file connector's limit too).
const MaxDepth = 512

// skipWS returns the offset of the first byte at or after i that is not
// JSON whitespace.
func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanValue checks the value starting at b[i] (no whitespace before it)
// and returns the offset after it.
func scanValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return scanString(b, i)
	case c == '{' || c == '[':
		if depth >= MaxDepth {
			return 0, false
		}
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == close {
			return i + 1, true
		}
		for {
			if c == '{' {
				end, ok := scanString(b, i)
				if !ok {
					return 0, false
				}
				i = skipWS(b, end)
				if i >= len(b) || b[i] != ':' {
					return 0, false
				}
				i = skipWS(b, i+1)
			}
			end, ok := scanValue(b, i, depth+1)
			if !ok {
				return 0, false
			}
			i = skipWS(b, end)
			switch {
			case i < len(b) && b[i] == ',':
				i = skipWS(b, i+1)
			case i < len(b) && b[i] == close:
				return i + 1, true
			default:
				return 0, false
			}
		}
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	}
	return scanNumber(b, i)
}

// literal checks that word is at b[i].
func literal(b []byte, i int, word string) (int, bool) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return 0, false
	}
	return i + len(word), true
}

// scanNumber checks the number at b[i]: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return 0, false
		}
	}
	return i, true
}

// scanString checks the string whose opening quote is at b[i] and returns
// the offset after its closing quote.
func scanString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			i++
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 || !isHex4(b[i+1:i+5]) {
					return 0, false
				}
				i += 4
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

func isHex4(b []byte) bool {
	for _, c := range b[:4] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// appendUnquoted appends the text of q, a checked JSON string with its
// quotes, its escapes decoded (a lone surrogate becomes U+FFFD).
func appendUnquoted(dst, q []byte) ([]byte, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return dst, false
	}
	q = q[1 : len(q)-1]
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		if i >= len(q) {
			return dst, false
		}
		switch q[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			if len(q)-i < 5 || !isHex4(q[i+1:]) {
				return dst, false
			}
			r := hex4(q[i+1:])
			i += 4
			if utf16.IsSurrogate(r) {
				if len(q)-i >= 7 && q[i+1] == '\\' && q[i+2] == 'u' && isHex4(q[i+3:]) {
					if r2 := utf16.DecodeRune(r, hex4(q[i+3:])); r2 != utf8.RuneError {
						r = r2
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // " \ /
			dst = append(dst, q[i])
		}
	}
	return dst, true
}

// keyIs reports whether the checked JSON string q (with quotes) is name.
func keyIs(q []byte, name string, scratch *[]byte) bool {
	raw := q[1 : len(q)-1]
	plain := true
	for _, c := range raw {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return string(raw) == name
	}
	*scratch, _ = appendUnquoted((*scratch)[:0], q)
	return string(*scratch) == name
}

// The skips below read a document the scan functions above have checked
// whole (root): they find where a value ends without checking it again,
// so a path's walk costs less than the check.

// stringEnd returns the offset after the checked string whose opening
// quote is at b[i].
func stringEnd(b []byte, i int) int {
	for i++; ; {
		k := bytes.IndexByte(b[i:], '"')
		j := i + k
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		bs := 0
		for p := j - 1; p >= i && b[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return j + 1
		}
		i = j + 1
	}
}

// valueEnd returns the offset after the checked value at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
	}
	for i < len(b) {
		switch b[i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
