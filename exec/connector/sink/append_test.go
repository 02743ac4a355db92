package sink

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
)

// The appenders must print exactly what catalog/types prints; these tests
// compare them on edge values and on many random ones.

func TestAppendDecimal(t *testing.T) {
	max38, _ := decimal128.FromString(strings.Repeat("9", 38), 38, 0)
	pow19 := decimal128.FromU64(pow10e19)
	vals := []decimal128.Num{
		decimal128.FromI64(0), decimal128.FromI64(1), decimal128.FromI64(-1), decimal128.FromI64(5),
		decimal128.FromI64(-5), decimal128.FromI64(123456), decimal128.FromI64(math.MaxInt64),
		decimal128.FromI64(math.MinInt64), max38, max38.Negate(), pow19, pow19.Negate(),
		pow19.Sub(decimal128.FromI64(1)), pow19.Mul(pow19), pow19.Mul(pow19).Negate(),
		decimal128.FromU64(math.MaxUint64),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		// A random value of up to 38 digits.
		digits := 1 + rng.IntN(38)
		var sb strings.Builder
		if rng.IntN(2) == 0 {
			sb.WriteByte('-')
		}
		for range digits {
			sb.WriteByte(byte('0' + rng.IntN(10)))
		}
		v, err := decimal128.FromString(sb.String(), 38, 0)
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
	}
	for _, v := range vals {
		for _, scale := range []int{0, 1, 2, 5, 18, 19, 20, 37, 38} {
			want := v.ToString(int32(scale))
			if got := string(appendDecimal(nil, v, scale)); got != want {
				t.Fatalf("appendDecimal(%s, %d) = %s, want %s", v.BigInt(), scale, got, want)
			}
		}
	}
}

func TestAppendTemporal(t *testing.T) {
	ms := []int64{0, -1, 1, 999, -999, -1000, 1000, types.MsPerDay, -types.MsPerDay, types.MsPerDay - 1,
		-2208988800000, 253402300799999, -62135596800000, 1704067201250}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		ms = append(ms, rng.Int64N(2*253402300799999)-253402300799999)
	}
	var c dayCache
	for _, v := range ms {
		for fsp := 0; fsp <= 4; fsp++ {
			want := types.FormatTimestamp(v, fsp)
			if got := string(c.appendTimestamp(nil, v, fsp)); got != want {
				t.Fatalf("appendTimestamp(%d, %d) = %s, want %s", v, fsp, got, want)
			}
		}
		day := int32(v / types.MsPerDay)
		if got, want := string(c.appendDay(nil, int64(day))), types.FormatDate(day); got != want {
			t.Fatalf("appendDay(%d) = %s, want %s", day, got, want)
		}
	}
}

func TestAppendFloatAndInterval(t *testing.T) {
	fs := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 1e-7, 9.99e-7, 1e20, 1e21, -1e21, 123456789012345678,
		math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat32}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		fs = append(fs, math.Float64frombits(rng.Uint64()))
	}
	for _, f := range fs {
		if got, want := string(appendFloat(nil, f)), types.FormatFloat(f); got != want {
			t.Fatalf("appendFloat(%v) = %s, want %s", f, got, want)
		}
	}
	ivs := []int64{0, 1, -1, 1000, 1500, -60000, types.MsPerHour, 3 * types.MsPerDay, -types.MsPerDay, math.MaxInt64, math.MinInt64}
	for _, iv := range ivs {
		if got, want := string(appendInterval(nil, iv)), types.FormatInterval(iv); got != want {
			t.Errorf("appendInterval(%d) = %s, want %s", iv, got, want)
		}
	}
}

// randomString returns a string of random runes, control characters,
// quotes, separators and, when invalid is set, bytes that are not UTF-8.
func randomString(rng *rand.Rand, invalid bool) string {
	pieces := []string{"a", "Z", " ", ",", `"`, `\`, "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "é", "☃", "日", "😀", "\u2028"}
	if invalid {
		pieces = append(pieces, "\xff", "\xc3", "\xe2\x98")
	}
	var sb strings.Builder
	for range rng.IntN(12) {
		sb.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return sb.String()
}

func TestAppendJSONString(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 5000 {
		s := randomString(rng, true)
		b := appendJSONString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("appendJSONString(%q) = %s: invalid JSON: %v", s, b, err)
		}
		// Ranging over a string yields U+FFFD for each byte that is not
		// UTF-8, as the encoder replaces them.
		var want strings.Builder
		for _, r := range s {
			want.WriteRune(r)
		}
		if got != want.String() {
			t.Fatalf("appendJSONString(%q) = %s reads back as %q", s, b, got)
		}
	}
}

func TestAppendCSVString(t *testing.T) {
	for s, want := range map[string]string{
		"plain": "plain", "": `""`, "a,b": `"a,b"`, `say "x"`: `"say ""x"""`, "a\nb": "\"a\nb\"",
		"a\rb": "\"a\rb\"", " spaced ": " spaced ", "ü'x": "ü'x",
	} {
		if got := string(appendCSVString(nil, s)); got != want {
			t.Errorf("appendCSVString(%q) = %q, want %q", s, got, want)
		}
	}
	// Every field reads back through encoding/csv.
	rng := rand.New(rand.NewPCG(9, 10))
	for range 2000 {
		s := strings.ReplaceAll(randomString(rng, false), "\r", "") // encoding/csv drops \r in quoted fields
		line := string(appendCSVString(nil, s)) + ",x\n"
		rec, err := csv.NewReader(strings.NewReader(line)).Read()
		if err != nil || len(rec) != 2 || rec[0] != s {
			t.Fatalf("appendCSVString(%q): line %q reads back as %q (%v)", s, line, rec, err)
		}
	}
}
