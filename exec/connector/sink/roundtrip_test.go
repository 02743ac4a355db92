package sink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/conntest"
	"github.com/eddysql/eddy/exec/connector/file"
)

// TestRoundTrip writes an append-only query's rows with a file sink and
// reads the file back through the file source: every value, NULL and empty
// string comes back as it was.
func TestRoundTrip(t *testing.T) {
	// Every type a file stream can hold (not INTERVAL). FLOAT values stay in
	// float32's range and TIMESTAMP(0) values on whole seconds, as columns
	// of those types hold them.
	names := []string{"b", "ti", "si", "i", "bi", "f", "d", "dec", "big", "s", "dt", "ts0", "ts3"}
	tys := []types.T{types.BoolT, {Kind: types.TinyInt}, {Kind: types.SmallInt}, types.IntT, types.BigIntT,
		{Kind: types.Float}, types.DoubleT, types.DecimalT(10, 2), types.DecimalT(38, 10), types.VarcharT,
		types.DateT, types.TimestampT(0), types.TimestampT(3)}
	bigDec, err := decimalOf("-1234567890123456789012345678.0123456789", 38, 10)
	if err != nil {
		t.Fatal(err)
	}
	null := make([]types.Datum, len(tys))
	for j := range null {
		null[j] = types.NullDatum
	}
	rows := [][]types.Datum{
		{types.BoolDatum(true), types.IntDatum(-128), types.IntDatum(32767), types.IntDatum(math.MinInt32),
			types.IntDatum(math.MaxInt64), types.FloatDatum(1.5), types.FloatDatum(math.Pi), dec(1234567890),
			types.DecimalDatum(bigDec), types.StringDatum(`he said "hi", then left`),
			date(t, "2024-02-29"), ts(t, "2024-01-01 00:00:01"), ts(t, "2024-01-01 00:00:01.250")},
		null,
		{types.BoolDatum(false), types.IntDatum(0), types.IntDatum(-1), types.IntDatum(0),
			types.IntDatum(math.MinInt64), types.FloatDatum(-3.4e38), types.FloatDatum(math.NaN()), dec(-5),
			dec(0), types.StringDatum(""), date(t, "1969-12-31"), ts(t, "1900-01-01 00:00:00"), types.IntDatum(-1)},
		{types.BoolDatum(true), types.IntDatum(127), types.IntDatum(-32768), types.IntDatum(1),
			types.IntDatum(1), types.FloatDatum(1e-7), types.FloatDatum(math.Inf(-1)), dec(1),
			dec(-1), types.StringDatum("naïve ☃ 日本\r\n\t\x01 back\\slash, \"q\" 😀"), date(t, "1900-01-01"),
			types.IntDatum(0), ts(t, "9999-12-31 23:59:59.999")},
		{types.NullDatum, types.NullDatum, types.NullDatum, types.NullDatum, types.NullDatum, types.NullDatum,
			types.FloatDatum(math.Inf(1)), types.NullDatum, types.NullDatum, types.StringDatum(" padded "),
			types.NullDatum, types.NullDatum, types.NullDatum},
	}
	want := formatRows(rows, tys)
	cols := make([]catalog.Column, len(tys))
	for j := range tys {
		cols[j] = catalog.Column{Name: names[j], Type: tys[j], Nullable: true}
	}
	for _, tt := range []struct {
		path   string
		header bool
	}{{"out.csv", false}, {"out.csv", true}, {"out.jsonl", false}} {
		t.Run(fmt.Sprintf("%s header=%v", tt.path, tt.header), func(t *testing.T) {
			opts := map[string]string{"connector": "file", "path": tt.path}
			if tt.header {
				opts["header"] = "true"
			}
			dir := t.TempDir()
			cfg, err := FromOptions(opts, conntest.RootAt(t, dir))
			if err != nil {
				t.Fatal(err)
			}
			cfg.Names, cfg.Types, cfg.AppendOnly = names, tys, true
			s := mustNew(t, cfg)
			open(t, s)
			alloc := newAlloc(t)
			process(t, s, makeChunk(t, alloc, names, tys, rows[:2], nil))
			process(t, s, makeChunk(t, alloc, names, tys, rows[2:], nil))
			control(t, s, exec.Flush)

			// The stream reading the file is declared with the sink's own
			// options, as a user would copy them.
			delete(opts, "connector")
			scfg, err := file.FromOptions(opts, cols, conntest.RootAt(t, dir))
			if err != nil {
				t.Fatal(err)
			}
			scfg.OnError = file.OnErrorFail
			got := readBack(t, scfg, tys)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("read back\n%s\nwant\n%s\nfile:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"),
					readFile(t, resolved(t, cfg)))
			}
		})
	}
}

// readBack reads the file of cfg to its end through the file source and
// returns its rows formatted by formatRows.
func readBack(t *testing.T, cfg file.Config, ts []types.T) []string {
	t.Helper()
	src, err := file.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	env := exec.NewTestEnv(newAlloc(t))
	env.OnWarning = func(msg string) { t.Errorf("source warning: %s", msg) }
	if err := src.Open(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		c, err := src.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		out = append(out, formatRows(types.Rows(c.Batch, ts), ts)...)
		c.Batch.Release()
	}
}

// formatRows renders rows for comparison: values by types.Format separated
// by " | ", with the empty string shown as (empty) so that it differs from
// NULL, and strings quoted so that control characters show.
func formatRows(rows [][]types.Datum, ts []types.T) []string {
	out := make([]string, len(rows))
	for i, row := range rows {
		vals := make([]string, len(row))
		for j, d := range row {
			vals[j] = types.Format(d, ts[j])
			if !d.Null && ts[j].Kind == types.Varchar {
				vals[j] = fmt.Sprintf("%q", d.S)
			}
		}
		out[i] = strings.Join(vals, " | ")
	}
	return out
}

// decimalOf parses s as a DECIMAL(prec, scale) value.
func decimalOf(s string, prec, scale int32) (decimal128.Num, error) {
	return decimal128.FromString(s, prec, scale)
}
