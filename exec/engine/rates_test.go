package engine

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// waitRates polls the rates of query name until ready accepts them, for up
// to 20 seconds.
func waitRates(t *testing.T, e *Engine, name string, ready func(QueryRates) bool) QueryRates {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, ok := e.QueryRates(name)
		if ok && ready(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rates of %s never became ready: %+v (ok %v)", name, r, ok)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestBottleneckSlowExpression: a sink whose projection evaluates an
// expensive expression (a regular expression over a 4,000-character
// string per row) over a throttled generator names that projection its
// bottleneck — in QueryRates, EXPLAIN ANALYZE and SHOW QUERIES — with its
// capacity, and, with latency markers on, shows the latency percentiles.
func TestBottleneckSlowExpression(t *testing.T) {
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `
		SET policy_interval = '100ms';
		SET latency_interval = '10ms';
		CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', rate = '500');
		CREATE SINK slow AS SELECT auction, REGEXP_EXTRACT(LPAD(CAST(price AS VARCHAR), 4000, 'ab'), '(ab)+c') AS x
			FROM bid WITH (connector = 'blackhole');`)
	r := waitRates(t, s.eng, "slow", func(r QueryRates) bool {
		return r.Interval.Seq >= 2 && r.Interval.Latency.Markers > 0 && r.Diagnosis.Bottleneck >= 0
	})
	if r.Policy != 100*time.Millisecond || r.Latency != 10*time.Millisecond {
		t.Errorf("policy interval %v, latency interval %v", r.Policy, r.Latency)
	}
	b := r.Interval.Ops[r.Diagnosis.Bottleneck]
	if !strings.HasPrefix(b.Total.Name, "Calc") || r.Diagnosis.Capacity <= 0 {
		var names []string
		for _, o := range r.Interval.Ops {
			names = append(names, fmt.Sprintf("%s %.3f", o.Total.Name, o.Utilization()))
		}
		t.Fatalf("bottleneck %q with capacity %v, want the Calc; utilization: %s", b.Total.Name, r.Diagnosis.Capacity,
			strings.Join(names, ", "))
	}
	plan := text(run(t, s, "EXPLAIN ANALYZE slow;"))
	for _, want := range []string{
		`(?m)^rates: interval [0-9]+ of [0-9.]+m?s, ended [0-9.]+[mµn]?s ago: bottleneck Calc .*\([0-9.]+% busy\), capacity [0-9.]+ rows/s$`,
		`(?m)^latency: p50=[0-9.]+[µm]?s p95=[0-9.]+[µm]?s p99=[0-9.]+[µm]?s max=[0-9.]+[µm]?s \([0-9]+ markers\)$`,
		`(?m)Calc .*\] \{λp=[0-9.]+/s λo=[0-9.]+/s in=[0-9.]+/s out=[0-9.]+/s sel=[0-9.]+\} <- bottleneck$`,
		`(?m)Source bid .*\] \{λp=[0-9.]+/s λo=[0-9.]+/s in=[0-9.]+/s out=[0-9.]+/s sel=[0-9.]+\}$`,
	} {
		if !regexp.MustCompile(want).MatchString(plan) {
			t.Errorf("EXPLAIN ANALYZE does not match %s:\n%s", want, plan)
		}
	}
	row := showRow(t, s, "QUERIES", "slow")
	if want := `^slow \| sink \| running \| .* \| Calc [^|]* \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+$`; !regexp.MustCompile(want).MatchString(row) {
		t.Errorf("SHOW QUERIES: slow is %q, want /%s/", row, want)
	}
}

// TestKeySkewShown: a GROUP BY over a hot key at parallelism 2 shows, in
// EXPLAIN ANALYZE, the instance of the aggregate receiving most rows with
// its share; latency markers stay off and show as such.
func TestKeySkewShown(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2})
	run(t, s, `
		SET policy_interval = '50ms';
		SET two_phase_agg = off;
		CREATE STREAM ev (k BIGINT, v BIGINT);
		CREATE MATERIALIZED VIEW per_key AS SELECT k, COUNT(*) AS n FROM ev GROUP BY k;`)
	// Nine rows of ten have key 1; every key but 1 appears once.
	var b strings.Builder
	b.WriteString("INSERT INTO ev VALUES ")
	for i := range 2000 {
		k := 1
		if i%10 == 0 {
			k = 1000 + i
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %d)", k, i)
	}
	insert := b.String() + ";"
	// An interval must catch rows in flight: on a loaded machine that can
	// take many inserts.
	deadline := time.Now().Add(time.Minute)
	for {
		run(t, s, insert)
		if r, ok := s.eng.QueryRates("per_key"); ok && len(r.Diagnosis.Skews) > 0 {
			sk := r.Diagnosis.Skews[0]
			if name := r.Interval.Ops[sk.Op].Total.Name; !strings.HasPrefix(name, "HashAggregate") || sk.Share < 0.85 {
				t.Fatalf("skew at %s instance %d with share %v, want the aggregate's hot instance with 90%% of the rows", name,
					sk.Instance, sk.Share)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no key skew found")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// EXPLAIN ANALYZE reads the last interval, which may have ended since:
	// insert until one of its intervals shows the skew too.
	for {
		run(t, s, insert)
		plan := text(run(t, s, "EXPLAIN ANALYZE per_key;"))
		want := `(?m)^key skew: HashAggregate .* instance [01] received [0-9]+ of [0-9]+ rows \((8[5-9]|9[0-9]|100)\.[0-9]%\), ([0-9.]+|\+Inf) times the median instance's$`
		if regexp.MustCompile(want).MatchString(plan) {
			if !strings.Contains(plan, "latency: off") {
				t.Errorf("EXPLAIN ANALYZE shows latency markers on:\n%s", plan)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("EXPLAIN ANALYZE never matched %s:\n%s", want, plan)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if row := showRow(t, s, "QUERIES", "per_key"); !strings.HasSuffix(row, "| NULL | NULL | NULL") {
		t.Errorf("SHOW QUERIES: per_key is %q, want NULL latencies", row)
	}
}

// TestRateSettings: SET policy_interval and latency_interval check their
// values, and a query keeps the ones its session had when it was created,
// after a restart too.
func TestRateSettings(t *testing.T) {
	dir := t.TempDir()
	e := openAt(t, dir)
	s := e.NewSession(SessionOptions{})
	for stmt, want := range map[string]string{
		"SET policy_interval = '5ms'":       "policy_interval must be a duration of at least 10ms",
		"SET policy_interval = '0'":         "policy_interval must be a duration of at least 10ms",
		"SET latency_interval = 'soon'":     "latency_interval must be a duration of at least 1ms",
		"SET latency_interval = '100us'":    "latency_interval must be a duration of at least 1ms",
		"SET policy_interval = 'sometimes'": "policy_interval must be",
	} {
		if _, err := execOne(t, s, stmt); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", stmt, err, want)
		}
	}
	run(t, s, `
		CREATE STREAM ev (a BIGINT);
		CREATE MATERIALIZED VIEW plain AS SELECT a FROM ev;
		SET policy_interval = '250ms';
		SET latency_interval = '2s';
		CREATE MATERIALIZED VIEW timed AS SELECT a FROM ev;
		SET latency_interval = off;
		CREATE MATERIALIZED VIEW untimed AS SELECT a FROM ev;`)
	check := func(e *Engine) {
		t.Helper()
		for name, want := range map[string][2]time.Duration{
			"plain":   {DefaultPolicyInterval, 0},
			"timed":   {250 * time.Millisecond, 2 * time.Second},
			"untimed": {250 * time.Millisecond, 0},
		} {
			r, _ := e.QueryRates(name)
			if r.Policy != want[0] || r.Latency != want[1] {
				t.Errorf("%s: policy interval %v, latency interval %v; want %v, %v", name, r.Policy, r.Latency, want[0], want[1])
			}
		}
	}
	check(e)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openAt(t, dir)
	defer e.Close()
	check(e)
	if _, ok := e.QueryRates("nothing"); ok {
		t.Error("rates of a query that does not exist")
	}
}
