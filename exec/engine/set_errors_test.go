package engine

import (
	"errors"
	"testing"

	"github.com/eddysql/eddy/sql"
)

// TestSetErrorsShowTheirLine checks that a bad SET points at its name or
// value with the line and a caret, as every other statement's errors do
// (front ends print the snippet; eddy serve sends it with the message).
func TestSetErrorsShowTheirLine(t *testing.T) {
	s := newSession(t, Config{})
	for _, tc := range []struct {
		stmt, snippet string
	}{
		{"SET nonsense = 1;", "SET nonsense = 1;\n    ^"},
		{"SET optimizer = maybe;", "SET optimizer = maybe;\n                ^"},
		{"SET checkpoint_interval = 'often';", "SET checkpoint_interval = 'often';\n                          ^"},
		{"SET parallelism = 0;", "SET parallelism = 0;\n                  ^"},
		{"SET join_distribution = sometimes;", "SET join_distribution = sometimes;\n                        ^"},
	} {
		_, err := execOne(t, s, tc.stmt)
		var pe sql.PosError
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %v is not positioned", tc.stmt, err)
			continue
		}
		if got := pe.Snippet(); got != tc.snippet {
			t.Errorf("%s: snippet\n%s\nwant\n%s", tc.stmt, got, tc.snippet)
		}
	}
}
