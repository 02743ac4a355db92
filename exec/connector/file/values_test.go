package file

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in          string
		prec, scale int32
		want        string // at the scale; "" when code is not faultNone
		inexact     bool
		code        faultCode
	}{
		{"0", 5, 2, "0.00", false, faultNone},
		{"-0.00", 5, 2, "0.00", false, faultNone},
		{"123.45", 5, 2, "123.45", false, faultNone},
		{"+123.4", 5, 2, "123.40", false, faultNone},
		{"123.454", 5, 2, "123.45", true, faultNone},
		{"123.455", 5, 2, "123.46", true, faultNone},
		{"-123.455", 5, 2, "-123.46", true, faultNone},
		{"999.994", 5, 2, "999.99", true, faultNone},
		{"999.995", 5, 2, "", false, faultRange},
		{"1000", 5, 2, "", false, faultRange},
		{"0001.5", 5, 2, "1.50", false, faultNone},
		{".5", 5, 2, "0.50", false, faultNone},
		{"5.", 5, 2, "5.00", false, faultNone},
		{"1.5e2", 5, 2, "150.00", false, faultNone},
		{"15E-3", 5, 2, "0.02", true, faultNone},
		{"1e-100", 5, 2, "0.00", true, faultNone},
		{"4e-3", 5, 2, "0.00", true, faultNone},
		{"5e-3", 5, 2, "0.01", true, faultNone},
		{"1e100000000000", 38, 0, "", false, faultRange},
		{"0e100000000000", 38, 0, "0", false, faultNone},
		{"99999999999999999999999999999999999999", 38, 0, "99999999999999999999999999999999999999", false, faultNone},
		{"-99999999999999999999999999999999999999", 38, 0, "-99999999999999999999999999999999999999", false, faultNone},
		{"100000000000000000000000000000000000000", 38, 0, "", false, faultRange},
		{"99999999999999999999999999999999999999.5", 38, 0, "", false, faultRange},
		{"0.12345678901234567890123456789012345678", 38, 38, "0.12345678901234567890123456789012345678", false, faultNone},
		{"", 5, 2, "", false, faultSyntax},
		{"-", 5, 2, "", false, faultSyntax},
		{".", 5, 2, "", false, faultSyntax},
		{"1e", 5, 2, "", false, faultSyntax},
		{"1.2.3", 5, 2, "", false, faultSyntax},
		{"12a", 5, 2, "", false, faultSyntax},
		{"0x10", 5, 2, "", false, faultSyntax},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d,%d", tt.in, tt.prec, tt.scale), func(t *testing.T) {
			n, inexact, code := parseDecimal([]byte(tt.in), tt.prec, tt.scale)
			if code != tt.code {
				t.Fatalf("code = %d, want %d", code, tt.code)
			}
			if code != faultNone {
				return
			}
			if got := n.ToString(tt.scale); got != tt.want || inexact != tt.inexact {
				t.Errorf("got %s (inexact %v), want %s (inexact %v)", got, inexact, tt.want, tt.inexact)
			}
		})
	}
}

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		code faultCode
	}{
		{"0", 0, faultNone},
		{"-0", 0, faultNone},
		{"+17", 17, faultNone},
		{"9223372036854775807", 9223372036854775807, faultNone},
		{"-9223372036854775808", -9223372036854775808, faultNone},
		{"9223372036854775808", 0, faultRange},
		{"-9223372036854775809", 0, faultRange},
		{"18446744073709551616", 0, faultRange},
		{"123456789012345678901234567890", 0, faultRange},
		{"123456789012345678901234567890x", 0, faultSyntax},
		{"1.0", 0, faultSyntax},
		{"-2.50e1", 0, faultSyntax},
		{"1e3", 0, faultSyntax},
		{"+12", 12, faultNone},
		{"-0", 0, faultNone},
		{"1e30", 0, faultSyntax},
		{"1.5", 0, faultSyntax},
		{"1e-1", 0, faultSyntax},
		{"", 0, faultSyntax},
		{"-", 0, faultSyntax},
		{"1 2", 0, faultSyntax},
		{"١", 0, faultSyntax},
	}
	for _, tt := range tests {
		got, code := parseInt([]byte(tt.in))
		if code != tt.code || (code == faultNone && got != tt.want) {
			t.Errorf("parseInt(%q) = %d, %d; want %d, %d", tt.in, got, code, tt.want, tt.code)
		}
	}
}

func TestParseBool(t *testing.T) {
	for in, want := range map[string]int64{"true": 1, "TRUE": 1, "True": 1, "t": 1, "T": 1, "1": 1,
		"false": 0, "FALSE": 0, "f": 0, "F": 0, "0": 0} {
		if got, ok := parseBool([]byte(in)); !ok || got != want {
			t.Errorf("parseBool(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "yes", "no", "2", "tru", "falsey", "on"} {
		if _, ok := parseBool([]byte(in)); ok {
			t.Errorf("parseBool(%q) succeeded", in)
		}
	}
}

// TestDatesAgree checks the in-place date and timestamp parsers against
// catalog/types over random and edge values.
func TestDatesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var inputs []string
	for range 20000 {
		y, m, d := r.IntN(10000), r.IntN(14), r.IntN(33)
		h, mi, s, ms := r.IntN(25), r.IntN(61), r.IntN(61), r.IntN(1000)
		inputs = append(inputs,
			fmt.Sprintf("%04d-%02d-%02d", y, m, d),
			fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", y, m, d, h, mi, s),
			fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, m, d, h, mi, s, ms),
			fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d.%d", y, m, d, h, mi, s, ms/100),
		)
	}
	inputs = append(inputs, "1970-01-01", "0000-01-01", "9999-12-31 23:59:59.999", "2000-02-29", "1900-02-29",
		"2024-01-01 00:00:00.", "2024-01-01 00:00:00.12a", "2024-01-01 00:00:00Z", "2024-01-01x00:00:00")
	var dates, stamps dateCache // shared, so that runs of one date hit them
	for i, in := range inputs {
		if i%3 == 0 {
			dates, stamps = dateCache{}, dateCache{}
		}
		wantD, errD := types.ParseDate(in)
		gotD, ok := parseDate([]byte(in), &dates)
		if ok != (errD == nil) || (ok && gotD != wantD) {
			t.Fatalf("parseDate(%q) = %d, %v; types.ParseDate = %d, %v", in, gotD, ok, wantD, errD)
		}
		wantT, errT := types.ParseTimestamp(in)
		gotT, code := parseTimestamp([]byte(in), &stamps)
		if (code == faultNone) != (errT == nil) || (code == faultNone && gotT != wantT) {
			t.Fatalf("parseTimestamp(%q) = %d, %d; types.ParseTimestamp = %d, %v", in, gotT, code, wantT, errT)
		}
	}
}
