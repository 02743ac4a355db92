package expr_test

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// call evaluates a built-in function. A function the reference does not
// know is an error of the test: every function of the registry needs
// reference semantics here.
func (x *refEval) call(e *plan.Func) (types.Datum, error) {
	switch e.Name {
	case "coalesce", "ifnull":
		for _, a := range e.Args {
			v, err := x.eval(a)
			if err != nil || !v.Null {
				return v, err
			}
		}
		return null, nil
	case "if":
		return x.eval(&plan.Case{Whens: []plan.When{{Cond: e.Args[0], Result: e.Args[1]}}, Else: e.Args[2], Typ: e.Typ})
	case "nullif":
		a, b, _, err := x.two(e.Args[0], e.Args[1])
		if err != nil || a.Null || b.Null {
			return a, err
		}
		if compareValues(plan.OpEq, a, b, e.Args[0].Type()) {
			return null, nil
		}
		return a, nil
	}
	args, isNull, err := x.all(e.Args)
	if err != nil || isNull {
		return null, err
	}
	if f, ok := stringFuncs[e.Name]; ok {
		return f(args, e)
	}
	if f, ok := timeFuncs[e.Name]; ok {
		return f(args, e)
	}
	if f, ok := mathFuncs[e.Name]; ok {
		return f(args, e)
	}
	if f, ok := jsonFuncs[e.Name]; ok {
		return f(args, e)
	}
	return null, fmt.Errorf("no reference semantics for function %s", e.Name)
}

// refFunc computes a strict function of non-NULL arguments.
type refFunc func(args []types.Datum, e *plan.Func) (types.Datum, error)

func str(s string) (types.Datum, error)  { return types.StringDatum(s), nil }
func integer(n int) (types.Datum, error) { return types.IntDatum(int64(n)), nil }

// String functions count characters (code points), except LENGTH.
var stringFuncs = map[string]refFunc{
	"concat": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		var b strings.Builder
		for _, v := range a {
			b.WriteString(v.S)
		}
		return str(b.String())
	},
	"upper":  func(a []types.Datum, _ *plan.Func) (types.Datum, error) { return str(strings.ToUpper(a[0].S)) },
	"ucase":  func(a []types.Datum, _ *plan.Func) (types.Datum, error) { return str(strings.ToUpper(a[0].S)) },
	"lower":  func(a []types.Datum, _ *plan.Func) (types.Datum, error) { return str(strings.ToLower(a[0].S)) },
	"lcase":  func(a []types.Datum, _ *plan.Func) (types.Datum, error) { return str(strings.ToLower(a[0].S)) },
	"length": func(a []types.Datum, _ *plan.Func) (types.Datum, error) { return integer(len(a[0].S)) },
	"reverse": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		rs := []rune(a[0].S)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return str(string(rs))
	},
	"char_length":      charLength,
	"character_length": charLength,
	"count_char": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		if a[1].S == "" {
			return integer(0)
		}
		c := []rune(a[1].S)[0]
		return integer(strings.Count(a[0].S, string(c)))
	},
	"substring": substring, "substr": substring,
	"left": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		rs := []rune(a[0].S)
		return str(string(rs[:clamp(a[1].I, 0, len(rs))]))
	},
	"right": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		rs := []rune(a[0].S)
		return str(string(rs[len(rs)-clamp(a[1].I, 0, len(rs)):]))
	},
	"replace": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		if a[1].S == "" {
			return str(a[0].S)
		}
		return str(strings.ReplaceAll(a[0].S, a[1].S, a[2].S))
	},
	"ltrim": func(a []types.Datum, _ *plan.Func) (types.Datum, error) { return str(strings.TrimLeft(a[0].S, " ")) },
	"rtrim": func(a []types.Datum, _ *plan.Func) (types.Datum, error) { return str(strings.TrimRight(a[0].S, " ")) },
	"trim": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		s, rem, dir := a[0].S, " ", "BOTH"
		if len(a) > 1 {
			rem = a[1].S
		}
		if len(a) > 2 {
			dir = strings.ToUpper(a[2].S)
		}
		for rem != "" && dir != "TRAILING" && strings.HasPrefix(s, rem) {
			s = s[len(rem):]
		}
		for rem != "" && dir != "LEADING" && strings.HasSuffix(s, rem) {
			s = s[:len(s)-len(rem)]
		}
		return str(s)
	},
	"lpad": pad(true), "rpad": pad(false),
	"position": locate, "locate": locate,
	"instr": func(a []types.Datum, e *plan.Func) (types.Datum, error) { return locate([]types.Datum{a[1], a[0]}, e) },
	"split_part": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		s, delim, k := a[0].S, a[1].S, a[2].I
		if delim == "" {
			if k == 1 || k == -1 {
				return str(s)
			}
			return str("")
		}
		parts := strings.Split(s, delim)
		switch {
		case k > 0 && k <= int64(len(parts)):
			return str(parts[k-1])
		case k < 0 && k >= -int64(len(parts)):
			return str(parts[int64(len(parts))+k])
		}
		return str("")
	},
	"regexp_extract": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		re, err := regexp.Compile(a[1].S)
		if err != nil {
			return null, badArgument("invalid pattern %q", a[1].S)
		}
		g := int64(0)
		if len(a) > 2 {
			g = a[2].I
		}
		m := re.FindStringSubmatchIndex(a[0].S)
		if m == nil || g < 0 || g > int64(re.NumSubexp()) || m[2*g] < 0 {
			return null, nil
		}
		return str(a[0].S[m[2*g]:m[2*g+1]])
	},
}

func charLength(a []types.Datum, _ *plan.Func) (types.Datum, error) {
	return integer(utf8.RuneCountInString(a[0].S))
}

// clamp limits v to [lo, hi].
func clamp(v int64, lo, hi int) int {
	return int(max(int64(lo), min(v, int64(hi))))
}

// substring is SUBSTRING(s, pos[, len]): pos counts from 1, or from the
// end when negative; pos 0 or past the end, or a length below 1, give an
// empty string.
func substring(a []types.Datum, _ *plan.Func) (types.Datum, error) {
	rs := []rune(a[0].S)
	n := int64(len(rs))
	pos := a[1].I
	switch {
	case pos == 0:
		return str("")
	case pos < 0:
		pos += n + 1
		if pos < 1 {
			return str("")
		}
	}
	if pos > n {
		return str("")
	}
	rest := rs[pos-1:]
	if len(a) > 2 {
		rest = rest[:clamp(a[2].I, 0, len(rest))]
	}
	return str(string(rest))
}

// pad is LPAD/RPAD(s, n, p): s cut or padded with p to n characters; NULL
// for n < 0, n beyond a megabyte, or padding needed from an empty p.
func pad(left bool) refFunc {
	return func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		rs, n, p := []rune(a[0].S), a[1].I, []rune(a[2].S)
		switch {
		case n < 0 || n > 1<<20 || (n > int64(len(rs)) && len(p) == 0):
			return null, nil
		case n <= int64(len(rs)):
			return str(string(rs[:n]))
		}
		fill := make([]rune, 0, n-int64(len(rs)))
		for len(fill) < cap(fill) {
			fill = append(fill, p[len(fill)%len(p)])
		}
		if left {
			return str(string(fill) + string(rs))
		}
		return str(string(rs) + string(fill))
	}
}

// locate is LOCATE(sub, s[, pos]): the character position of sub in s at
// or after pos, 0 when absent.
func locate(a []types.Datum, _ *plan.Func) (types.Datum, error) {
	sub, rs := a[0].S, []rune(a[1].S)
	pos := int64(1)
	if len(a) > 2 {
		pos = a[2].I
	}
	if pos < 1 || pos-1 > int64(len(rs)) {
		return integer(0)
	}
	rest := string(rs[pos-1:])
	j := strings.Index(rest, sub)
	if j < 0 {
		return integer(0)
	}
	return types.IntDatum(pos + int64(utf8.RuneCountInString(rest[:j]))), nil
}

var mathFuncs = map[string]refFunc{
	"greatest": extreme(1), "least": extreme(-1),
	"abs": func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		switch e.Typ.Physical() {
		case types.PhysFloat64:
			return types.FloatDatum(math.Abs(a[0].F)), nil
		case types.PhysDecimal:
			return types.DecimalDatum(decimal128.FromBigInt(new(big.Int).Abs(a[0].D.BigInt()))), nil
		}
		if a[0].I == math.MinInt64 {
			return null, outOfRange("ABS(%d)", a[0].I)
		}
		return types.IntDatum(max(a[0].I, -a[0].I)), nil
	},
	"round": round,
	"floor": floorCeil(true), "ceil": floorCeil(false), "ceiling": floorCeil(false),
	"mod": func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		return arithmetic(plan.OpMod, a[0], a[1], e.Args[0].Type(), e.Args[1].Type(), e.Typ)
	},
	"power": power, "pow": power,
	"sqrt": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		if a[0].F < 0 {
			return null, nil
		}
		return types.FloatDatum(math.Sqrt(a[0].F)), nil
	},
}

// extreme is GREATEST (want 1) or LEAST: the first of the largest (or
// smallest) arguments.
func extreme(want int) refFunc {
	return func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		best := a[0]
		for _, v := range a[1:] {
			if compare3(v, best, e.Typ) == want {
				best = v
			}
		}
		return best, nil
	}
}

// power is POWER(x, y): NULL where undefined (NaN), out of range where a
// finite base and exponent overflow.
func power(a []types.Datum, _ *plan.Func) (types.Datum, error) {
	x, y := a[0].F, a[1].F
	v := math.Pow(x, y)
	switch {
	case math.IsNaN(v):
		return null, nil
	case math.IsInf(v, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0):
		return null, outOfRange("POWER(%v, %v)", x, y)
	}
	return types.FloatDatum(v), nil
}

// round is ROUND(x[, d]): half away from zero at d digits after the point
// (before it when d < 0): of a double's shortest decimal form (the digits
// eddy shows, which CAST to DECIMAL rounds too), of a decimal's value.
func round(a []types.Datum, e *plan.Func) (types.Datum, error) {
	d := int64(0)
	if len(a) > 1 {
		d = a[1].I
	}
	xt, t := e.Args[0].Type(), e.Typ
	switch xt.Physical() {
	case types.PhysFloat64:
		x := a[0].F
		if math.IsNaN(x) || math.IsInf(x, 0) || d > 400 {
			return a[0], nil
		}
		if d < -400 {
			return types.FloatDatum(0 * x), nil
		}
		r := shortestRat(x)
		var f float64
		if d >= 0 {
			f, _ = new(big.Rat).SetFrac(roundRat(r, d), pow10(d)).Float64()
		} else {
			p := pow10(-d)
			n := roundHalfAway(r.Num(), new(big.Int).Mul(r.Denom(), p))
			f, _ = new(big.Rat).SetInt(n.Mul(n, p)).Float64()
		}
		if math.IsInf(f, 0) {
			return null, outOfRange("ROUND(%v, %d)", x, d)
		}
		if f == 0 {
			f = math.Copysign(0, x)
		}
		return types.FloatDatum(f), nil
	case types.PhysDecimal:
		s := int64(xt.Scale)
		v := a[0].D.BigInt()
		if drop := s - d; drop > 40 { // |v| < 10^38: rounds to 0
			v = new(big.Int)
		} else if drop > 0 {
			v = new(big.Int).Mul(roundHalfAway(v, pow10(drop)), pow10(drop))
		}
		v = rescale(v, s, int64(t.Scale))
		if !decimalFits(v, t) {
			return null, outOfRange("ROUND(%s, %d)", a[0].D.BigInt(), d)
		}
		return types.DecimalDatum(decimal128.FromBigInt(v)), nil
	}
	x := a[0].I
	switch {
	case d >= 0:
		return a[0], nil
	case d < -20: // |x| < 10^19: rounds to 0
		return types.IntDatum(0), nil
	}
	p := pow10(-d)
	v, ok := fitsInt64(new(big.Int).Mul(roundHalfAway(big.NewInt(x), p), p))
	if !ok {
		return null, outOfRange("ROUND(%d, %d)", x, d)
	}
	return types.IntDatum(v), nil
}

func floorCeil(floor bool) refFunc {
	return func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		xt := e.Args[0].Type()
		switch xt.Physical() {
		case types.PhysFloat64:
			if floor {
				return types.FloatDatum(math.Floor(a[0].F)), nil
			}
			return types.FloatDatum(math.Ceil(a[0].F)), nil
		case types.PhysDecimal:
			v := a[0].D.BigInt()
			q, m := new(big.Int).DivMod(v, pow10(int64(xt.Scale)), new(big.Int)) // floor (Euclidean, divisor > 0)
			if !floor && m.Sign() != 0 {
				q.Add(q, big.NewInt(1))
			}
			return types.DecimalDatum(decimal128.FromBigInt(rescale(q, 0, int64(e.Typ.Scale)))), nil
		}
		return a[0], nil
	}
}
