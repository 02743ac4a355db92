package expr

import (
	"testing"

	"github.com/eddysql/eddy/catalog/types"
)

func TestStringFunctions(t *testing.T) {
	in := []types.T{vchar, vchar, bigint}
	S, S2, N := col(0, vchar), col(1, vchar), col(2, bigint)
	rows := [][]types.Datum{{s("Héllo wörld"), s("ö"), i(2)}, {s(""), s(""), i(-3)}, {null, null, null}}
	str := func(vs ...string) []types.Datum {
		out := make([]types.Datum, len(vs))
		for k, v := range vs {
			if v == "<null>" {
				out[k] = null
			} else {
				out[k] = s(v)
			}
		}
		return out
	}
	runCases(t, in, []tcase{
		{name: "concat", e: fn("concat", vchar, S, litS("-"), S2), rows: rows, want: str("Héllo wörld-ö", "-", "<null>")},
		{name: "upper", e: fn("upper", vchar, S), rows: rows, want: str("HÉLLO WÖRLD", "", "<null>")},
		{name: "lower", e: fn("lcase", vchar, litS("ABC Ä")), rows: rows, want: str("abc ä", "abc ä", "abc ä")},
		{name: "reverse", e: fn("reverse", vchar, S), rows: rows, want: str("dlröw olléH", "", "<null>")},
		{name: "length bytes", e: fn("length", bigint, S), rows: rows, want: []types.Datum{i(13), i(0), null}},
		{name: "char_length", e: fn("char_length", bigint, S), rows: rows, want: []types.Datum{i(11), i(0), null}},
		{name: "count_char", e: fn("count_char", bigint, S, litS("l")), rows: rows, want: countCharWant(rows)},
		{name: "substring", e: fn("substring", vchar, S, N), rows: rows, want: str("éllo wörld", "", "<null>")},
		{name: "substring len", e: fn("substr", vchar, S, litI(2), litI(4)), rows: rows, want: str("éllo", "", "<null>")},
		{name: "substring negative", e: fn("substring", vchar, S, litI(-5), litI(3)), rows: rows, want: str("wör", "", "<null>")},
		{name: "substring zero", e: fn("substring", vchar, S, litI(0)), rows: rows, want: str("", "", "<null>")},
		{name: "substring past end", e: fn("substring", vchar, S, litI(20)), rows: rows, want: str("", "", "<null>")},
		{name: "left", e: fn("left", vchar, S, N), rows: rows, want: str("Hé", "", "<null>")},
		{name: "right", e: fn("right", vchar, S, litI(3)), rows: rows, want: str("rld", "", "<null>")},
		{name: "right long", e: fn("right", vchar, litS("ab"), litI(5)), rows: rows, want: str("ab", "ab", "ab")},
		{name: "replace", e: fn("replace", vchar, S, litS("l"), litS("LL")), rows: rows, want: str("HéLLLLo wörLLd", "", "<null>")},
		{name: "replace empty", e: fn("replace", vchar, S, litS(""), litS("x")), rows: rows, want: str("Héllo wörld", "", "<null>")},
		{name: "trim", e: fn("trim", vchar, litS("  a b  ")), rows: rows, want: str("a b", "a b", "a b")},
		{name: "ltrim", e: fn("ltrim", vchar, litS("  a ")), rows: rows, want: str("a ", "a ", "a ")},
		{name: "rtrim", e: fn("rtrim", vchar, litS("  a ")), rows: rows, want: str("  a", "  a", "  a")},
		{name: "trim remstr", e: fn("trim", vchar, litS("xxaxx"), litS("x")), rows: rows, want: str("a", "a", "a")},
		{name: "trim leading", e: fn("trim", vchar, litS("xyxyaxy"), litS("xy"), litS("leading")), rows: rows, want: str("axy", "axy", "axy")},
		{name: "trim trailing", e: fn("trim", vchar, S, S2, litS("TRAILING")), rows: [][]types.Datum{{s("aöö"), s("ö"), null}}, want: str("a")},
		{name: "trim bad direction", e: fn("trim", vchar, S, S2, litS("MIDDLE")), err: "TRIM direction"},
		{name: "trim varying direction", e: fn("trim", vchar, S, S2, S), err: "not supported yet"},
		{name: "lpad", e: fn("lpad", vchar, litS("ab"), litI(5), litS("xy")), rows: rows, want: str("xyxab", "xyxab", "xyxab")},
		{name: "rpad", e: fn("rpad", vchar, S, litI(13), litS("é")), rows: rows, want: str("Héllo wörldéé", "ééééééééééééé", "<null>")},
		{name: "lpad truncates", e: fn("lpad", vchar, S, N, litS("x")), rows: rows, want: str("Hé", "<null>", "<null>")},
		{name: "lpad empty pad", e: fn("lpad", vchar, litS("ab"), litI(3), litS("")), rows: rows, want: str("<null>", "<null>", "<null>")},
		{name: "lpad huge", e: fn("lpad", vchar, litS("ab"), litI(1<<40), litS("x")), rows: rows, want: str("<null>", "<null>", "<null>")},
		{name: "position", e: fn("position", bigint, S2, S), rows: rows, want: []types.Datum{i(8), i(1), null}},
		{name: "locate from", e: fn("locate", bigint, litS("l"), S, litI(5)), rows: rows, want: []types.Datum{i(10), i(0), null}},
		{name: "locate empty at end", e: fn("locate", bigint, litS(""), litS("abc"), N), rows: rows, want: []types.Datum{i(2), i(0), null}},
		{name: "locate past end", e: fn("locate", bigint, litS(""), litS("abc"), litI(5)), rows: rows, want: []types.Datum{i(0), i(0), i(0)}},
		{name: "instr", e: fn("instr", bigint, S, litS("wö")), rows: rows, want: []types.Datum{i(7), i(0), null}},
		{name: "split_part", e: fn("split_part", vchar, litS("a,b,,c"), litS(","), N), rows: rows, want: str("b", "b", "<null>")},
		{name: "split_part last", e: fn("split_part", vchar, litS("a,b,,c"), litS(","), litI(4)), rows: rows, want: str("c", "c", "c")},
		{name: "split_part out of range", e: fn("split_part", vchar, litS("a,b"), litS(","), litI(3)), rows: rows, want: str("", "", "")},
		{name: "split_part empty delim", e: fn("split_part", vchar, litS("ab"), litS(""), litI(1)), rows: rows, want: str("ab", "ab", "ab")},
		{name: "split_part zero", e: fn("split_part", vchar, litS("ab"), litS("b"), litI(0)), rows: rows, want: str("", "", "")},
		{name: "regexp_extract", e: fn("regexp_extract", vchar, S, litS(`(\w)o`)), rows: rows, want: str("lo", "<null>", "<null>")},
		{name: "regexp_extract group", e: fn("regexp_extract", vchar, litS("foo=42;bar=7"), litS(`(\w+)=(\d+)`), N), rows: rows,
			want: str("42", "<null>", "<null>")},
		{name: "regexp_extract varying", e: fn("regexp_extract", vchar, litS("abc123"), S2), rows: [][]types.Datum{{null, s("[0-9]+"), null}, {null, s("z"), null}},
			want: str("123", "<null>")},
		{name: "regexp_extract bad pattern", e: fn("regexp_extract", vchar, S, litS("(")), err: "invalid pattern"},
	})
}

// countCharWant counts the l's of each row's first column the slow way.
func countCharWant(rows [][]types.Datum) []types.Datum {
	var out []types.Datum
	for _, r := range rows {
		if r[0].Null {
			out = append(out, null)
			continue
		}
		n := 0
		for _, c := range r[0].S {
			if c == 'l' {
				n++
			}
		}
		out = append(out, i(int64(n)))
	}
	return out
}
