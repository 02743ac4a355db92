package nexmark

import (
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

func TestFromOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    map[string]string
		want    Config // compared without Columns
		wantErr string // the error text, or "" for success
		option  string // the option an error names
	}{
		{name: "defaults",
			opts: map[string]string{"connector": "nexmark", "table": "bid"},
			want: Config{Table: "bid", BaseTime: DefaultBaseTime}},
		{name: "everything",
			opts: map[string]string{"connector": "NEXMARK", "table": "Person", "events": "1000000", "first_event_rate": "10000000",
				"rate": "2500.5", "seed": "-7", "base_time": "2024-01-02 03:04:05", "batch_size": "8192"},
			want: Config{Table: "person", Events: 1_000_000, FirstEventRate: 10_000_000, Rate: 2500.5, Seed: -7,
				BaseTime: 1704164645000, BatchSize: 8192}},
		{name: "base time in ms, keys in any case, zero events",
			opts: map[string]string{"TABLE": " auction ", "Base_Time": "0", "events": "0", "rate": "0"},
			want: Config{Table: "auction"}},
		{name: "missing table", opts: map[string]string{"connector": "nexmark"},
			option: "table", wantErr: "nexmark connector: option table: is required (want 'bid', 'auction' or 'person')"},
		{name: "bad table", opts: map[string]string{"table": "bids"},
			option: "table", wantErr: "nexmark connector: option table: invalid value 'bids' (want 'bid', 'auction' or 'person')"},
		{name: "unknown option", opts: map[string]string{"table": "bid", "topic": "x", "nexmark.table.type": "Bid"},
			option: "nexmark.table.type", wantErr: "nexmark connector: option nexmark.table.type: unknown option " +
				"(valid: connector, table, events, first_event_rate, rate, seed, base_time, batch_size)"},
		{name: "other connector", opts: map[string]string{"connector": "file", "table": "bid"},
			option: "connector", wantErr: "nexmark connector: option connector: is 'file', not 'nexmark'"},
		{name: "events not a number", opts: map[string]string{"table": "bid", "events": "1e6"},
			option: "events", wantErr: "nexmark connector: option events: invalid value '1e6' (want an integer)"},
		{name: "negative events", opts: map[string]string{"table": "bid", "events": "-1"},
			option: "events", wantErr: "nexmark connector: option events: value -1 is out of range [0, 9007199254740992]"},
		{name: "zero first_event_rate", opts: map[string]string{"table": "bid", "first_event_rate": "0"},
			option: "first_event_rate", wantErr: "nexmark connector: option first_event_rate: value 0 is out of range [1, 1000000000000]"},
		{name: "huge first_event_rate", opts: map[string]string{"table": "bid", "first_event_rate": "1000000000001"},
			option: "first_event_rate", wantErr: "nexmark connector: option first_event_rate: value 1000000000001 is out of range [1, 1000000000000]"},
		{name: "negative rate", opts: map[string]string{"table": "bid", "rate": "-5"},
			option: "rate", wantErr: "nexmark connector: option rate: value -5 is out of range [0, 1000000000000]"},
		{name: "NaN rate", opts: map[string]string{"table": "bid", "rate": "NaN"},
			option: "rate", wantErr: "nexmark connector: option rate: value NaN is out of range [0, 1000000000000]"},
		{name: "bad rate", opts: map[string]string{"table": "bid", "rate": "fast"},
			option: "rate", wantErr: "nexmark connector: option rate: invalid value 'fast' (want events per second, 0 for unthrottled)"},
		{name: "bad seed", opts: map[string]string{"table": "bid", "seed": "0x10"},
			option: "seed", wantErr: "nexmark connector: option seed: invalid value '0x10' (want an integer)"},
		{name: "bad base_time", opts: map[string]string{"table": "bid", "base_time": "yesterday"},
			option: "base_time", wantErr: "nexmark connector: option base_time: invalid value 'yesterday' (want 'YYYY-MM-DD HH:MM:SS' or milliseconds since the epoch)"},
		{name: "base_time out of range", opts: map[string]string{"table": "bid", "base_time": "9223372036854775807"},
			option: "base_time", wantErr: "nexmark connector: option base_time: value '9223372036854775807' is outside years 0001 to 9999"},
		{name: "zero batch_size", opts: map[string]string{"table": "bid", "batch_size": "0"},
			option: "batch_size", wantErr: "nexmark connector: option batch_size: value 0 is out of range [1, 1048576]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromOptions(tt.opts, nil)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				got.Columns = nil
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("got %+v\nwant %+v", got, tt.want)
				}
				return
			}
			var oe *OptionError
			if !errors.As(err, &oe) {
				t.Fatalf("error %v, want an *OptionError", err)
			}
			if oe.Option != tt.option || err.Error() != tt.wantErr {
				t.Errorf("error %q (option %s)\n want %q (option %s)", err, oe.Option, tt.wantErr, tt.option)
			}
		})
	}
}

// TestOptionErrorUnwraps checks that a parse error is wrapped.
func TestOptionErrorUnwraps(t *testing.T) {
	_, err := FromOptions(map[string]string{"table": "bid", "events": "99999999999999999999"}, nil)
	if !errors.Is(err, strconv.ErrRange) {
		t.Errorf("error %v does not wrap strconv.ErrRange", err)
	}
}

// TestFromOptionsColumns checks that FromOptions validates the declared
// columns and keeps them.
func TestFromOptionsColumns(t *testing.T) {
	cs := []catalog.Column{{Name: "price", Type: types.BigIntT}}
	cfg, err := FromOptions(map[string]string{"table": "bid"}, cs)
	if err != nil || !reflect.DeepEqual(cfg.Columns, cs) {
		t.Fatalf("got %v, %v", cfg.Columns, err)
	}
	_, err = FromOptions(map[string]string{"table": "auction"}, cs)
	var ce *ColumnError
	if !errors.As(err, &ce) || ce.Column != "price" {
		t.Errorf("error %v, want a *ColumnError for price", err)
	}
}

// TestNewValidates checks that New rejects a Config built by hand with bad
// values.
func TestNewValidates(t *testing.T) {
	bad := []Config{
		{Table: "bid", Events: -1},
		{Table: "bid", FirstEventRate: -1},
		{Table: "bid", Rate: -1},
		{Table: "bid", BatchSize: -1},
		{Table: "bid", BaseTime: maxBaseTime + 1},
		{Table: ""},
	}
	for _, cfg := range bad {
		var oe *OptionError
		if _, err := New(cfg); !errors.As(err, &oe) {
			t.Errorf("New(%+v): %v, want an *OptionError", cfg, err)
		}
	}
}
