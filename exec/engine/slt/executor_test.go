package slt

import (
	"errors"
	"strings"
	"testing"

	"github.com/eddysql/eddy/sql"
)

func TestShiftPos(t *testing.T) {
	base := sql.Pos{Offset: 100, Line: 10, Col: 5}
	if got := shiftPos(base, sql.Pos{Offset: 3, Line: 1, Col: 4}); got != (sql.Pos{Offset: 103, Line: 10, Col: 8}) {
		t.Errorf("same line: %+v", got)
	}
	if got := shiftPos(base, sql.Pos{Offset: 20, Line: 3, Col: 2}); got != (sql.Pos{Offset: 120, Line: 12, Col: 2}) {
		t.Errorf("later line: %+v", got)
	}
}

func TestParseScript(t *testing.T) {
	base := sql.Pos{Offset: 40, Line: 10, Col: 1}
	stmts, err := parseScript("CREATE STREAM s (a BIGINT);\n  SHOW STREAMS", base)
	if err != nil || len(stmts) != 2 {
		t.Fatalf("got %d statements, %v", len(stmts), err)
	}
	if got := stmts[1].Source().Text(); got != "SHOW STREAMS" {
		t.Errorf("second statement %q", got)
	}
	_, err = parseScript("SHOW STREAMS;\nDROP BAD;", base)
	var pe sql.PosError
	if !errors.As(err, &pe) || pe.Position().Line != 11 {
		t.Fatalf("got %v, want a positioned error on line 11", err)
	}
	if want := "DROP BAD;"; !strings.HasPrefix(errorText(err), err.Error()+"\n"+want+"\n") {
		t.Errorf("the error text lacks the snippet: %q", errorText(err))
	}
}
