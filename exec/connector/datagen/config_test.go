package datagen

import (
	"errors"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/connector"
)

// TestOptionsRefused checks every kind of bad option: the error names the
// option (for the engine to point at its value) and says what is wrong.
func TestOptionsRefused(t *testing.T) {
	for _, tt := range []struct {
		opts        map[string]string
		option, msg string
	}{
		{map[string]string{"colour": "red"}, "colour", "unknown option (valid: connector, rows, rate, seed, batch_size, and 'fields.<column>.<property>')"},
		{map[string]string{"connector": "file"}, "connector", "is 'file', not 'datagen'"},
		{map[string]string{"rows": "-1"}, "rows", "value -1 is out of range [0, 9007199254740992]"},
		{map[string]string{"rows": "many"}, "rows", "invalid value 'many' (want an integer)"},
		{map[string]string{"rate": "fast"}, "rate", "invalid value 'fast' (want rows per second from 0, unthrottled, to 1e12)"},
		{map[string]string{"seed": "1.5"}, "seed", "invalid value '1.5' (want an integer)"},
		{map[string]string{"batch_size": "0"}, "batch_size", "value 0 is out of range [1, 1048576]"},
		{map[string]string{"fields.id": "x"}, "fields.id", "want 'fields.<column>.<property>', with a property among kind, start, end, step, min, max, length, values, null_rate"},
		{map[string]string{"fields.nope.kind": "random"}, "fields.nope.kind", "the stream has no column 'nope'"},
		{map[string]string{"fields.id.colour": "red"}, "fields.id.colour", "unknown property 'colour'"},
		{map[string]string{"fields.id.kind": "zipf"}, "fields.id.kind", "invalid value 'zipf' (want 'random', 'sequence' or 'list')"},
		{map[string]string{"fields.flag.kind": "sequence"}, "fields.flag.kind", "a sequence of BOOLEAN values is not defined (use 'random' or 'list')"},
		{map[string]string{"fields.id.start": "1"}, "fields.id.start", "applies to kind 'sequence', and the column's kind is 'random'"},
		{map[string]string{"fields.id.kind": "sequence", "fields.id.max": "1"}, "fields.id.max", "applies to kind 'random', and the column's kind is 'sequence'"},
		{map[string]string{"fields.id.kind": "sequence", "fields.id.step": "0"}, "fields.id.step", "must not be 0"},
		{map[string]string{"fields.id.kind": "sequence", "fields.id.start": "5", "fields.id.end": "1"}, "fields.id.end", "is never reached from start by step"},
		{map[string]string{"fields.x.kind": "sequence", "fields.x.step": "-1", "fields.x.end": "3"}, "fields.x.end", "is never reached from start by step"},
		{map[string]string{"fields.small.max": "40000"}, "fields.small.max", "invalid value '40000': out of the range of SMALLINT [-32768, 32767]"},
		{map[string]string{"fields.small.min": "9", "fields.small.max": "3"}, "fields.small.max", "is below min"},
		{map[string]string{"fields.amount.min": "1.234"}, "fields.amount.min", "invalid value '1.234': want a number of at most 8 digits, 2 after the point"},
		{map[string]string{"fields.day.min": "2024-02-30"}, "fields.day.min", "invalid value '2024-02-30'"},
		{map[string]string{"fields.ts.kind": "sequence", "fields.ts.step": "soon"}, "fields.ts.step", "invalid value 'soon'"},
		{map[string]string{"fields.x.min": "NaN"}, "fields.x.min", "invalid value 'NaN': want a finite number"},
		{map[string]string{"fields.id.length": "5"}, "fields.id.length", "applies to text columns, and id is BIGINT"},
		{map[string]string{"fields.name.length": "-1"}, "fields.name.length", "invalid value '-1' (want an integer from 0 to 65536)"},
		{map[string]string{"fields.name.kind": "list"}, "fields.name.values", "is required with kind 'list' (comma-separated values, such as 'a,b,c')"},
		{map[string]string{"fields.small.kind": "list", "fields.small.values": "1,two"}, "fields.small.values", "'two': want an integer"},
		{map[string]string{"fields.id.null_rate": "0.5"}, "fields.id.null_rate", "column id is NOT NULL"},
		{map[string]string{"fields.x.null_rate": "2"}, "fields.x.null_rate", "invalid value '2' (want a number from 0 to 1)"},
	} {
		_, err := FromOptions(tt.opts, testCols)
		var oe *OptionError
		if !errors.As(err, &oe) {
			t.Errorf("%v: %v, want an *OptionError", tt.opts, err)
			continue
		}
		if name, _ := connector.ErrorOption(err); name != tt.option || !strings.Contains(oe.Msg, tt.msg) {
			t.Errorf("%v:\n got option %s: %s\nwant option %s: %s", tt.opts, name, oe.Msg, tt.option, tt.msg)
		}
	}
	if _, err := FromOptions(nil, nil); err == nil || !strings.Contains(err.Error(), "must declare its columns") {
		t.Errorf("no columns: %v", err)
	}
}

// TestLen checks how many rows a generator makes: rows, the shortest
// sequence with an end, or unbounded.
func TestLen(t *testing.T) {
	for _, tt := range []struct {
		opts map[string]string
		want uint64
	}{
		{map[string]string{}, unbounded},
		{map[string]string{"rows": "0"}, unbounded},
		{map[string]string{"rows": "10"}, 10},
		{map[string]string{"fields.id.kind": "sequence", "fields.id.end": "100"}, 100},
		{map[string]string{"fields.id.kind": "sequence", "fields.id.start": "10", "fields.id.end": "1", "fields.id.step": "-3"}, 4},
		{map[string]string{"fields.id.kind": "sequence", "fields.id.end": "100", "rows": "7"}, 7},
		{map[string]string{"fields.x.kind": "sequence", "fields.x.start": "0", "fields.x.end": "1", "fields.x.step": "0.25"}, 5},
		{map[string]string{"fields.day.kind": "sequence", "fields.day.start": "2024-01-01", "fields.day.end": "2024-12-31"}, 366},
		{map[string]string{"fields.ts.step": "1s", "fields.ts.end": "2025-01-01 00:01:00"}, 61},
		{map[string]string{"fields.amount.kind": "sequence", "fields.amount.end": "10", "fields.amount.step": "0.5"}, 19},
	} {
		cfg := config(t, tt.opts)
		if got := cfg.Len(); got != tt.want {
			t.Errorf("%v: Len %d, want %d", tt.opts, got, tt.want)
		}
	}
}

// TestTraits checks what the options mean for planning.
func TestTraits(t *testing.T) {
	spec := func(opts map[string]string) connector.Spec {
		return connector.Spec{Object: "s", Options: opts, Columns: []catalog.Column{{Name: "k", Type: types.IntT}}}
	}
	c := Connector{}
	if got, want := c.Traits(spec(map[string]string{"rows": "42"})), (catalog.SourceTraits{Bounded: true, Splittable: true, Generated: true, Rows: 42}); got != want {
		t.Errorf("bounded: %+v, want %+v", got, want)
	}
	if got, want := c.Traits(spec(map[string]string{})), (catalog.SourceTraits{Splittable: true, Generated: true}); got != want {
		t.Errorf("unbounded: %+v, want %+v", got, want)
	}
	if got := c.Traits(spec(map[string]string{"rows": "x"})); got.Bounded {
		t.Errorf("unreadable rows: %+v, want it taken as absent", got)
	}
	if c.Columns(nil) != nil {
		t.Error("datagen has columns of its own")
	}
}
