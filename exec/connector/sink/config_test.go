package sink

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/conntest"
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

func TestFromOptions(t *testing.T) {
	root := conntest.RootAt(t, t.TempDir())
	cases := []conntest.OptionCase[Config]{
		{Name: "file json from the extension",
			Opts: map[string]string{"connector": "file", "path": "out.jsonl"},
			Want: Config{Connector: "file", Path: "out.jsonl", Format: "json"}},
		{Name: "file csv with everything",
			Opts: map[string]string{"Connector": "FILE", "PATH": "out.txt", "format": " CSV ", "header": "TRUE", "type": "Append-Only"},
			Want: Config{Connector: "file", Path: "out.txt", Format: "csv", Header: true, ForceAppendOnly: true}},
		{Name: "file csv from the extension, header false",
			Opts: map[string]string{"connector": "file", "path": "data/out.CSV", "header": "false", "type": "upsert"},
			Want: Config{Connector: "file", Path: "data/out.CSV", Format: "csv"}},
		{Name: "file ndjson", Opts: map[string]string{"connector": "file", "path": "e.ndjson"},
			Want: Config{Connector: "file", Path: "e.ndjson", Format: "json"}},
		{Name: "print", Opts: map[string]string{"connector": "print"},
			Want: Config{Connector: "print", Format: "text"}},
		{Name: "print json", Opts: map[string]string{"connector": "print", "format": "json"},
			Want: Config{Connector: "print", Format: "json"}},
		{Name: "print csv header", Opts: map[string]string{"connector": "print", "format": "csv", "header": "true"},
			Want: Config{Connector: "print", Format: "csv", Header: true}},
		{Name: "blackhole", Opts: map[string]string{"connector": "blackhole", "type": "append-only"},
			Want: Config{Connector: "blackhole", ForceAppendOnly: true}},

		{Name: "no connector", Opts: map[string]string{"path": "a.csv"},
			Option: "connector", WantErr: "sink: option connector: is required (want 'file', 'print' or 'blackhole')"},
		{Name: "unknown connector", Opts: map[string]string{"connector": "kafka"},
			Option: "connector", WantErr: "sink: option connector: unknown sink connector 'kafka' (want 'file', 'print' or 'blackhole')"},
		{Name: "missing path", Opts: map[string]string{"connector": "file", "format": "csv"},
			Option: "path", WantErr: "file sink: option path: is required"},
		{Name: "empty path", Opts: map[string]string{"connector": "file", "path": "  "},
			Option: "path", WantErr: "file sink: option path: is required"},
		{Name: "outside the root", Opts: map[string]string{"connector": "file", "path": "/etc/passwd", "format": "csv"},
			Option: "path", WantErr: "file sink: option path: '/etc/passwd' is outside the file root <root>"},
		{Name: "escaping the root", Opts: map[string]string{"connector": "file", "path": "../../x.csv"},
			Option: "path", WantErr: "file sink: option path: '../../x.csv' is outside the file root <root>"},
		{Name: "unknown option", Opts: map[string]string{"connector": "file", "path": "a.csv", "topic": "x", "follow": "true"},
			Option: "follow", WantErr: "file sink: option follow: unknown option (valid: connector, path, format, header, type, rate_limit, partition_by, max_open_files, flush_interval)"},
		{Name: "path on print", Opts: map[string]string{"connector": "print", "path": "a.csv"},
			Option: "path", WantErr: "print sink: option path: unknown option (valid: connector, format, header, type, rate_limit)"},
		{Name: "format on blackhole", Opts: map[string]string{"connector": "blackhole", "format": "json"},
			Option: "format", WantErr: "blackhole sink: option format: unknown option (valid: connector, type, rate_limit)"},
		{Name: "bad format", Opts: map[string]string{"connector": "file", "path": "a.csv", "format": "xml"},
			Option: "format", WantErr: "file sink: option format: invalid value 'xml' (want 'csv' or 'json')"},
		{Name: "text on a file", Opts: map[string]string{"connector": "file", "path": "a.txt", "format": "text"},
			Option: "format", WantErr: "file sink: option format: invalid value 'text' (want 'csv' or 'json')"},
		{Name: "bad print format", Opts: map[string]string{"connector": "print", "format": "avro"},
			Option: "format", WantErr: "print sink: option format: invalid value 'avro' (want 'text', 'json' or 'csv')"},
		{Name: "no format to infer", Opts: map[string]string{"connector": "file", "path": "out.dat"},
			Option: "format", WantErr: "file sink: option format: is required (cannot infer it from the extension of 'out.dat'; want 'csv' or 'json')"},
		{Name: "bad header", Opts: map[string]string{"connector": "file", "path": "a.csv", "header": "yes"},
			Option: "header", WantErr: "file sink: option header: invalid value 'yes' (want 'true' or 'false')"},
		{Name: "header on json", Opts: map[string]string{"connector": "file", "path": "a.json", "header": "true"},
			Option: "header", WantErr: "file sink: option header: applies only to format 'csv'"},
		{Name: "header on text", Opts: map[string]string{"connector": "print", "header": "false"},
			Option: "header", WantErr: "print sink: option header: applies only to format 'csv'"},
		{Name: "flush interval", Opts: map[string]string{"connector": "file", "path": "a.csv", "flush_interval": "250ms"},
			Want: Config{Connector: "file", Path: "a.csv", Format: "csv", FlushInterval: 250 * time.Millisecond}},
		{Name: "flush interval spelled out", Opts: map[string]string{"connector": "file", "path": "a.csv", "flush_interval": "2 seconds"},
			Want: Config{Connector: "file", Path: "a.csv", Format: "csv", FlushInterval: 2 * time.Second}},
		{Name: "flush every chunk", Opts: map[string]string{"connector": "file", "path": "a.csv", "flush_interval": "0"},
			Want: Config{Connector: "file", Path: "a.csv", Format: "csv", FlushInterval: FlushEveryChunk}},
		{Name: "bad flush interval", Opts: map[string]string{"connector": "file", "path": "a.csv", "flush_interval": "soon"},
			Option: "flush_interval", WantErr: "file sink: option flush_interval: invalid duration 'soon' (write e.g. '5s', '500ms' or '1m')"},
		{Name: "flush interval on print", Opts: map[string]string{"connector": "print", "flush_interval": "1s"},
			Option: "flush_interval", WantErr: "print sink: option flush_interval: unknown option (valid: connector, format, header, type, rate_limit)"},
		{Name: "bad type", Opts: map[string]string{"connector": "print", "type": "retract"},
			Option: "type", WantErr: "print sink: option type: invalid value 'retract' (want 'append-only' or 'upsert')"},
	}
	parse := func(opts map[string]string) (Config, error) { return FromOptions(opts, root) }
	conntest.RunOptions[Config, *OptionError](t, cases, root.Dir(), parse, func(t *testing.T, got, want Config) {
		if got.Root != root {
			t.Errorf("Root %v, want %v", got.Root, root)
		}
		if got.Connector != want.Connector || got.Path != want.Path || got.Format != want.Format ||
			got.Header != want.Header || got.ForceAppendOnly != want.ForceAppendOnly || got.FlushInterval != want.FlushInterval ||
			got.AppendOnly || got.Names != nil || got.Types != nil || got.Stdout != nil {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
}

func TestNewValidates(t *testing.T) {
	one := []types.T{types.BigIntT}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no connector", Config{}, "sink: option connector: unknown sink connector '' (want 'file', 'print' or 'blackhole')"},
		{"no path", Config{Connector: "file", Format: "csv"}, "file sink: option path: is required"},
		{"no format", Config{Connector: "file", Path: "a.out"}, "file sink: option format: is required"},
		{"bad format", Config{Connector: "print", Format: "xml"}, "print sink: option format: invalid value 'xml'"},
		{"header on json", Config{Connector: "file", Path: "a.json", Header: true}, "file sink: option header: applies only to format 'csv'"},
		{"names and types", Config{Connector: "blackhole", Names: []string{"a", "b"}, Types: one},
			"blackhole sink: 2 column names for 1 column types"},
		{"unknown type", Config{Connector: "print", Names: []string{"a"}, Types: []types.T{types.UnknownT}},
			"print sink: column a: type UNKNOWN cannot be written"},
		{"op column json", Config{Connector: "file", Path: "a.json", Names: []string{"op"}, Types: one},
			"file sink: column op clashes with the op field"},
		{"op column csv header", Config{Connector: "print", Format: "csv", Header: true, Names: []string{"op"}, Types: one},
			"print sink: column op clashes with the op field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.cfg); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("New: %v, want %q", err, tt.want)
			}
		})
	}
	// A column named op is fine where no op field is written.
	for _, cfg := range []Config{
		{Connector: "file", Path: "a.json", AppendOnly: true, Names: []string{"op"}, Types: one},
		{Connector: "file", Path: "a.csv", Names: []string{"op"}, Types: one},
		{Connector: "print", Names: []string{"op"}, Types: one},
		{Connector: "blackhole", Names: []string{"op"}, Types: one},
	} {
		if _, err := New(cfg); err != nil {
			t.Errorf("New(%+v): %v", cfg, err)
		}
	}
}

func TestRateLimitOption(t *testing.T) {
	cfg, err := FromOptions(map[string]string{"connector": "blackhole", "rate_limit": "2500.5"}, fileroot.Root{})
	if err != nil || cfg.RateLimit != 2500.5 {
		t.Fatalf("got %+v, %v", cfg, err)
	}
	for _, bad := range []string{"-1", "fast", "NaN"} {
		if _, err := FromOptions(map[string]string{"connector": "blackhole", "rate_limit": bad}, fileroot.Root{}); err == nil {
			t.Errorf("rate_limit = %q was accepted", bad)
		}
	}
}

// TestRateLimitPaces checks that a rate-limited sink takes as long as its
// rate says to write its rows.
func TestRateLimitPaces(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	cfg := Config{Connector: ConnectorBlackhole, RateLimit: 4000, Names: []string{"x"}, Types: []types.T{types.BigIntT}, AppendOnly: true}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Open(context.Background(), exec.NewTestEnv(alloc)); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows := make([][]types.Datum, 500)
	for i := range rows {
		rows[i] = []types.Datum{types.IntDatum(int64(i))}
	}
	start := time.Now()
	for k := 0; k < 4; k++ {
		rec := types.BuildRecord(alloc, []string{"x"}, []types.T{types.BigIntT}, rows)
		err := s.Process(context.Background(), 0, exec.Chunk{Batch: rec}, nil)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	// 2,000 rows at 4,000 a second: half a second.
	if d := time.Since(start); d < 450*time.Millisecond {
		t.Fatalf("wrote 2000 rows in %v at 4000 rows/s", d)
	}
}
