package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// engineShell returns a shell on a session of a new in-memory engine on
// which script has run, and its stdout and stderr.
func engineShell(t *testing.T, script string) (*shell, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Config{Parallelism: 1, FileRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	sess := eng.NewSession(engine.SessionOptions{Interactive: true})
	for _, pc := range sql.Statements(script) {
		st, err := sql.ParseOne(pc.Text, pc.Start)
		if err == nil {
			_, err = sess.Execute(ctx, st)
		}
		if err != nil {
			t.Fatalf("%s: %v", pc.Text, err)
		}
	}
	var out, errOut bytes.Buffer
	sh := newShell(&runner{sess: sess, p: &printer{out: &out, errOut: &errOut}}, &fakeLines{}, nil, &out)
	return sh, &out, &errOut
}

const describeScript = `CREATE STREAM bid (auction BIGINT NOT NULL, price BIGINT, date_time TIMESTAMP(3),
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND) WITH (idle_timeout = '2s');
CREATE TABLE person (id BIGINT, name VARCHAR, PRIMARY KEY (id));
CREATE MATERIALIZED VIEW per_auction AS SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction;
CREATE SINK k FROM per_auction WITH (connector = 'blackhole');`

// TestShellListsObjects checks \d: every object with its kind.
func TestShellListsObjects(t *testing.T) {
	sh, out, errOut := engineShell(t, describeScript)
	sh.meta(context.Background(), `\d`)
	want := `+-------------+-------------------+-----------+---------+
| name        | kind              | connector | status  |
+-------------+-------------------+-----------+---------+
| bid         | stream            | insert    |         |
| k           | sink              | blackhole | running |
| per_auction | materialized view |           | running |
| person      | table             | insert    |         |
+-------------+-------------------+-----------+---------+
(4 rows)
`
	if out.String() != want || errOut.Len() != 0 {
		t.Errorf("stdout\n%s\nwant\n%s\nstderr %q", out, want, errOut)
	}
}

// TestShellDescribesObjects checks \d NAME for each kind, and the error of
// an unknown name.
func TestShellDescribesObjects(t *testing.T) {
	sh, out, errOut := engineShell(t, describeScript)
	for name, want := range map[string]string{
		"bid": `Stream bid
+-----------+--------------+----------+-----+
| column    | type         | nullable | key |
+-----------+--------------+----------+-----+
| auction   | BIGINT       | NO       |     |
| price     | BIGINT       | YES      |     |
| date_time | TIMESTAMP(3) | YES      |     |
+-----------+--------------+----------+-----+
Watermark: date_time - INTERVAL '4' SECOND
Options: idle_timeout = '2s'
`,
		"Person": `Table Person
+--------+---------+----------+-----+
| column | type    | nullable | key |
+--------+---------+----------+-----+
| id     | BIGINT  | NO       | PRI |
| name   | VARCHAR | YES      |     |
+--------+---------+----------+-----+
Primary key: id
`,
		"per_auction": `Materialized view per_auction
+---------+--------+----------+-----+
| column  | type   | nullable | key |
+---------+--------+----------+-----+
| auction | BIGINT | NO       | UNI |
| n       | BIGINT | NO       |     |
+---------+--------+----------+-----+
Unique key: auction
Query: SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction
`,
		"`k`": `Sink k
+---------+--------+----------+-----+
| column  | type   | nullable | key |
+---------+--------+----------+-----+
| auction | BIGINT | NO       |     |
| n       | BIGINT | NO       |     |
+---------+--------+----------+-----+
Connector: blackhole
From: per_auction
`,
	} {
		out.Reset()
		sh.meta(context.Background(), `\d `+name)
		if out.String() != want {
			t.Errorf(`\d %s:\n%s\nwant\n%s`, name, out, want)
		}
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr %q", errOut)
	}
	sh.meta(context.Background(), `\d nope`)
	if got := errOut.String(); got != "ERROR: \\d: unknown stream, table, view or sink 'nope'\n" {
		t.Errorf("stderr %q", got)
	}
}

// TestShellExpandedAndPagerCommands checks \x and \pager and what they
// say.
func TestShellExpandedAndPagerCommands(t *testing.T) {
	sh, out, errOut := engineShell(t, "")
	for _, cmd := range []string{`\x`, `\x`, `\x auto`, `\x on`, `\x sideways`, `\pager off`, `\pager`} {
		sh.meta(context.Background(), cmd)
	}
	want := "Expanded display is on.\nExpanded display is off.\nExpanded display is auto.\nExpanded display is on.\n" +
		"Pager is off.\nPager is on, but there is none: set $PAGER, or install less.\n"
	if out.String() != want {
		t.Errorf("stdout\n%s\nwant\n%s", out, want)
	}
	if !strings.Contains(errOut.String(), `usage: \x [on|off|auto]`) {
		t.Errorf("stderr %q", errOut)
	}
	if sh.r.p.expanded != expandedOn {
		t.Errorf("expanded %v", sh.r.p.expanded)
	}
}

// TestMetaCommandsAreKnown checks that every meta command completion
// offers is one the shell runs and \help lists, and that every argument
// it offers is accepted.
func TestMetaCommandsAreKnown(t *testing.T) {
	for _, cmd := range metaCommands {
		if !strings.Contains(helpText, cmd) {
			t.Errorf("%s is not in \\help", cmd)
		}
		if cmd == `\q` || cmd == `\quit` {
			continue
		}
		args := append([]string{""}, metaArgs[cmd]...)
		for _, arg := range args {
			sh, _, errOut := engineShell(t, "")
			if sh.meta(context.Background(), strings.TrimSpace(cmd+" "+arg)) || errOut.Len() != 0 {
				t.Errorf("%s %s: stderr %q", cmd, arg, errOut)
			}
		}
	}
}
