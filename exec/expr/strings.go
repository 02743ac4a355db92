package expr

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/eddysql/eddy/planner/plan"
)

// String functions count positions and lengths in characters (UTF-8 code
// points), except LENGTH, which counts bytes as MySQL does. NULL rows are
// appended as empty strings so offsets stay aligned.

func concatKernel(e *plan.Func) (kernel, error) {
	return func(in []*vector, n int, out *result) error {
		size := 0
		for _, v := range in {
			size += totalLen(v, n)
		}
		out.strings(n, size)
		for i := 0; i < n; i++ {
			if out.isValid(i) {
				for _, v := range in {
					out.buf.data = append(out.buf.data, v.str(i)...)
				}
			}
			out.buf.offs = append(out.buf.offs, int32(len(out.buf.data)))
		}
		out.finishStrings()
		return nil
	}, nil
}

// upperKernel is UPPER (upper) or LOWER, with an ASCII fast path.
func upperKernel(upper bool) func(e *plan.Func) (kernel, error) {
	return func(e *plan.Func) (kernel, error) {
		return func(in []*vector, n int, out *result) error {
			out.strings(n, totalLen(in[0], n))
			for i := 0; i < n; i++ {
				s := in[0].str(i)
				d := out.buf.data
				for j := 0; j < len(s); j++ {
					ch := s[j]
					if ch >= utf8.RuneSelf {
						d = appendCaseRunes(d, s[j:], upper)
						break
					}
					if upper && 'a' <= ch && ch <= 'z' {
						ch -= 'a' - 'A'
					} else if !upper && 'A' <= ch && ch <= 'Z' {
						ch += 'a' - 'A'
					}
					d = append(d, ch)
				}
				out.buf.data = d
				out.buf.offs = append(out.buf.offs, int32(len(d)))
			}
			out.finishStrings()
			return nil
		}, nil
	}
}

// appendCaseRunes appends s upper- or lower-cased rune by rune.
func appendCaseRunes(d []byte, s string, upper bool) []byte {
	for _, r := range s {
		if upper {
			r = unicode.ToUpper(r)
		} else {
			r = unicode.ToLower(r)
		}
		d = utf8.AppendRune(d, r)
	}
	return d
}

func reverseKernel(e *plan.Func) (kernel, error) {
	return func(in []*vector, n int, out *result) error {
		out.strings(n, totalLen(in[0], n))
		for i := 0; i < n; i++ {
			s := in[0].str(i)
			for j := len(s); j > 0; {
				_, w := utf8.DecodeLastRuneInString(s[:j])
				out.buf.data = append(out.buf.data, s[j-w:j]...)
				j -= w
			}
			out.buf.offs = append(out.buf.offs, int32(len(out.buf.data)))
		}
		out.finishStrings()
		return nil
	}, nil
}

// lengthKernel is LENGTH (bytes) or CHAR_LENGTH (chars).
func lengthKernel(chars bool) func(e *plan.Func) (kernel, error) {
	return func(e *plan.Func) (kernel, error) {
		return func(in []*vector, n int, out *result) error {
			r, v := out.int64s(n), in[0]
			for i := range r {
				if chars {
					r[i] = int64(utf8.RuneCountInString(v.str(i)))
				} else {
					r[i] = int64(len(v.str(i)))
				}
			}
			return nil
		}, nil
	}
}

// countCharKernel counts the occurrences of a string's characters in
// another: COUNT_CHAR(s, c) is how often c (its first character; nothing
// when empty) occurs in s — the function Nexmark's q14 defines.
func countCharKernel(e *plan.Func) (kernel, error) {
	return func(in []*vector, n int, out *result) error {
		r, s, c := out.int64s(n), in[0], in[1]
		for i := range r {
			ch := c.str(i)
			if ch == "" {
				r[i] = 0
				continue
			}
			first, size := utf8.DecodeRuneInString(ch)
			if size == 1 && first < utf8.RuneSelf {
				r[i] = int64(strings.Count(s.str(i), ch[:1]))
			} else {
				r[i] = int64(strings.Count(s.str(i), string(first)))
			}
		}
		return nil
	}, nil
}

// charOffset returns the byte offset of the k-th character (0-based) of s,
// or len(s) when s is shorter.
func charOffset(s string, k int64) int {
	if k <= 0 {
		return 0
	}
	for j := range s {
		if k == 0 {
			return j
		}
		k--
	}
	return len(s)
}

// substr returns s[pos, pos+length) in characters with MySQL's rules: pos
// is 1-based, a negative pos counts from the end, pos 0 or beyond the end
// gives ”. length < 0 means to the end.
func substr(s string, pos, length int64) string {
	if pos == 0 || length == 0 {
		return ""
	}
	if pos < 0 {
		pos += int64(utf8.RuneCountInString(s)) + 1
		if pos < 1 {
			return ""
		}
	}
	s = s[charOffset(s, pos-1):]
	if length < 0 {
		return s
	}
	return s[:charOffset(s, length)]
}

// substringKernel is SUBSTRING(s, pos[, len]).
func substringKernel(e *plan.Func) (kernel, error) {
	return func(in []*vector, n int, out *result) error {
		out.strings(n, totalLen(in[0], n))
		for i := 0; i < n; i++ {
			length := int64(-1)
			if len(in) > 2 {
				if length = in[2].int64At(i); length < 0 {
					length = 0
				}
			}
			out.appendStr(substr(in[0].str(i), in[1].int64At(i), length))
		}
		out.finishStrings()
		return nil
	}, nil
}

// leftRightKernel is LEFT(s, n) (left) or RIGHT(s, n).
func leftRightKernel(left bool) func(e *plan.Func) (kernel, error) {
	return func(e *plan.Func) (kernel, error) {
		return func(in []*vector, n int, out *result) error {
			out.strings(n, totalLen(in[0], n))
			for i := 0; i < n; i++ {
				s, k := in[0].str(i), in[1].int64At(i)
				switch {
				case k <= 0:
					s = ""
				case left:
					s = s[:charOffset(s, k)]
				default:
					if c := int64(utf8.RuneCountInString(s)); k < c {
						s = s[charOffset(s, c-k):]
					}
				}
				out.appendStr(s)
			}
			out.finishStrings()
			return nil
		}, nil
	}
}

// replaceKernel is REPLACE(s, from, to); an empty from leaves s unchanged.
func replaceKernel(e *plan.Func) (kernel, error) {
	return func(in []*vector, n int, out *result) error {
		out.strings(n, totalLen(in[0], n))
		for i := 0; i < n; i++ {
			s, from, to := in[0].str(i), in[1].str(i), in[2].str(i)
			d := out.buf.data
			if from == "" {
				d = append(d, s...)
			} else {
				for {
					j := strings.Index(s, from)
					if j < 0 {
						break
					}
					d = append(append(d, s[:j]...), to...)
					s = s[j+len(from):]
				}
				d = append(d, s...)
			}
			out.buf.data = d
			out.buf.offs = append(out.buf.offs, int32(len(d)))
		}
		out.finishStrings()
		return nil
	}, nil
}
