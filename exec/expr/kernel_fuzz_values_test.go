package expr_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
)

// schema is the input of every generated case: a column of each type a
// plan can read, some types twice with different values.
var schema = []types.T{
	types.BoolT,            // 0
	types.BigIntT,          // 1
	types.IntT,             // 2: values in INT's range
	types.DoubleT,          // 3
	types.DecimalT(10, 2),  // 4
	types.DecimalT(38, 10), // 5
	types.DecimalT(19, 0),  // 6
	types.VarcharT,         // 7: any text
	types.VarcharT,         // 8: text that parses as a number, date or boolean
	types.DateT,            // 9
	types.TimestampT(0),    // 10
	types.TimestampT(3),    // 11
	types.IntervalT,        // 12
}

// parseableCol is the VARCHAR column whose values mostly parse.
const parseableCol = 8

// batchSize draws a batch length: often 0, 1 or a few rows, sometimes
// more than a machine word of validity bits, rarely hundreds.
func batchSize(r *rand.Rand) int {
	switch p := r.IntN(20); {
	case p < 2:
		return 0
	case p < 5:
		return 1
	case p < 12:
		return 2 + r.IntN(7)
	case p < 18:
		return 9 + r.IntN(60)
	}
	return 100 + r.IntN(200)
}

// genRows draws n rows. Each column is, per batch, free of NULLs, has some
// or is entirely NULL (which the kernels load as a constant).
func genRows(r *rand.Rand, n int) [][]types.Datum {
	rows := make([][]types.Datum, n)
	for i := range rows {
		rows[i] = make([]types.Datum, len(schema))
	}
	for j, t := range schema {
		nullP := 0.0
		switch r.IntN(10) {
		case 0, 1, 2, 3:
		case 4:
			nullP = 1
		default:
			nullP = 0.1 + 0.5*r.Float64()
		}
		// Sometimes one value fills the column (runs of equal values).
		same := r.IntN(8) == 0
		v := valueOf(r, t, j == parseableCol)
		for i := range rows {
			if !same {
				v = valueOf(r, t, j == parseableCol)
			}
			if r.Float64() < nullP {
				rows[i][j] = types.NullDatum
			} else {
				rows[i][j] = v
			}
		}
	}
	return rows
}

// valueOf draws a non-NULL value of type t: an edge value about a third
// of the time, else an ordinary one. parseable asks for text that parses.
func valueOf(r *rand.Rand, t types.T, parseable bool) types.Datum {
	edge := r.IntN(3) == 0
	switch t.Kind {
	case types.Boolean:
		return types.BoolDatum(r.IntN(2) == 0)
	case types.TinyInt, types.SmallInt, types.Int:
		lo, hi := intBounds(t)
		if edge {
			return types.IntDatum(pick(r, []int64{lo, hi, lo + 1, hi - 1, 0, -1, 1}))
		}
		return types.IntDatum(smallInt(r) % hi)
	case types.BigInt:
		if edge {
			return types.IntDatum(pick(r, int64Edges))
		}
		if r.IntN(8) == 0 {
			return types.IntDatum(int64(r.Uint64()))
		}
		return types.IntDatum(smallInt(r))
	case types.Double:
		if edge {
			return types.FloatDatum(pick(r, floatEdges))
		}
		switch r.IntN(4) {
		case 0:
			return types.FloatDatum(float64(smallInt(r)))
		case 1:
			return types.FloatDatum(float64(smallInt(r)) / 8) // exact halves, quarters, eighths
		case 2:
			return types.FloatDatum(math.Float64frombits(r.Uint64())) // anything, NaNs included
		}
		return types.FloatDatum((r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(30)-10)))
	case types.Decimal:
		return types.DecimalDatum(decimalValue(r, t, edge))
	case types.Varchar:
		if parseable {
			return types.StringDatum(pick(r, parseableStrings))
		}
		if edge {
			return types.StringDatum(pick(r, stringEdges))
		}
		return types.StringDatum(randomString(r))
	case types.Date:
		if edge {
			return types.IntDatum(pick(r, []int64{types.MinDate, types.MaxDate, types.MinDate + 1, types.MaxDate - 1, 0, -1, 1, 19782 /* 2024-02-29 */, 11016 /* 2000-02-29 */}))
		}
		return types.IntDatum(types.MinDate + r.Int64N(types.MaxDate-types.MinDate+1))
	case types.Timestamp:
		var ms int64
		if edge {
			ms = pick(r, []int64{types.MinTimestamp, types.MaxTimestamp, types.MinTimestamp + 999, types.MaxTimestamp - 999, 0, -1, 1, 999, -999, 500, -500, 1709211909045})
		} else {
			ms = types.MinTimestamp + r.Int64N(types.MaxTimestamp-types.MinTimestamp+1)
		}
		if t.Fsp == 0 { // a TIMESTAMP(0) holds whole seconds
			ms = ms - ((ms%1000)+1000)%1000
		}
		return types.IntDatum(ms)
	case types.Interval:
		if edge {
			return types.IntDatum(pick(r, []int64{0, 1, -1, 1000, -1000, types.MsPerDay, -types.MsPerDay, 7 * types.MsPerDay,
				types.MsPerDay * 3 / 2, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 400 * 366 * types.MsPerDay, 1e15}))
		}
		unit := pick(r, []int64{1, 1000, types.MsPerMinute, types.MsPerHour, types.MsPerDay})
		return types.IntDatum(smallInt(r) * unit)
	}
	panic("valueOf: no values of " + t.String())
}

var int64Edges = []int64{0, 1, -1, 2, -2, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1,
	math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, 1 << 53, 1e18, -1e18, 5e18, 1 << 20, 253402300799, -62167219200}

var floatEdges = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 0.1, 1.005, 2.675, 1e-7, 123.456,
	math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64,
	1e18, 9.223372036854775e18, 9.223372036854776e18, -9.223372036854776e18, 1e21, 1e300, 4.5e15, 1 << 53}

var stringEdges = []string{"", " ", "  ", "a", "A", "abc", "ABC", "aBc", "héllo", "ÉCOLE", "日本語", "ß", "İ", "ǅ", "😀x",
	"%", "_", "a%b", "a_c", `\`, `\%`, "!", "a,b,,c", "::", "a::b", "(", ")", "a+", "[a-z]+", "(a)(b)?", "^ab", "x|y",
	"%Y-%m-%d %H:%i:%s.%f", "YYYY-MM-DD HH24:MI:SS.MS", `"quoted"`, "'", "a'b", "\n", "\t", "x y z", " pad ", "aaaa"}

var parseableStrings = []string{"0", "1", "-1", "12", " 12 ", "-3.5", "+7", "1e3", "1.5E-3", ".5", "5.", "007", "-0",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "1e400", "12abc",
	"2147483647", "2147483648", "32767", "127", "128", "123.456", "0.005", "99999999.995", "12345678901", "1e-400",
	"NaN", "inf", "-Infinity", "abc", "", "true", "FALSE", "yes", "n", "on", "t", "2",
	"2024-01-01", "2024-02-29 13:05:09.045", "0000-01-01", "9999-12-31", "9999-12-31 23:59:59.999",
	"9999-12-31 23:59:59.5", "0000-01-01 00:00:00", "2024-13-01", "2023-02-29", "1970-01-01T00:00:00Z", "2024-01-01 10:20",
	" 2024-03-15 13:45:30.25 ", "2024-01-01 24:00:00"}

// stringAlphabet is what random strings are made of: ASCII letters and
// digits, LIKE and regexp metacharacters, separators and a few wider
// characters (whose case mapping changes their length).
var stringAlphabet = []rune("aAbBzZ019 %_\\.,:-+()*?|^$[]'\"éÉßİıǅ日😀")

func randomString(r *rand.Rand) string {
	n := r.IntN(9)
	var b strings.Builder
	for range n {
		b.WriteRune(stringAlphabet[r.IntN(len(stringAlphabet))])
	}
	return b.String()
}

// smallInt draws an integer that is usually small.
func smallInt(r *rand.Rand) int64 {
	switch r.IntN(4) {
	case 0:
		return r.Int64N(21) - 10
	case 1:
		return r.Int64N(2001) - 1000
	case 2:
		return r.Int64N(2e5+1) - 1e5
	}
	return r.Int64N(1e12) - 5e11
}

func intBounds(t types.T) (int64, int64) {
	switch t.Kind {
	case types.TinyInt:
		return math.MinInt8, math.MaxInt8
	case types.SmallInt:
		return math.MinInt16, math.MaxInt16
	case types.Int:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// decimalValue draws a DECIMAL(p,s): edges are 0, one unit, the largest
// magnitude and a half at the last digit; else up to p random digits.
func decimalValue(r *rand.Rand, t types.T, edge bool) decimal128.Num {
	p, s := int64(t.Precision), int64(t.Scale)
	maxv := new(big.Int).Sub(pow10(p), big.NewInt(1))
	var v *big.Int
	if edge {
		half := big.NewInt(0)
		if s > 0 {
			half = new(big.Int).Mul(big.NewInt(5), pow10(s-1))
		}
		v = pickBig(r, []*big.Int{big.NewInt(0), big.NewInt(1), maxv, half, new(big.Int).Add(half, pow10(s))})
	} else {
		digits := make([]byte, 1+r.Int64N(p))
		for k := range digits {
			digits[k] = byte('0' + r.IntN(10))
		}
		v, _ = new(big.Int).SetString(string(digits), 10)
	}
	if r.IntN(2) == 0 {
		v.Neg(v)
	}
	return decimal128.FromBigInt(v)
}

// pow10 returns 10^k.
func pow10(k int64) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(k), nil) }

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func pickBig(r *rand.Rand, xs []*big.Int) *big.Int { return new(big.Int).Set(pick(r, xs)) }
