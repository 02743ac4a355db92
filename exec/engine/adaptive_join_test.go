package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

// adaptiveSchema is the input of the adaptive join tests: 2000 bids read
// in two parallel splits (their left side runs at parallelism 2, as a
// broadcast join's must) and a table of bidders, which keeps the job
// running after the bids end.
const adaptiveSchema = `CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', events = '2000');
	CREATE TABLE dim (id BIGINT PRIMARY KEY, name VARCHAR);
	INSERT INTO dim VALUES (1000, 'first');
	ANALYZE dim;
	SET broadcast_budget = '32KB';
	SET policy_interval = '20ms';`

// adaptiveQuery keeps the bids of the bidders in dim, but those named
// 'gone': a semi join, which the optimizer broadcasts while dim is small.
// Renaming a bidder 'gone' (an upsert) retracts it from the join's right
// side.
const adaptiveQuery = `SELECT auction, bidder, price FROM bid WHERE bidder IN (SELECT id FROM dim WHERE name <> 'gone')`

// waitForPlan polls EXPLAIN ANALYZE of view until it has every part (and
// none of those written "!part"), or fails the test after a generous
// deadline.
func waitForPlan(t *testing.T, s *Session, view string, parts ...string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		plan := text(run(t, s, "EXPLAIN ANALYZE "+view+";"))
		ok := true
		for _, p := range parts {
			if absent, ok2 := strings.CutPrefix(p, "!"); ok2 {
				ok = ok && !strings.Contains(plan, absent)
			} else {
				ok = ok && strings.Contains(plan, p)
			}
		}
		if ok {
			return plan
		}
		if time.Now().After(deadline) {
			t.Fatalf("EXPLAIN ANALYZE %s has not shown %q within a minute:\n%s", view, parts, plan)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAdaptiveJoinSwitches runs a view whose join was planned broadcast
// (dim held one row) while dim grows past the broadcast budget: the join
// switches to hash partitioning, and when dim shrinks well below it, back
// to broadcast. After each switch the view holds what the same query
// planned hash throughout holds, and what a batch query computes; a push
// query subscribed before the first switch integrates to the view's rows
// without retracting a row it did not hold; each switch leaves a notice
// and shows in EXPLAIN ANALYZE with its reason. A restart resumes the
// switched view from its checkpoint.
func TestAdaptiveJoinSwitches(t *testing.T) {
	e, s, cfg := checkpointedEngine(t, 2)
	run(t, s, adaptiveSchema+`
		CREATE MATERIALIZED VIEW v AS `+adaptiveQuery+`;
		SET join_distribution = hash;
		CREATE MATERIALIZED VIEW fixed AS `+adaptiveQuery+`;
		FLUSH;`)
	if plan := text(run(t, s, "EXPLAIN ANALYZE v;")); !strings.Contains(plan, "Exchange broadcast") || !strings.Contains(plan, "adaptive") {
		t.Fatalf("v's join is not an adaptive broadcast join:\n%s", plan)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	push := e.NewSession(SessionOptions{Interactive: true})
	res, err := execOne(t, push, "SELECT * FROM v EMIT CHANGES;")
	if err != nil {
		t.Fatal(err)
	}
	var ts []types.T
	for _, c := range res.Columns[1:] {
		ts = append(ts, c.Type)
	}
	log := &changelog{counts: map[string]int{}}
	pctx, pcancel := context.WithCancel(ctx)
	var readers sync.WaitGroup
	readers.Go(func() { log.read(pctx, res.Stream, ts) })
	defer func() {
		pcancel()
		readers.Wait()
		res.Stream.Close()
	}()

	same := func(when string) {
		t.Helper()
		run(t, s, "FLUSH;")
		got := viewRows(t, s, "v")
		if want := viewRows(t, s, "fixed"); got != want {
			t.Fatalf("%s v holds\n%s\nthe view planned hash throughout\n%s", when, got, want)
		}
		if want := strings.TrimSuffix(sorted(text(run(t, s, adaptiveQuery+";"))), "\n"); got != want {
			t.Fatalf("%s v holds\n%s\nthe batch query\n%s", when, got, want)
		}
		if got == "" {
			t.Fatalf("%s v holds no rows: the test joins nothing", when)
		}
		deadline := time.Now().Add(30 * time.Second)
		for log.rows() != got && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		log.mu.Lock()
		bad, perr := log.bad, log.err
		log.mu.Unlock()
		if rows := log.rows(); rows != got || len(bad) > 0 || perr != nil {
			t.Fatalf("%s the push query's changes integrate to\n%s\nwant\n%s\n(retractions of rows it did not hold: %q; error: %v)", when, rows, got, bad, perr)
		}
	}
	same("before any switch,")
	watch := e.NewSession(SessionOptions{}) // collects the notices from here on

	// dim grows past the budget: 3000 bidders, in batches.
	for b := range 10 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO dim VALUES ")
		for i := range 300 {
			if i > 0 {
				sb.WriteString(", ")
			}
			id := 1001 + b*300 + i
			fmt.Fprintf(&sb, "(%d, 'bidder %d')", id, id)
		}
		run(t, s, sb.String()+";")
	}
	plan := waitForPlan(t, s, "v", "switched broadcast → hash at checkpoint", "Exchange hash(bidder)")
	if !strings.Contains(plan, "> broadcast budget 32.00 KiB") && !strings.Contains(plan, "more than twice hashing's") {
		t.Errorf("the switch gives no reason:\n%s", plan)
	}
	same("after the switch to hash,")

	// dim shrinks well below it: all but 20 bidders are gone.
	for b := range 10 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO dim VALUES ")
		for i := range 300 {
			if id := 1001 + b*300 + i; id > 1020 {
				if !strings.HasSuffix(sb.String(), "VALUES ") {
					sb.WriteString(", ")
				}
				fmt.Fprintf(&sb, "(%d, 'gone')", id)
			}
		}
		run(t, s, sb.String()+";")
	}
	plan = waitForPlan(t, s, "v", "switched hash → broadcast at checkpoint", "Exchange broadcast")
	if !strings.Contains(plan, "< half the broadcast budget 32.00 KiB") || !strings.Contains(plan, "switched broadcast → hash at checkpoint") {
		t.Errorf("EXPLAIN ANALYZE does not show both switches with their reasons:\n%s", plan)
	}
	same("after the switch back to broadcast,")
	notices := strings.Join(run(t, watch, "SELECT 1;").Notices, "\n")
	for _, want := range []string{"switched broadcast → hash at checkpoint", "switched hash → broadcast at checkpoint"} {
		if !strings.Contains(notices, want) {
			t.Errorf("no notice says %q:\n%s", want, notices)
		}
	}

	checkpointNow(t, e, "v")
	want := viewRows(t, s, "v")
	pcancel()
	readers.Wait()
	res.Stream.Close()
	e, s = restart(t, e, cfg)
	r := run(t, s, "SELECT * FROM v;")
	wantNotice(t, r, "materialized view v resumed from its checkpoint")
	if got := strings.TrimSuffix(sorted(text(r)), "\n"); got != want {
		t.Fatalf("after the restart v holds\n%s\nwant\n%s", got, want)
	}
	plan = text(run(t, s, "EXPLAIN ANALYZE v;"))
	if !strings.Contains(plan, "switched hash → broadcast at checkpoint") || !strings.Contains(plan, "Exchange broadcast") {
		t.Fatalf("after the restart v's join is not the switched one:\n%s", plan)
	}
	run(t, s, "INSERT INTO dim VALUES (1021, 'again'); FLUSH;")
	if got, want := viewRows(t, s, "v"), strings.TrimSuffix(sorted(text(run(t, s, adaptiveQuery+";"))), "\n"); got != want {
		t.Fatalf("after the restart and a change v holds\n%s\nthe batch query\n%s", got, want)
	}
	_ = e
}

// TestAdaptiveLookupJoinSwitches runs a lookup join of bids with a table
// planned broadcast (the table held one row) while the table grows past
// the budget: it switches to hash partitioning, moving the table's rows,
// and its view keeps the rows the same view planned hash throughout
// holds.
func TestAdaptiveLookupJoinSwitches(t *testing.T) {
	_, s, _ := checkpointedEngine(t, 2)
	const q = `SELECT b.auction, b.price, d.name FROM bid b JOIN dim d ON b.bidder = d.id`
	run(t, s, adaptiveSchema+`
		CREATE MATERIALIZED VIEW v AS `+q+`;
		SET join_distribution = hash;
		CREATE MATERIALIZED VIEW fixed AS `+q+`;
		FLUSH;`)
	if plan := text(run(t, s, "EXPLAIN ANALYZE v;")); !strings.Contains(plan, "LookupJoin Inner keys=[b.bidder = d.id] adaptive") ||
		!strings.Contains(plan, "Exchange broadcast") {
		t.Fatalf("v's join is not an adaptive broadcast lookup join:\n%s", plan)
	}
	for b := range 10 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO dim VALUES ")
		for i := range 300 {
			if i > 0 {
				sb.WriteString(", ")
			}
			id := 1001 + b*300 + i
			fmt.Fprintf(&sb, "(%d, 'bidder %d')", id, id)
		}
		run(t, s, sb.String()+";")
	}
	waitForPlan(t, s, "v", "switched broadcast → hash at checkpoint", "Exchange hash(bidder)")
	run(t, s, "FLUSH;")
	got := viewRows(t, s, "v")
	if want := viewRows(t, s, "fixed"); got != want || got == "" {
		t.Fatalf("after the switch v holds\n%s\nthe view planned hash throughout\n%s", got, want)
	}
}

// growDim inserts 3000 bidders into dim, past the 32 KiB budget of
// adaptiveSchema's joins.
func growDim(t *testing.T, s *Session, name string) {
	t.Helper()
	for b := range 10 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO dim VALUES ")
		for i := range 300 {
			if i > 0 {
				sb.WriteString(", ")
			}
			id := 1001 + b*300 + i
			fmt.Fprintf(&sb, "(%d, '%s')", id, name)
		}
		run(t, s, sb.String()+";")
	}
}

// TestAdaptiveJoinRetractingLeft runs a join whose left input retracts (an
// aggregate's updates) planned broadcast. A rescale is refused, as its
// left rows would move into broadcast replicas elsewhere than their
// retractions arrive; the switch to hash as the table grows is correct and
// happens; and the switch back, which would move them so, never does.
func TestAdaptiveJoinRetractingLeft(t *testing.T) {
	_, s, _ := checkpointedEngine(t, 2)
	const q = `SELECT auction, n FROM (SELECT bidder AS auction, COUNT(*) AS n FROM bids GROUP BY bidder) a
		WHERE auction IN (SELECT id FROM dim WHERE name <> 'gone')`
	var sb strings.Builder
	sb.WriteString("INSERT INTO bids VALUES ")
	for i := range 2000 {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "(%d, %d)", 1000+i*7%3000, i)
	}
	run(t, s, `CREATE STREAM bids (bidder BIGINT, price BIGINT);
		CREATE TABLE dim (id BIGINT PRIMARY KEY, name VARCHAR);
		INSERT INTO dim VALUES (1000, 'first');
		ANALYZE dim;
		SET broadcast_budget = '32KB';
		SET policy_interval = '20ms';
		CREATE MATERIALIZED VIEW v AS `+q+`;`+sb.String()+`;
		FLUSH;`)
	if plan := text(run(t, s, "EXPLAIN ANALYZE v;")); !strings.Contains(plan, "adaptive") || !strings.Contains(plan, "Exchange broadcast") {
		t.Fatalf("v's join is not an adaptive broadcast join:\n%s", plan)
	}
	_, err := execOne(t, s, "ALTER MATERIALIZED VIEW v SET (parallelism = 3);")
	if err == nil || !strings.Contains(err.Error(), "not supported yet") || !strings.Contains(err.Error(), "its left input retracts rows") {
		t.Fatalf("a rescale of a broadcast join over a retracting left input: %v, want it refused", err)
	}
	growDim(t, s, "bidder")
	// Hashed: the right side no longer broadcast. (The left side, an
	// aggregate by the join key, is forwarded either way: its rows are on
	// the instance of their key's hash already.)
	waitForPlan(t, s, "v", "switched broadcast → hash at checkpoint", "!Exchange broadcast")
	check := func(when string) {
		t.Helper()
		run(t, s, "FLUSH;")
		got := viewRows(t, s, "v")
		if want := strings.TrimSuffix(sorted(text(run(t, s, q+";"))), "\n"); got != want || got == "" {
			t.Fatalf("%s v holds\n%s\nthe batch query\n%s", when, got, want)
		}
	}
	check("after the switch to hash,")
	run(t, s, sb.String()+";") // the counts change: the left retracts
	growDim(t, s, "gone")
	run(t, s, "FLUSH;")
	time.Sleep(20 * 20 * time.Millisecond) // twenty policy intervals
	if plan := text(run(t, s, "EXPLAIN ANALYZE v;")); strings.Contains(plan, "Exchange broadcast") || strings.Contains(plan, "hash → broadcast") {
		t.Fatalf("v's join over a retracting left input switched back to broadcast:\n%s", plan)
	}
	check("with dim shrunk,")
}

// TestJoinSwitchHistory: a query keeps its latest switches, the latest of
// every join among them however old, and plans each join's latest.
func TestJoinSwitchHistory(t *testing.T) {
	var cs []catalog.JoinSwitch
	cs = withSwitch(cs, catalog.JoinSwitch{Join: 2, Distribution: distHash, Why: "join 2 once"})
	for i := range 2 * switchHistory {
		d := distHash
		if i%2 == 1 {
			d = distBroadcast
		}
		cs = withSwitch(cs, catalog.JoinSwitch{Join: 1, Distribution: d, Why: fmt.Sprint("join 1 switch ", i)})
	}
	if len(cs) != switchHistory {
		t.Fatalf("%d switches kept, want %d", len(cs), switchHistory)
	}
	if cs[0].Why != "join 2 once" || cs[len(cs)-1].Why != fmt.Sprint("join 1 switch ", 2*switchHistory-1) {
		t.Fatalf("kept %v: want join 2's only switch and join 1's latest", cs)
	}
	ps := physicalSwitches(cs)
	if len(ps) != 2 || ps[0].Join != 2 || ps[0].Broadcast || ps[1].Join != 1 || !ps[1].Broadcast {
		t.Fatalf("planned %+v: want join 2 hash and join 1 broadcast", ps)
	}
}

// TestParseByteSize reads SET broadcast_budget's sizes.
func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{"10": 10, "10B": 10, "4 KB": 4 << 10, "64MB": 64 << 20, "1gib": 1 << 30, "3k": 3 << 10} {
		if got, err := parseByteSize(in); err != nil || got != want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "1.5MB", "-1", "99999999999GB"} {
		if got, err := parseByteSize(in); err == nil {
			t.Errorf("parseByteSize(%q) = %d, want an error", in, got)
		}
	}
}

// TestAdaptiveJoinSwitchesWhileBidsArrive switches a join to hash and back
// while bids arrive (4000 at 1000 a second) on its left side: once they
// have all arrived, the view holds what the batch query computes, and a
// push query subscribed before the switches integrates to it.
func TestAdaptiveJoinSwitchesWhileBidsArrive(t *testing.T) {
	e, s, _ := checkpointedEngine(t, 2)
	start := time.Now()
	run(t, s, strings.Replace(adaptiveSchema, "events = '2000'", "events = '4000', rate = '1000'", 1)+`
		CREATE MATERIALIZED VIEW v AS `+adaptiveQuery+`;`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	push := e.NewSession(SessionOptions{Interactive: true})
	res, err := execOne(t, push, "SELECT * FROM v EMIT CHANGES;")
	if err != nil {
		t.Fatal(err)
	}
	var ts []types.T
	for _, c := range res.Columns[1:] {
		ts = append(ts, c.Type)
	}
	log := &changelog{counts: map[string]int{}}
	pctx, pcancel := context.WithCancel(ctx)
	var readers sync.WaitGroup
	readers.Go(func() { log.read(pctx, res.Stream, ts) })
	defer func() {
		pcancel()
		readers.Wait()
		res.Stream.Close()
	}()
	growDim(t, s, "bidder")
	waitForPlan(t, s, "v", "switched broadcast → hash at checkpoint", "Exchange hash(bidder)")
	for b := range 10 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO dim VALUES ")
		for i := range 300 {
			if i > 0 {
				sb.WriteString(", ")
			}
			id := 1001 + b*300 + i
			name := "gone"
			if id%100 == 0 {
				name = "kept"
			}
			fmt.Fprintf(&sb, "(%d, '%s')", id, name)
		}
		run(t, s, sb.String()+";")
	}
	waitForPlan(t, s, "v", "switched hash → broadcast at checkpoint", "Exchange broadcast")
	// The bids take 4s to arrive: on a loaded machine the switches may come
	// after them, and the test checks less.
	t.Logf("both switches done %s after the bids started", time.Since(start).Round(time.Millisecond))
	want := strings.TrimSuffix(sorted(text(run(t, s, adaptiveQuery+";"))), "\n")
	deadline := time.Now().Add(60 * time.Second)
	got := ""
	for {
		run(t, s, "FLUSH;")
		if got = viewRows(t, s, "v"); got == want || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got != want {
		t.Fatalf("once the bids arrived v holds\n%s\nthe batch query\n%s", got, want)
	}
	for log.rows() != got && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	log.mu.Lock()
	bad, perr := log.bad, log.err
	log.mu.Unlock()
	if rows := log.rows(); rows != got || len(bad) > 0 || perr != nil {
		t.Fatalf("the push query's changes integrate to\n%s\nwant\n%s\n(retractions of rows it did not hold: %q; error: %v)", rows, got, bad, perr)
	}
}
