package types

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

func TestParseTypeNames(t *testing.T) {
	for in, want := range map[string]string{
		"bigint": "BIGINT", "INT": "INT", "integer": "INT", "DECIMAL(10, 2)": "DECIMAL(10,2)",
		"decimal": "DECIMAL(10,0)", "numeric(5)": "DECIMAL(5,0)", "TIMESTAMP(3)": "TIMESTAMP(3)",
		"datetime(6)": "TIMESTAMP(3)", "timestamp": "TIMESTAMP", "varchar(255)": "VARCHAR", "text": "VARCHAR",
		"double precision": "DOUBLE", "bool": "BOOLEAN", "date": "DATE",
	} {
		got, err := Parse(in)
		if err != nil || got.String() != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, got, err, want)
		}
		back, err := Parse(got.String())
		if err != nil || back != got {
			t.Errorf("%s does not round-trip: %v %v", got, back, err)
		}
	}
	for _, bad := range []string{"DECIMAL(39,2)", "DECIMAL(5,6)", "TIMESTAMP(7)", "BLOB", "INT(x)", "DOUBLE(3)"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestParseAndFormatTimestamps(t *testing.T) {
	for in, want := range map[string]string{
		"2024-01-01 00:00:01.000":  "2024-01-01 00:00:01.000",
		"2024-01-01 00:00:02.5":    "2024-01-01 00:00:02.500",
		"2024-01-01T10:20:30Z":     "2024-01-01 10:20:30.000",
		"2024-02-29":               "2024-02-29 00:00:00.000",
		"1969-12-31 23:59:59.999":  "1969-12-31 23:59:59.999",
		"2024-01-01 10:20":         "2024-01-01 10:20:00.000",
		"2024-01-01 00:00:01.9876": "2024-01-01 00:00:01.987",
	} {
		ms, err := ParseTimestamp(in)
		if err != nil {
			t.Errorf("ParseTimestamp(%q): %v", in, err)
			continue
		}
		if got := FormatTimestamp(ms, 3); got != want {
			t.Errorf("%q → %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"2023-02-29", "2024-13-01", "2024-01-01 24:00:00", "yesterday", "2024-01-01 10:20:30.x"} {
		if _, err := ParseTimestamp(bad); err == nil {
			t.Errorf("ParseTimestamp(%q) accepted", bad)
		}
	}
}

func TestRoundToFsp(t *testing.T) {
	ts := func(s string) int64 {
		ms, err := ParseTimestamp(s)
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	for _, c := range []struct {
		in   string
		fsp  int
		want string
	}{
		{"2024-01-01 10:00:00.789", 0, "2024-01-01 10:00:01.000"},
		{"2024-01-01 10:00:00.499", 0, "2024-01-01 10:00:00.000"},
		{"2024-01-01 10:00:00.500", 0, "2024-01-01 10:00:01.000"},
		{"2024-01-01 23:59:59.999", 1, "2024-01-02 00:00:00.000"},
		{"2024-01-01 10:00:00.149", 1, "2024-01-01 10:00:00.100"},
		{"1969-12-31 23:59:59.999", 0, "1970-01-01 00:00:00.000"},
		{"1969-12-31 23:59:59.400", 0, "1969-12-31 23:59:59.000"},
		{"2024-01-01 10:00:00.123", 3, "2024-01-01 10:00:00.123"},
	} {
		if got := FormatTimestamp(RoundToFsp(ts(c.in), c.fsp), 3); got != c.want {
			t.Errorf("RoundToFsp(%s, %d) = %s, want %s", c.in, c.fsp, got, c.want)
		}
	}
}

func TestFormatSLT(t *testing.T) {
	dec, _ := decimal128.FromString("90.05", 4, 2)
	for _, c := range []struct {
		d    Datum
		t    T
		want string
	}{
		{FloatDatum(1.0 / 3), DoubleT, "0.333"},
		{FloatDatum(-0.0001), DoubleT, "0.000"},
		{DecimalDatum(dec), DecimalT(4, 2), "90.050"},
		{StringDatum(""), VarcharT, "(empty)"},
		{NullDatum, BigIntT, "NULL"},
		{BoolDatum(true), BoolT, "true"},
		{IntDatum(1704067201123), TimestampT(3), "2024-01-01 00:00:01.123"},
		{IntDatum(1704067201123), TimestampT(0), "2024-01-01 00:00:01"},
	} {
		if got := FormatSLT(c.d, c.t); got != c.want {
			t.Errorf("FormatSLT(%v, %s) = %q, want %q", c.d, c.t, got, c.want)
		}
	}
}

// TestDateRange checks the supported range's bounds against the parser,
// which reads exactly the years 0000 to 9999.
func TestDateRange(t *testing.T) {
	for s, want := range map[string]int64{
		"0000-01-01 00:00:00.000": MinTimestamp,
		"9999-12-31 23:59:59.999": MaxTimestamp,
	} {
		ms, err := ParseTimestamp(s)
		if err != nil || ms != want {
			t.Errorf("ParseTimestamp(%q) = %d, %v; want %d", s, ms, err, want)
		}
	}
	for s, want := range map[string]int64{"0000-01-01": MinDate, "9999-12-31": MaxDate} {
		d, err := ParseDate(s)
		if err != nil || int64(d) != want {
			t.Errorf("ParseDate(%q) = %d, %v; want %d", s, d, err, want)
		}
	}
	if !TimestampInRange(MinTimestamp) || !TimestampInRange(MaxTimestamp) || TimestampInRange(MinTimestamp-1) || TimestampInRange(MaxTimestamp+1) {
		t.Error("TimestampInRange disagrees with its bounds")
	}
	if !DateInRange(MinDate) || !DateInRange(MaxDate) || DateInRange(MinDate-1) || DateInRange(MaxDate+1) {
		t.Error("DateInRange disagrees with its bounds")
	}
}

// TestParseTimestampOffsets checks ISO-8601 timestamps with a UTC offset
// or Z, converted to UTC, in every form SQL.md lets files write them.
func TestParseTimestampOffsets(t *testing.T) {
	utc, err := ParseTimestamp("2024-03-01 10:00:00")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]int64{
		"2024-03-01T10:00:00Z":        utc,
		"2024-03-01T10:00:00z":        utc,
		"2024-03-01T12:00:00+02:00":   utc,
		"2024-03-01T12:30:00+0230":    utc,
		"2024-03-01T07:00:00-03":      utc,
		"2024-03-01 05:00:00.5-05:00": utc + 500,
		"2024-02-29T23:00:00-11:00":   utc,
	} {
		if got, err := ParseTimestamp(in); err != nil || got != want {
			t.Errorf("ParseTimestamp(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"2024-03-01T10:00:00+2", "2024-03-01T10:00:00+25:00", "2024-03-01T10:00:00+02:61", "2024-03-01T10:00:00+ab:00"} {
		if _, err := ParseTimestamp(in); err == nil {
			t.Errorf("ParseTimestamp(%q) succeeded", in)
		}
	}
}
