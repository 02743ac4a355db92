package sink

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

func TestFromOptions(t *testing.T) {
	root := rootAt(t, t.TempDir())
	tests := []struct {
		name    string
		opts    map[string]string
		want    Config // compared without Root
		wantErr string // the error text, or "" for success
		option  string // the option an error names
	}{
		{name: "file json from the extension",
			opts: map[string]string{"connector": "file", "path": "out.jsonl"},
			want: Config{Connector: "file", Path: "out.jsonl", Format: "json"}},
		{name: "file csv with everything",
			opts: map[string]string{"Connector": "FILE", "PATH": "out.txt", "format": " CSV ", "header": "TRUE", "type": "Append-Only"},
			want: Config{Connector: "file", Path: "out.txt", Format: "csv", Header: true, ForceAppendOnly: true}},
		{name: "file csv from the extension, header false",
			opts: map[string]string{"connector": "file", "path": "data/out.CSV", "header": "false", "type": "upsert"},
			want: Config{Connector: "file", Path: "data/out.CSV", Format: "csv"}},
		{name: "file ndjson", opts: map[string]string{"connector": "file", "path": "e.ndjson"},
			want: Config{Connector: "file", Path: "e.ndjson", Format: "json"}},
		{name: "print", opts: map[string]string{"connector": "print"},
			want: Config{Connector: "print", Format: "text"}},
		{name: "print json", opts: map[string]string{"connector": "print", "format": "json"},
			want: Config{Connector: "print", Format: "json"}},
		{name: "print csv header", opts: map[string]string{"connector": "print", "format": "csv", "header": "true"},
			want: Config{Connector: "print", Format: "csv", Header: true}},
		{name: "blackhole", opts: map[string]string{"connector": "blackhole", "type": "append-only"},
			want: Config{Connector: "blackhole", ForceAppendOnly: true}},

		{name: "no connector", opts: map[string]string{"path": "a.csv"},
			option: "connector", wantErr: "sink: option connector: is required (want 'file', 'print' or 'blackhole')"},
		{name: "unknown connector", opts: map[string]string{"connector": "kafka"},
			option: "connector", wantErr: "sink: option connector: unknown sink connector 'kafka' (want 'file', 'print' or 'blackhole')"},
		{name: "missing path", opts: map[string]string{"connector": "file", "format": "csv"},
			option: "path", wantErr: "file sink: option path: is required"},
		{name: "empty path", opts: map[string]string{"connector": "file", "path": "  "},
			option: "path", wantErr: "file sink: option path: is required"},
		{name: "outside the root", opts: map[string]string{"connector": "file", "path": "/etc/passwd", "format": "csv"},
			option: "path", wantErr: "file sink: option path: '/etc/passwd' is outside the file root <root>"},
		{name: "escaping the root", opts: map[string]string{"connector": "file", "path": "../../x.csv"},
			option: "path", wantErr: "file sink: option path: '../../x.csv' is outside the file root <root>"},
		{name: "unknown option", opts: map[string]string{"connector": "file", "path": "a.csv", "topic": "x", "follow": "true"},
			option: "follow", wantErr: "file sink: option follow: unknown option (valid: connector, path, format, header, type, rate_limit, partition_by, max_open_files, flush_interval)"},
		{name: "path on print", opts: map[string]string{"connector": "print", "path": "a.csv"},
			option: "path", wantErr: "print sink: option path: unknown option (valid: connector, format, header, type, rate_limit)"},
		{name: "format on blackhole", opts: map[string]string{"connector": "blackhole", "format": "json"},
			option: "format", wantErr: "blackhole sink: option format: unknown option (valid: connector, type, rate_limit)"},
		{name: "bad format", opts: map[string]string{"connector": "file", "path": "a.csv", "format": "xml"},
			option: "format", wantErr: "file sink: option format: invalid value 'xml' (want 'csv' or 'json')"},
		{name: "text on a file", opts: map[string]string{"connector": "file", "path": "a.txt", "format": "text"},
			option: "format", wantErr: "file sink: option format: invalid value 'text' (want 'csv' or 'json')"},
		{name: "bad print format", opts: map[string]string{"connector": "print", "format": "avro"},
			option: "format", wantErr: "print sink: option format: invalid value 'avro' (want 'text', 'json' or 'csv')"},
		{name: "no format to infer", opts: map[string]string{"connector": "file", "path": "out.dat"},
			option: "format", wantErr: "file sink: option format: is required (cannot infer it from the extension of 'out.dat'; want 'csv' or 'json')"},
		{name: "bad header", opts: map[string]string{"connector": "file", "path": "a.csv", "header": "yes"},
			option: "header", wantErr: "file sink: option header: invalid value 'yes' (want 'true' or 'false')"},
		{name: "header on json", opts: map[string]string{"connector": "file", "path": "a.json", "header": "true"},
			option: "header", wantErr: "file sink: option header: applies only to format 'csv'"},
		{name: "header on text", opts: map[string]string{"connector": "print", "header": "false"},
			option: "header", wantErr: "print sink: option header: applies only to format 'csv'"},
		{name: "flush interval", opts: map[string]string{"connector": "file", "path": "a.csv", "flush_interval": "250ms"},
			want: Config{Connector: "file", Path: "a.csv", Format: "csv", FlushInterval: 250 * time.Millisecond}},
		{name: "flush interval spelled out", opts: map[string]string{"connector": "file", "path": "a.csv", "flush_interval": "2 seconds"},
			want: Config{Connector: "file", Path: "a.csv", Format: "csv", FlushInterval: 2 * time.Second}},
		{name: "flush every chunk", opts: map[string]string{"connector": "file", "path": "a.csv", "flush_interval": "0"},
			want: Config{Connector: "file", Path: "a.csv", Format: "csv", FlushInterval: FlushEveryChunk}},
		{name: "bad flush interval", opts: map[string]string{"connector": "file", "path": "a.csv", "flush_interval": "soon"},
			option: "flush_interval", wantErr: "file sink: option flush_interval: invalid duration 'soon' (write e.g. '5s', '500ms' or '1m')"},
		{name: "flush interval on print", opts: map[string]string{"connector": "print", "flush_interval": "1s"},
			option: "flush_interval", wantErr: "print sink: option flush_interval: unknown option (valid: connector, format, header, type, rate_limit)"},
		{name: "bad type", opts: map[string]string{"connector": "print", "type": "retract"},
			option: "type", wantErr: "print sink: option type: invalid value 'retract' (want 'append-only' or 'upsert')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromOptions(tt.opts, root)
			if tt.wantErr != "" {
				want := strings.ReplaceAll(tt.wantErr, "<root>", root.Dir())
				if err == nil || err.Error() != want {
					t.Fatalf("error %v, want %q", err, want)
				}
				var oe *OptionError
				if !errors.As(err, &oe) || oe.Option != tt.option {
					t.Fatalf("error %#v does not name option %q", err, tt.option)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Root != root {
				t.Errorf("Root %v, want %v", got.Root, root)
			}
			if got.Connector != tt.want.Connector || got.Path != tt.want.Path || got.Format != tt.want.Format ||
				got.Header != tt.want.Header || got.ForceAppendOnly != tt.want.ForceAppendOnly || got.FlushInterval != tt.want.FlushInterval ||
				got.AppendOnly || got.Names != nil || got.Types != nil || got.Stdout != nil {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
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
