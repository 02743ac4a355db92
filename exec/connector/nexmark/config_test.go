package nexmark

import (
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/connector/conntest"
)

func TestFromOptions(t *testing.T) {
	cases := []conntest.OptionCase[Config]{
		{Name: "defaults",
			Opts: map[string]string{"connector": "nexmark", "table": "bid"},
			Want: Config{Table: "bid", BaseTime: DefaultBaseTime}},
		{Name: "everything",
			Opts: map[string]string{"connector": "NEXMARK", "table": "Person", "events": "1000000", "first_event_rate": "10000000",
				"rate": "2500.5", "seed": "-7", "base_time": "2024-01-02 03:04:05", "batch_size": "8192"},
			Want: Config{Table: "person", Events: 1_000_000, FirstEventRate: 10_000_000, Rate: 2500.5, Seed: -7,
				BaseTime: 1704164645000, BatchSize: 8192}},
		{Name: "base time in ms, keys in any case, zero events",
			Opts: map[string]string{"TABLE": " auction ", "Base_Time": "0", "events": "0", "rate": "0"},
			Want: Config{Table: "auction"}},
		{Name: "missing table", Opts: map[string]string{"connector": "nexmark"},
			Option: "table", WantErr: "nexmark connector: option table: is required (want 'bid', 'auction' or 'person')"},
		{Name: "bad table", Opts: map[string]string{"table": "bids"},
			Option: "table", WantErr: "nexmark connector: option table: invalid value 'bids' (want 'bid', 'auction' or 'person')"},
		{Name: "unknown option", Opts: map[string]string{"table": "bid", "topic": "x", "nexmark.table.type": "Bid"},
			Option: "nexmark.table.type", WantErr: "nexmark connector: option nexmark.table.type: unknown option " +
				"(valid: connector, table, events, first_event_rate, rate, seed, base_time, batch_size, generate)"},
		{Name: "other connector", Opts: map[string]string{"connector": "file", "table": "bid"},
			Option: "connector", WantErr: "nexmark connector: option connector: is 'file', not 'nexmark'"},
		{Name: "events not a number", Opts: map[string]string{"table": "bid", "events": "1e6"},
			Option: "events", WantErr: "nexmark connector: option events: invalid value '1e6' (want an integer)"},
		{Name: "negative events", Opts: map[string]string{"table": "bid", "events": "-1"},
			Option: "events", WantErr: "nexmark connector: option events: value -1 is out of range [0, 9007199254740992]"},
		{Name: "zero first_event_rate", Opts: map[string]string{"table": "bid", "first_event_rate": "0"},
			Option: "first_event_rate", WantErr: "nexmark connector: option first_event_rate: value 0 is out of range [1, 1000000000000]"},
		{Name: "huge first_event_rate", Opts: map[string]string{"table": "bid", "first_event_rate": "1000000000001"},
			Option: "first_event_rate", WantErr: "nexmark connector: option first_event_rate: value 1000000000001 is out of range [1, 1000000000000]"},
		{Name: "negative rate", Opts: map[string]string{"table": "bid", "rate": "-5"},
			Option: "rate", WantErr: "nexmark connector: option rate: value -5 is out of range [0, 1000000000000]"},
		{Name: "NaN rate", Opts: map[string]string{"table": "bid", "rate": "NaN"},
			Option: "rate", WantErr: "nexmark connector: option rate: value NaN is out of range [0, 1000000000000]"},
		{Name: "bad rate", Opts: map[string]string{"table": "bid", "rate": "fast"},
			Option: "rate", WantErr: "nexmark connector: option rate: invalid value 'fast' (want events per second, 0 for unthrottled)"},
		{Name: "bad seed", Opts: map[string]string{"table": "bid", "seed": "0x10"},
			Option: "seed", WantErr: "nexmark connector: option seed: invalid value '0x10' (want an integer)"},
		{Name: "bad base_time", Opts: map[string]string{"table": "bid", "base_time": "yesterday"},
			Option: "base_time", WantErr: "nexmark connector: option base_time: invalid value 'yesterday' (want 'YYYY-MM-DD HH:MM:SS' or milliseconds since the epoch)"},
		{Name: "base_time out of range", Opts: map[string]string{"table": "bid", "base_time": "9223372036854775807"},
			Option: "base_time", WantErr: "nexmark connector: option base_time: value '9223372036854775807' is outside years 0001 to 9999"},
		{Name: "generate read",
			Opts: map[string]string{"table": "bid", "generate": " Read "},
			Want: Config{Table: "bid", BaseTime: DefaultBaseTime}},
		{Name: "generate all",
			Opts: map[string]string{"table": "bid", "generate": "ALL"},
			Want: Config{Table: "bid", BaseTime: DefaultBaseTime, Generate: []string{"person", "auction", "bid"}}},
		{Name: "generate a list, in the tables' order, once each",
			Opts: map[string]string{"table": "auction", "generate": "bid, Person,bid"},
			Want: Config{Table: "auction", BaseTime: DefaultBaseTime, Generate: []string{"person", "bid"}}},
		{Name: "generate an unknown table", Opts: map[string]string{"table": "bid", "generate": "bid,bids"},
			Option: "generate", WantErr: "nexmark connector: option generate: invalid value 'bid,bids' (want 'read', 'all' or tables such as 'person, bid')"},
		{Name: "generate nothing", Opts: map[string]string{"table": "bid", "generate": ""},
			Option: "generate", WantErr: "nexmark connector: option generate: invalid value '' (want 'read', 'all' or tables such as 'person, bid')"},
		{Name: "zero batch_size", Opts: map[string]string{"table": "bid", "batch_size": "0"},
			Option: "batch_size", WantErr: "nexmark connector: option batch_size: value 0 is out of range [1, 1048576]"},
	}
	parse := func(opts map[string]string) (Config, error) { return FromOptions(opts, nil) }
	conntest.RunOptions[Config, *OptionError](t, cases, "", parse, func(t *testing.T, got, want Config) {
		got.Columns = nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v\nwant %+v", got, want)
		}
	})
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
		{Table: "bid", Generate: []string{"bids"}},
		{Table: ""},
	}
	for _, cfg := range bad {
		var oe *OptionError
		if _, err := New(cfg); !errors.As(err, &oe) {
			t.Errorf("New(%+v): %v, want an *OptionError", cfg, err)
		}
	}
}
