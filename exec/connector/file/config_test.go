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
	"github.com/eddysql/eddy/exec/connector/conntest"
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

func TestFromOptions(t *testing.T) {
	cs := []catalog.Column{{Name: "a", Type: types.BigIntT, Nullable: true}}
	root := conntest.RootAt(t, t.TempDir())
	cases := []conntest.OptionCase[Config]{
		{Name: "csv with everything",
			Opts: map[string]string{"connector": "file", "path": "bids.csv", "format": "CSV", "header": "true",
				"follow": "TRUE", "on_error": "fail", "delimiter": ";"},
			Want: Config{Path: "bids.csv", Format: "csv", Header: true, Follow: true, OnError: "fail", Delimiter: ';'}},
		{Name: "defaults",
			Opts: map[string]string{"connector": "file", "path": "data/x.csv", "format": "csv"},
			Want: Config{Path: "data/x.csv", Format: "csv"}},
		{Name: "outside the root", Opts: map[string]string{"path": "/etc/passwd", "format": "csv"},
			Option: "path", WantErr: "file connector: option path: '/etc/passwd' is outside the file root <root>"},
		{Name: "escaping the root", Opts: map[string]string{"path": "../../x.csv"},
			Option: "path", WantErr: "file connector: option path: '../../x.csv' is outside the file root <root>"},
		{Name: "json",
			Opts: map[string]string{"path": "e.log", "format": "json", "follow": "false", "on_error": "skip"},
			Want: Config{Path: "e.log", Format: "json", OnError: "skip"}},
		{Name: "format from the extension",
			Opts: map[string]string{"path": "e.ndjson"},
			Want: Config{Path: "e.ndjson", Format: "json"}},
		{Name: "tab delimiter",
			Opts: map[string]string{"path": "t.csv", "delimiter": `\t`},
			Want: Config{Path: "t.csv", Format: "csv", Delimiter: '\t'}},
		{Name: "missing path", Opts: map[string]string{"connector": "file", "format": "csv"},
			Option: "path", WantErr: "file connector: option path: is required"},
		{Name: "empty path", Opts: map[string]string{"path": " ", "format": "csv"},
			Option: "path", WantErr: "file connector: option path: is required"},
		{Name: "unknown option", Opts: map[string]string{"path": "a.csv", "topic": "x", "brokers": "y"},
			Option: "brokers", WantErr: "file connector: option brokers: unknown option (valid: connector, path, format, header, follow, on_error, delimiter)"},
		{Name: "bad format", Opts: map[string]string{"path": "a.csv", "format": "xml"},
			Option: "format", WantErr: "file connector: option format: invalid value 'xml' (want 'csv' or 'json')"},
		{Name: "no format to infer", Opts: map[string]string{"path": "a.dat"},
			Option: "format", WantErr: "file connector: option format: is required (cannot infer it from the extension of 'a.dat'; want 'csv' or 'json')"},
		{Name: "bad header", Opts: map[string]string{"path": "a.csv", "header": "maybe"},
			Option: "header", WantErr: "file connector: option header: invalid value 'maybe' (want 'true' or 'false')"},
		{Name: "bad follow", Opts: map[string]string{"path": "a.csv", "follow": "1"},
			Option: "follow", WantErr: "file connector: option follow: invalid value '1' (want 'true' or 'false')"},
		{Name: "bad on_error", Opts: map[string]string{"path": "a.csv", "on_error": "retry"},
			Option: "on_error", WantErr: "file connector: option on_error: invalid value 'retry' (want 'skip' or 'fail')"},
		{Name: "long delimiter", Opts: map[string]string{"path": "a.csv", "delimiter": ";;"},
			Option: "delimiter", WantErr: "file connector: option delimiter: invalid value ';;' (want one ASCII character)"},
		{Name: "quote delimiter", Opts: map[string]string{"path": "a.csv", "delimiter": `"`},
			Option: "delimiter", WantErr: `file connector: option delimiter: invalid value '"' (a quote or line break cannot separate fields)`},
		{Name: "header on json", Opts: map[string]string{"path": "a.json", "header": "true"},
			Option: "header", WantErr: "file connector: option header: applies only to format 'csv'"},
		{Name: "delimiter on json", Opts: map[string]string{"path": "a.json", "delimiter": ","},
			Option: "delimiter", WantErr: "file connector: option delimiter: applies only to format 'csv'"},
		{Name: "other connector", Opts: map[string]string{"connector": "kafka", "path": "a.csv"},
			Option: "connector", WantErr: "file connector: option connector: is 'kafka', not 'file'"},
	}
	parse := func(opts map[string]string) (Config, error) { return FromOptions(opts, cs, root) }
	conntest.RunOptions[Config, *OptionError](t, cases, root.Dir(), parse, func(t *testing.T, got, want Config) {
		if got.Root != root || len(got.Columns) != len(cs) {
			t.Errorf("Root, Columns = %v, %v", got.Root, got.Columns)
		}
		got.Root, got.Columns = fileroot.Root{}, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("config = %+v, want %+v", got, want)
		}
	})
}

// TestFromOptionsColumns checks the declared columns: a file stream needs
// one, of a type a file can hold.
func TestFromOptionsColumns(t *testing.T) {
	root := conntest.RootAt(t, t.TempDir())
	for _, tt := range []struct {
		cols []catalog.Column
		want string
	}{
		{[]catalog.Column{}, "file connector: a file stream needs at least one column"},
		{[]catalog.Column{{Name: "gap", Type: types.IntervalT}}, "file connector: column gap: type INTERVAL cannot be read from a file"},
	} {
		if _, err := FromOptions(map[string]string{"path": "a.csv"}, tt.cols, root); err == nil || err.Error() != tt.want {
			t.Errorf("columns %v: error %v, want %q", tt.cols, err, tt.want)
		}
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
