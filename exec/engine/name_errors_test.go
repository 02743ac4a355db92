package engine

import (
	"testing"

	"github.com/eddysql/eddy/catalog"
)

// TestNameErrorsHaveCatalogCodes checks that the errors about an unknown or
// a duplicate name, which front ends map to codes of their own (the MySQL
// server's 1146 and 1050), carry the catalog's code under their position.
func TestNameErrorsHaveCatalogCodes(t *testing.T) {
	s := newSession(t, Config{})
	run(t, s, "CREATE STREAM s (a BIGINT);")
	for _, tc := range []struct {
		stmt string
		code catalog.ErrorCode
	}{
		{"SELECT * FROM nope;", catalog.ErrNotFound},
		{"INSERT INTO nope VALUES (1);", catalog.ErrNotFound},
		{"DROP STREAM nope;", catalog.ErrNotFound},
		{"DESCRIBE nope;", catalog.ErrNotFound},
		{"CREATE STREAM s (a BIGINT);", catalog.ErrExists},
		{"CREATE TABLE s (a BIGINT, PRIMARY KEY (a));", catalog.ErrExists},
	} {
		_, err := execOne(t, s, tc.stmt)
		if err == nil {
			t.Fatalf("%s: no error", tc.stmt)
		}
		if !catalog.IsCode(err, tc.code) {
			t.Errorf("%s: %v (%T) does not have catalog code %d", tc.stmt, err, err, tc.code)
		}
	}
	if _, err := execOne(t, s, "SELECT x FROM s;"); catalog.IsCode(err, catalog.ErrNotFound) {
		t.Errorf("an unknown column is not an unknown object: %v", err)
	}
}
