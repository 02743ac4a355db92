package storage

import (
	"bytes"
	"cmp"
	"math"
	"math/rand/v2"
	"testing"
	"testing/quick"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// kind is a key column type of the property tests.
type kind int

const (
	kBool kind = iota
	kInt
	kFloat
	kDecimal
	kString
	kinds
)

// value is a possibly-NULL value of a kind.
type value struct {
	null bool
	b    bool
	i    int64
	f    float64
	d    decimal128.Num
	s    string
}

var (
	specialInts   = []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64}
	specialFloats = []float64{math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64,
		math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64, 1, math.MaxFloat64, math.Inf(1),
		math.NaN(), math.Float64frombits(0xFFF8000000000001)} // a negative NaN
	specialStrings = []string{"", "\x00", "\x00\x00", "\x00\x01", "\x00\xff", "\x01", "a", "a\x00", "a\x00b",
		"a\x01", "ab", "\xff", "\xff\x00", "\xff\xff"}
)

func randValue(r *rand.Rand, k kind) value {
	if r.IntN(8) == 0 {
		return value{null: true}
	}
	switch k {
	case kBool:
		return value{b: r.IntN(2) == 0}
	case kInt:
		if r.IntN(3) == 0 {
			return value{i: specialInts[r.IntN(len(specialInts))]}
		}
		return value{i: r.Int64N(200) - 100}
	case kFloat:
		if r.IntN(3) == 0 {
			return value{f: specialFloats[r.IntN(len(specialFloats))]}
		}
		return value{f: float64(r.IntN(20)-10) / 4}
	case kDecimal:
		his := []int64{math.MinInt64, -1, 0, 1, math.MaxInt64}
		los := []uint64{0, 1, 1 << 63, math.MaxUint64}
		return value{d: decimal128.New(his[r.IntN(len(his))], los[r.IntN(len(los))])}
	default:
		if r.IntN(2) == 0 {
			return value{s: specialStrings[r.IntN(len(specialStrings))]}
		}
		b := make([]byte, r.IntN(4))
		for i := range b {
			b[i] = []byte{0, 1, 'a', 0xff}[r.IntN(4)]
		}
		return value{s: string(b)}
	}
}

// compareValues is the order the codec must preserve: NULL first; floats
// in IEEE order with -0 == +0 and every NaN equal and last.
func compareValues(k kind, a, b value) int {
	if a.null || b.null {
		return cmp.Compare(btoi(!a.null), btoi(!b.null))
	}
	switch k {
	case kBool:
		return cmp.Compare(btoi(a.b), btoi(b.b))
	case kInt:
		return cmp.Compare(a.i, b.i)
	case kFloat:
		return compareFloat(a.f, b.f)
	case kDecimal:
		if c := cmp.Compare(a.d.HighBits(), b.d.HighBits()); c != 0 {
			return c
		}
		return cmp.Compare(a.d.LowBits(), b.d.LowBits())
	}
	return cmp.Compare(a.s, b.s)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func compareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	if an || bn {
		return cmp.Compare(btoi(an), btoi(bn))
	}
	return cmp.Compare(a, b)
}

func appendValue(dst []byte, k kind, v value) []byte {
	if v.null {
		return AppendNull(dst)
	}
	switch k {
	case kBool:
		return AppendBool(dst, v.b)
	case kInt:
		return AppendInt64(dst, v.i)
	case kFloat:
		return AppendFloat64(dst, v.f)
	case kDecimal:
		return AppendDecimal128(dst, v.d)
	}
	if len(v.s)%2 == 0 { // both byte and string encoders must agree
		return AppendString(dst, v.s)
	}
	return AppendBytes(dst, []byte(v.s))
}

// decodeValue decodes a value of kind k and checks it equals v.
func decodeValue(t *testing.T, src []byte, k kind, v value) []byte {
	t.Helper()
	if v.null {
		rest, err := DecodeNull(src)
		if err != nil {
			t.Fatal(err)
		}
		return rest
	}
	var got value
	var rest []byte
	var err error
	switch k {
	case kBool:
		got.b, rest, err = DecodeBool(src)
	case kInt:
		got.i, rest, err = DecodeInt64(src)
	case kFloat:
		got.f, rest, err = DecodeFloat64(src)
	case kDecimal:
		got.d, rest, err = DecodeDecimal128(src)
	default:
		got.s, rest, err = DecodeString(src)
	}
	if err != nil {
		t.Fatal(err)
	}
	if k == kFloat {
		if compareFloat(got.f, v.f) != 0 || (v.f == 0 && math.Signbit(got.f)) {
			t.Fatalf("float %v decoded as %v", v.f, got.f)
		}
	} else if compareValues(k, got, v) != 0 {
		t.Fatalf("%+v decoded as %+v", v, got)
	}
	if skipped, err := Skip(src); err != nil || len(skipped) != len(rest) {
		t.Fatalf("Skip consumed a different length: %v", err)
	}
	return rest
}

// TestKeyOrderProperty encodes random tuples of random column kinds and
// checks that bytes.Compare of encodings is the tuples' order, and that
// the tuples decode back.
func TestKeyOrderProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		schema := make([]kind, 1+r.IntN(4))
		for i := range schema {
			schema[i] = kind(r.IntN(int(kinds)))
		}
		for range 200 {
			a, b := make([]value, len(schema)), make([]value, len(schema))
			var ea, eb []byte
			for i, k := range schema {
				a[i], b[i] = randValue(r, k), randValue(r, k)
				ea, eb = appendValue(ea, k, a[i]), appendValue(eb, k, b[i])
			}
			want := 0
			for i, k := range schema {
				if c := compareValues(k, a[i], b[i]); c != 0 {
					want = c
					break
				}
			}
			if got := bytes.Compare(ea, eb); got != want {
				t.Fatalf("schema %v: compare(%+v, %+v) = %d, want %d\n%x\n%x", schema, a, b, got, want, ea, eb)
			}
			rest := ea
			for i, k := range schema {
				rest = decodeValue(t, rest, k, a[i])
			}
			if len(rest) != 0 {
				t.Fatalf("%d bytes left after decoding %+v", len(rest), a)
			}
		}
	}
}

// TestKeyOrderQuick checks single values with testing/quick.
func TestKeyOrderQuick(t *testing.T) {
	ints := func(a, b int64) bool {
		return bytes.Compare(AppendInt64(nil, a), AppendInt64(nil, b)) == cmp.Compare(a, b)
	}
	floats := func(a, b float64) bool {
		return bytes.Compare(AppendFloat64(nil, a), AppendFloat64(nil, b)) == compareFloat(a, b)
	}
	strs := func(a, b string) bool {
		return bytes.Compare(AppendString(nil, a), AppendString(nil, b)) == cmp.Compare(a, b)
	}
	// Strings followed by another column: the terminator must keep "a"
	// before "ab" whatever follows.
	pairs := func(a, b string, x, y int64) bool {
		ea := AppendInt64(AppendString(nil, a), x)
		eb := AppendInt64(AppendString(nil, b), y)
		want := cmp.Compare(a, b)
		if want == 0 {
			want = cmp.Compare(x, y)
		}
		return bytes.Compare(ea, eb) == want
	}
	for name, f := range map[string]any{"int64": ints, "float64": floats, "string": strs, "string,int64": pairs} {
		if err := quick.Check(f, &quick.Config{MaxCount: 5000}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestKeyDecodeErrors(t *testing.T) {
	for _, src := range [][]byte{
		nil, {0x99}, {tagBool}, {tagBool, 2}, {tagInt64, 1, 2}, {tagFloat64}, {tagDecimal, 1},
		{tagBytes, 'a'}, {tagBytes, 'a', 0}, {tagBytes, 0, 7},
	} {
		if _, err := Skip(src); err == nil {
			t.Errorf("Skip(%x) succeeded", src)
		}
	}
	if _, _, err := DecodeInt64(AppendString(nil, "x")); err == nil {
		t.Error("DecodeInt64 of a string succeeded")
	}
	if _, _, err := DecodeBytes(nil, []byte{tagBytes, 'a', 0, 7}); err == nil {
		t.Error("DecodeBytes with a bad escape succeeded")
	}
}

func TestPrefixEnd(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "b", "a\xff": "b", "\xff\xff": "", "ab\x00": "ab\x01"} {
		got := PrefixEnd([]byte(in))
		if string(got) != want || (want == "" && got != nil) {
			t.Errorf("PrefixEnd(%q) = %q", in, got)
		}
	}
}
