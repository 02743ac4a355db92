// Package conntest holds what the connectors' tests share: the table of
// cases of a connector's FromOptions, run the same way for every
// connector, and file roots. It is test support: no connector imports it.
package conntest

import (
	"errors"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

// OptionCase is one case of a connector's FromOptions test: the WITH
// options, and either the config they make or the error they are refused
// with.
type OptionCase[C any] struct {
	Name    string
	Opts    map[string]string
	Want    C      // compared by the test's check
	WantErr string // the error text, or "" for success
	Option  string // the option the error names
}

// RunOptions runs every case as a subtest: parse makes a config of the
// case's options. A case refused must fail with the text WantErr, in which
// root, if not empty, replaces "<root>", and with an error of type E (the
// connector's option error) that names Option. check compares a config
// made with the case's Want.
func RunOptions[C any, E connector.OptionError](t *testing.T, cases []OptionCase[C], root string,
	parse func(map[string]string) (C, error), check func(t *testing.T, got, want C)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			got, err := parse(tc.Opts)
			if tc.WantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				check(t, got, tc.Want)
				return
			}
			want := tc.WantErr
			if root != "" {
				want = strings.ReplaceAll(want, "<root>", root)
			}
			if err == nil || err.Error() != want {
				t.Fatalf("error %v, want %q", err, want)
			}
			var oe E
			if !errors.As(err, &oe) || oe.OptionName() != tc.Option {
				t.Fatalf("error %#v is not an option error naming %q", err, tc.Option)
			}
		})
	}
}

// RootAt returns the file root dir, with no data directory.
func RootAt(t testing.TB, dir string) fileroot.Root {
	t.Helper()
	r, err := fileroot.New(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	return r
}
