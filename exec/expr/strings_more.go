package expr

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// maxPadBytes bounds the result of LPAD/RPAD: a longer result is NULL, as
// MySQL returns NULL past max_allowed_packet. It keeps a stray huge length
// from exhausting memory.
const maxPadBytes = 1 << 20

// maxBatchBytes bounds the strings one kernel call produces: Arrow's utf8
// offsets are int32, so a batch must stay under 2 GiB.
const maxBatchBytes = 1 << 30

// buildTrim compiles TRIM(s[, remstr[, 'BOTH'|'LEADING'|'TRAILING']]),
// LTRIM(s) and RTRIM(s). TRIM removes every leading and/or trailing
// occurrence of remstr (a space by default); LTRIM and RTRIM remove spaces.
func buildTrim(c *compiler, e *plan.Func) (node, error) {
	lead, trail := true, true
	switch e.Name {
	case "ltrim":
		trail = false
	case "rtrim":
		lead = false
	}
	if len(e.Args) == 3 {
		d, ok := constArg(e, 2)
		if !ok {
			return nil, notSupported("TRIM with a direction that is not a constant")
		}
		switch strings.ToUpper(d.S) {
		case "BOTH":
		case "LEADING":
			trail = false
		case "TRAILING":
			lead = false
		default:
			return nil, fmt.Errorf("expr: TRIM direction %q is not BOTH, LEADING or TRAILING", d.S)
		}
	}
	if err := argsOf(e, types.PhysString); err != nil {
		return nil, err
	}
	args, err := c.compileAll(e.Args[:min(len(e.Args), 2)])
	if err != nil {
		return nil, err
	}
	return newFn(func(in []*vector, n int, out *result) error {
		out.strings(n, totalLen(in[0], n))
		for i := 0; i < n; i++ {
			s, rem := in[0].str(i), " "
			if len(in) > 1 {
				rem = in[1].str(i)
			}
			if rem != "" {
				for lead && strings.HasPrefix(s, rem) {
					s = s[len(rem):]
				}
				for trail && strings.HasSuffix(s, rem) {
					s = s[:len(s)-len(rem)]
				}
			}
			out.appendStr(s)
		}
		out.finishStrings()
		return nil
	}, true, args...), nil
}

// padKernel is LPAD(s, len, pad) (left) or RPAD: s cut or padded to len
// characters; NULL when len < 0 or padding is needed and pad is empty.
func padKernel(left bool) func(e *plan.Func) (kernel, error) {
	return func(e *plan.Func) (kernel, error) {
		return func(in []*vector, n int, out *result) error {
			out.strings(n, totalLen(in[0], n))
			for i := 0; i < n; i++ {
				if !out.isValid(i) {
					out.appendStr("")
					continue
				}
				s, want, pad := in[0].str(i), in[1].int64At(i), in[2].str(i)
				have := int64(utf8.RuneCountInString(s))
				switch {
				case want < 0 || want > maxPadBytes || (want > have && pad == ""):
					out.setNull(i, n)
					out.appendStr("")
					continue
				case want <= have:
					out.appendStr(s[:charOffset(s, want)])
					continue
				}
				d := out.buf.data
				if !left {
					d = append(d, s...)
				}
				for need := want - have; need > 0; {
					for _, r := range pad {
						if need == 0 {
							break
						}
						d = utf8.AppendRune(d, r)
						need--
					}
				}
				if left {
					d = append(d, s...)
				}
				if len(d) > maxBatchBytes {
					return &RowError{Kind: OutOfRange, Msg: fmt.Sprintf("%s results exceed %d bytes in one batch", strings.ToUpper(e.Name), maxBatchBytes)}
				}
				out.buf.data = d
				out.buf.offs = append(out.buf.offs, int32(len(d)))
			}
			out.finishStrings()
			return nil
		}, nil
	}
}

// locateKernel is POSITION/LOCATE(substr, s[, pos]) or INSTR(s, substr)
// (swapped): the 1-based character position of substr in s at or after
// pos, 0 when absent.
func locateKernel(swapped bool) func(e *plan.Func) (kernel, error) {
	return func(e *plan.Func) (kernel, error) {
		return func(in []*vector, n int, out *result) error {
			r := out.int64s(n)
			sub, str := in[0], in[1]
			if swapped {
				sub, str = str, sub
			}
			for i := range r {
				s, pos := str.str(i), int64(1)
				if len(in) > 2 {
					pos = in[2].int64At(i)
				}
				r[i] = 0
				if pos < 1 {
					continue
				}
				off := charOffset(s, pos-1)
				if off == len(s) && int64(utf8.RuneCountInString(s)) < pos-1 {
					continue // pos is past the end (and past the empty match at the end)
				}
				if j := strings.Index(s[off:], sub.str(i)); j >= 0 {
					r[i] = int64(utf8.RuneCountInString(s[:off+j])) + 1
				}
			}
			return nil
		}, nil
	}
}

// splitPartKernel is SPLIT_PART(s, delim, n): the n-th field (1-based;
// negative counts from the end), ” when out of range.
func splitPartKernel(e *plan.Func) (kernel, error) {
	return func(in []*vector, n int, out *result) error {
		out.strings(n, totalLen(in[0], n))
		for i := 0; i < n; i++ {
			out.appendStr(splitPart(in[0].str(i), in[1].str(i), in[2].int64At(i)))
		}
		out.finishStrings()
		return nil
	}, nil
}

func splitPart(s, delim string, k int64) string {
	if delim == "" {
		if k == 1 || k == -1 {
			return s
		}
		return ""
	}
	switch {
	case k > 0:
		for ; k > 1; k-- {
			j := strings.Index(s, delim)
			if j < 0 {
				return ""
			}
			s = s[j+len(delim):]
		}
		if j := strings.Index(s, delim); j >= 0 {
			s = s[:j]
		}
		return s
	case k < 0:
		for ; k < -1; k++ {
			j := strings.LastIndex(s, delim)
			if j < 0 {
				return ""
			}
			s = s[:j]
		}
		if j := strings.LastIndex(s, delim); j >= 0 {
			s = s[j+len(delim):]
		}
		return s
	}
	return ""
}

// buildRegexpExtract compiles REGEXP_EXTRACT(s, pattern[, group]) (Flink):
// the text of group (0, the default, is the whole match) of the first
// match of the Go regular expression pattern; NULL when nothing matches or
// the group does not exist or did not take part in the match. A constant
// pattern is compiled once; a varying one whenever it changes from the
// row before. Matching goes through a matcher, which skips the regexp
// engine where a literal the pattern requires decides the row.
func buildRegexpExtract(c *compiler, e *plan.Func) (node, error) {
	if err := argsOf(e, types.PhysString, types.PhysString, types.PhysInt64); err != nil {
		return nil, err
	}
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	// A constant pattern is compiled once. An invalid one fails the rows
	// that reach it, as a varying one does, not the compilation: a CASE
	// branch no row takes, or a NULL string, must not fail.
	var fixed *matcher
	var fixedErr error
	if d, ok := constArg(e, 1); ok {
		if re, err := regexp.Compile(d.S); err != nil {
			fixedErr = badArgument("REGEXP_EXTRACT: invalid pattern %q: %v", d.S, err)
		} else {
			fixed = newMatcher(re)
		}
	}
	var last *matcher
	return newFn(func(in []*vector, n int, out *result) error {
		out.strings(n, totalLen(in[0], n)/2)
		for i := 0; i < n; i++ {
			if !out.isValid(i) {
				out.appendStr("")
				continue
			}
			mt := fixed
			if fixedErr != nil {
				return fixedErr
			}
			if mt == nil {
				if src := in[1].str(i); last == nil || last.re.String() != src {
					// src aliases the batch's memory, which the Regexp
					// would keep as its String: compile a copy.
					re, err := regexp.Compile(strings.Clone(src))
					if err != nil {
						return badArgument("REGEXP_EXTRACT: invalid pattern %q: %v", src, err)
					}
					last = newMatcher(re)
				}
				mt = last
			}
			g := int64(0)
			if len(in) > 2 {
				g = in[2].int64At(i)
			}
			var m []int
			s := in[0].str(i)
			if g >= 0 && g <= int64(mt.re.NumSubexp()) {
				m = mt.submatchIndex(s)
			}
			if m == nil || m[2*g] < 0 {
				out.setNull(i, n)
				out.appendStr("")
				continue
			}
			out.appendStr(s[m[2*g]:m[2*g+1]])
		}
		out.finishStrings()
		return nil
	}, true, args...), nil
}
