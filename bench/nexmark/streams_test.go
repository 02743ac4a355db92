package nexmark

import (
	"strings"
	"testing"

	"github.com/eddysql/eddy/sql"
)

func TestStreamDDL(t *testing.T) {
	ddl := StreamDDL(Config{Events: 5000})
	if len(ddl) != 3 {
		t.Fatalf("%d statements", len(ddl))
	}
	for i, want := range []string{
		"CREATE STREAM person (id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR, city VARCHAR, state VARCHAR, date_time TIMESTAMP(3), extra VARCHAR, ",
		"CREATE STREAM auction (id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT, date_time TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR, ",
		"CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP(3), extra VARCHAR, ",
	} {
		if !strings.HasPrefix(ddl[i], want) {
			t.Errorf("statement %d:\n%s\nwant prefix\n%s", i, ddl[i], want)
		}
		for _, part := range []string{"WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND)", "connector = 'nexmark'", "events = '5000'"} {
			if !strings.Contains(ddl[i], part) {
				t.Errorf("statement %d lacks %q: %s", i, part, ddl[i])
			}
		}
		if strings.Contains(ddl[i], "rate") {
			t.Errorf("an unthrottled stream has a rate: %s", ddl[i])
		}
		if _, err := sql.ParseOne(ddl[i], sql.Pos{Line: 1, Col: 1}); err != nil {
			t.Errorf("statement %d does not parse: %v", i, err)
		}
	}
	if ddl := StreamDDL(Config{Events: 1, Rate: 2500.5}); !strings.Contains(ddl[2], "rate = '2500.5'") {
		t.Errorf("rate: %s", ddl[2])
	}
	for i, s := range StreamDDL(Config{Events: 1, Generate: GenerateAll}) {
		if strings.Contains(s, "generate") {
			t.Errorf("statement %d: StreamDDL shares no generator work: %s", i, s)
		}
	}
	ddl = streamDDL(Config{Events: 1}, map[string][]string{"bid": {"bid", "person"}})
	if strings.Contains(ddl[0]+ddl[1], "generate") || !strings.HasSuffix(ddl[2], ", generate = 'bid, person');") {
		t.Errorf("generate lists:\n%s", strings.Join(ddl, "\n"))
	}
	if _, err := sql.ParseOne(ddl[2], sql.Pos{Line: 1, Col: 1}); err != nil {
		t.Errorf("%s does not parse: %v", ddl[2], err)
	}
}

func TestBaseline(t *testing.T) {
	q := Baseline()
	stmts, err := parseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	if q.Name != BaselineName || len(stmts) != 3 {
		t.Errorf("%s: %d statements", q.Name, len(stmts))
	}
	for _, table := range Tables {
		if !strings.Contains(q.Text, "SELECT * FROM "+table+" WITH (connector = 'blackhole')") {
			t.Errorf("no sink for %s in\n%s", table, q.Text)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		c   Config
		err string
	}{
		{Config{Events: 1}, ""},
		{Config{Events: 10_000_000, Parallelism: 4, Rate: 1e6}, ""},
		{Config{Events: 0}, "events"},
		{Config{Events: -5}, "events"},
		{Config{Events: 1, Parallelism: -1}, "parallelism"},
		{Config{Events: 1, Parallelism: 1000}, "parallelism"},
		{Config{Events: 1, Rate: -1}, "rate"},
		{Config{Events: 1, Generate: GenerateAll}, ""},
		{Config{Events: 1, Generate: GenerateRead}, ""},
		{Config{Events: 1, Generate: "bid"}, `generate must be "read" or "all", got "bid"`},
	} {
		err := tc.c.Validate()
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: error %v, want %q", tc.c, err, tc.err)
		}
	}
}
