package file

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

func TestFromOptions(t *testing.T) {
	cs := []catalog.Column{{Name: "a", Type: types.BigIntT, Nullable: true}}
	root := rootAt(t, t.TempDir())
	tests := []struct {
		name    string
		opts    map[string]string
		cols    []catalog.Column
		want    Config // compared without Columns and Root
		wantErr string // the error text, or "" for success
		option  string // the option an error names
	}{
		{name: "csv with everything",
			opts: map[string]string{"connector": "file", "path": "bids.csv", "format": "CSV", "header": "true",
				"follow": "TRUE", "on_error": "fail", "delimiter": ";"},
			want: Config{Path: "bids.csv", Format: "csv", Header: true, Follow: true, OnError: "fail", Delimiter: ';'}},
		{name: "defaults",
			opts: map[string]string{"connector": "file", "path": "data/x.csv", "format": "csv"},
			want: Config{Path: "data/x.csv", Format: "csv"}},
		{name: "outside the root", opts: map[string]string{"path": "/etc/passwd", "format": "csv"},
			option: "path", wantErr: "file connector: option path: '/etc/passwd' is outside the file root <root>"},
		{name: "escaping the root", opts: map[string]string{"path": "../../x.csv"},
			option: "path", wantErr: "file connector: option path: '../../x.csv' is outside the file root <root>"},
		{name: "json",
			opts: map[string]string{"path": "e.log", "format": "json", "follow": "false", "on_error": "skip"},
			want: Config{Path: "e.log", Format: "json", OnError: "skip"}},
		{name: "format from the extension",
			opts: map[string]string{"path": "e.ndjson"},
			want: Config{Path: "e.ndjson", Format: "json"}},
		{name: "tab delimiter",
			opts: map[string]string{"path": "t.csv", "delimiter": `\t`},
			want: Config{Path: "t.csv", Format: "csv", Delimiter: '\t'}},
		{name: "missing path", opts: map[string]string{"connector": "file", "format": "csv"},
			option: "path", wantErr: "file connector: option path: is required"},
		{name: "empty path", opts: map[string]string{"path": " ", "format": "csv"},
			option: "path", wantErr: "file connector: option path: is required"},
		{name: "unknown option", opts: map[string]string{"path": "a.csv", "topic": "x", "brokers": "y"},
			option: "brokers", wantErr: "file connector: option brokers: unknown option (valid: connector, path, format, header, follow, on_error, delimiter)"},
		{name: "bad format", opts: map[string]string{"path": "a.csv", "format": "xml"},
			option: "format", wantErr: "file connector: option format: invalid value 'xml' (want 'csv' or 'json')"},
		{name: "no format to infer", opts: map[string]string{"path": "a.dat"},
			option: "format", wantErr: "file connector: option format: is required (cannot infer it from the extension of 'a.dat'; want 'csv' or 'json')"},
		{name: "bad header", opts: map[string]string{"path": "a.csv", "header": "maybe"},
			option: "header", wantErr: "file connector: option header: invalid value 'maybe' (want 'true' or 'false')"},
		{name: "bad follow", opts: map[string]string{"path": "a.csv", "follow": "1"},
			option: "follow", wantErr: "file connector: option follow: invalid value '1' (want 'true' or 'false')"},
		{name: "bad on_error", opts: map[string]string{"path": "a.csv", "on_error": "retry"},
			option: "on_error", wantErr: "file connector: option on_error: invalid value 'retry' (want 'skip' or 'fail')"},
		{name: "long delimiter", opts: map[string]string{"path": "a.csv", "delimiter": ";;"},
			option: "delimiter", wantErr: "file connector: option delimiter: invalid value ';;' (want one ASCII character)"},
		{name: "quote delimiter", opts: map[string]string{"path": "a.csv", "delimiter": `"`},
			option: "delimiter", wantErr: `file connector: option delimiter: invalid value '"' (a quote or line break cannot separate fields)`},
		{name: "header on json", opts: map[string]string{"path": "a.json", "header": "true"},
			option: "header", wantErr: "file connector: option header: applies only to format 'csv'"},
		{name: "delimiter on json", opts: map[string]string{"path": "a.json", "delimiter": ","},
			option: "delimiter", wantErr: "file connector: option delimiter: applies only to format 'csv'"},
		{name: "other connector", opts: map[string]string{"connector": "kafka", "path": "a.csv"},
			option: "connector", wantErr: "file connector: option connector: is 'kafka', not 'file'"},
		{name: "no columns", opts: map[string]string{"path": "a.csv"}, cols: []catalog.Column{},
			wantErr: "file connector: a file stream needs at least one column"},
		{name: "unsupported type", opts: map[string]string{"path": "a.csv"},
			cols:    []catalog.Column{{Name: "gap", Type: types.IntervalT}},
			wantErr: "file connector: column gap: type INTERVAL cannot be read from a file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cs
			if tt.cols != nil {
				c = tt.cols
			}
			got, err := FromOptions(tt.opts, c, root)
			if tt.wantErr != "" {
				want := strings.ReplaceAll(tt.wantErr, "<root>", root.Dir())
				if err == nil || err.Error() != want {
					t.Fatalf("error = %v, want %q", err, want)
				}
				var oe *OptionError
				if tt.option != "" && (!errors.As(err, &oe) || oe.Option != tt.option) {
					t.Fatalf("error %v is not an *OptionError for %s", err, tt.option)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Root != root || len(got.Columns) != len(c) {
				t.Errorf("Root, Columns = %v, %v", got.Root, got.Columns)
			}
			got.Root, got.Columns = fileroot.Root{}, nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("config = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestPathConfined checks that the source's path is confined to its root
// when the stream is created (FromOptions) and again when the source
// opens, so that a link moved out of the root after CREATE is refused with
// the same error.
func TestPathConfined(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work, outside := filepath.Join(base, "work"), filepath.Join(base, "outside")
	for _, d := range []string{work, outside, filepath.Join(work, "eddy-data")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, work, "in.csv", "1\n")
	writeFile(t, outside, "secret.csv", "2\n")
	writeFile(t, filepath.Join(work, "eddy-data"), "MANIFEST", "3\n")
	root, err := fileroot.New(work, filepath.Join(work, "eddy-data"))
	if err != nil {
		t.Fatal(err)
	}
	cs := cols(t, "a BIGINT")
	opts := func(path string) map[string]string { return map[string]string{"path": path, "format": "csv"} }
	for path, want := range map[string]error{
		"in.csv":                             nil,
		filepath.Join(work, "in.csv"):        nil,
		filepath.Join(outside, "secret.csv"): fileroot.ErrOutside,
		"../outside/secret.csv":              fileroot.ErrOutside,
		"eddy-data/MANIFEST":                 fileroot.ErrDataDir,
	} {
		_, err := FromOptions(opts(path), cs, root)
		var oe *OptionError
		if want == nil && err != nil || want != nil && (!errors.Is(err, want) || !errors.As(err, &oe) || oe.Option != "path") {
			t.Errorf("FromOptions(path %q) = %v, want %v", path, err, want)
		}
	}

	// A link that stays in at CREATE and leads out at open.
	link := filepath.Join(work, "current.csv")
	if err := os.Symlink("in.csv", link); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	cfg, err := FromOptions(opts("current.csv"), cs, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.csv"), link); err != nil {
		t.Fatal(err)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Open(context.Background(), newTestEnv(t).Env)
	want := "file connector: option path: 'current.csv' is outside the file root " + work
	if !errors.Is(err, fileroot.ErrOutside) || err.Error() != want {
		t.Errorf("Open after the link moved out = %v, want %q", err, want)
	}
	s.Close()
}

func TestNewValidates(t *testing.T) {
	cs := []catalog.Column{{Name: "a", Type: types.BigIntT}}
	for _, cfg := range []Config{
		{Format: "csv", Columns: cs},
		{Path: "a", Format: "xml", Columns: cs},
		{Path: "a", Format: "csv", OnError: "retry", Columns: cs},
		{Path: "a", Format: "csv", BatchSize: -1, Columns: cs},
		{Path: "a", Format: "csv", Delimiter: '\n', Columns: cs},
		{Path: "a", Format: "csv", Columns: []catalog.Column{{Name: "d", Type: types.DecimalT(40, 2)}}},
	} {
		if _, err := New(cfg); err == nil || !strings.HasPrefix(err.Error(), "file connector: ") {
			t.Errorf("New(%+v) error = %v", cfg, err)
		}
	}
}
