package cluster

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// testTopic is the command topic of the tests; OpenCommandLog creates it.
const testTopic = "eddy-commands"

// waitBound bounds every wait of the tests: a failure, not a measurement.
const waitBound = 10 * time.Second

// errRefused is what a member's apply returns for a statement starting
// with FAIL.
var errRefused = errors.New("refused")

// startCluster starts an in-process Kafka cluster, closed when t ends, and
// returns its brokers.
func startCluster(t *testing.T, opts ...kfake.Opt) []string {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

// entry is one command as a member applied it.
type entry struct {
	off      int64
	sql      string
	issuer   string
	settings string
}

// member is a test member: its apply records every command it sees and
// returns "name@offset", an error for FAIL..., panics for PANIC and, if
// slow, blocks on SLOW until its context is done.
type member struct {
	name string
	slow bool
	mu   sync.Mutex
	seen []entry
}

// apply records cmd and answers as the member's doc comment says.
func (m *member) apply(ctx context.Context, off int64, cmd Command) (any, error) {
	m.mu.Lock()
	m.seen = append(m.seen, entry{off, cmd.SQL, cmd.Member, fmt.Sprint(cmd.Settings)})
	m.mu.Unlock()
	switch {
	case strings.HasPrefix(cmd.SQL, "FAIL"):
		return nil, fmt.Errorf("%s: %w", cmd.SQL, errRefused)
	case cmd.SQL == "PANIC":
		panic("boom")
	case cmd.SQL == "SLOW" && m.slow:
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return fmt.Sprintf("%s@%d", m.name, off), nil
}

// entries returns a copy of what m has applied so far.
func (m *member) entries() []entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.seen)
}

// open opens m's command log on brokers, closed when t ends.
func open(t *testing.T, brokers []string, m *member, onError func(int64, error)) *CommandLog {
	t.Helper()
	cfg := CommandLogConfig{Brokers: brokers, Topic: testTopic, Member: m.name, OnError: onError}
	l, err := OpenCommandLog(context.Background(), cfg, m.apply)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	if err := l.Ready(ctx); err != nil {
		t.Fatalf("%s: Ready: %v", m.name, err)
	}
	return l
}

// submit submits sql on l and returns its result, failing t on an error.
func submit(t *testing.T, l *CommandLog, sql string, settings map[string]string) any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	res, err := l.Submit(ctx, sql, settings)
	if err != nil {
		t.Fatalf("Submit(%q): %v", sql, err)
	}
	return res
}

// waitApplied waits until l has applied offset off.
func waitApplied(t *testing.T, l *CommandLog, off int64) {
	t.Helper()
	for deadline := time.Now().Add(waitBound); l.Applied() < off; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("applied %d, still waiting for %d", l.Applied(), off)
		}
	}
}

func TestOpenCreatesTopic(t *testing.T) {
	brokers := startCluster(t, kfake.SeedTopics(3, "wide"))
	open(t, brokers, &member{name: "a"}, nil)
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	td, err := adm.ListTopics(context.Background(), testTopic)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(td[testTopic].Partitions); n != 1 {
		t.Errorf("partitions %d, want 1", n)
	}
	rcs, err := adm.DescribeTopicConfigs(context.Background(), testTopic)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := rcs.On(testTopic, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range rc.Configs {
		got[c.Key] = c.MaybeValue()
	}
	if got["retention.ms"] != "-1" || got["cleanup.policy"] != "delete" {
		t.Errorf("retention.ms %q, cleanup.policy %q; want -1, delete", got["retention.ms"], got["cleanup.policy"])
	}
	cfg := CommandLogConfig{Brokers: brokers, Topic: "wide", Member: "a"}
	if l, err := OpenCommandLog(context.Background(), cfg, (&member{}).apply); err == nil {
		l.Close()
		t.Error("opened a command log on a topic of 3 partitions")
	}
}

func TestTwoMembersApplyTheSameSequence(t *testing.T) {
	brokers := startCluster(t)
	a, b := &member{name: "a"}, &member{name: "b"}
	la, lb := open(t, brokers, a, nil), open(t, brokers, b, nil)
	// Alternate the issuers: the topic's order is the order of submission,
	// and each Submit returns its own member's result for its own offset.
	var want []entry
	for i := range 6 {
		l, m := la, a
		if i%2 == 1 {
			l, m = lb, b
		}
		sql := fmt.Sprintf("CREATE STREAM s%d", i)
		settings := map[string]string{"n": fmt.Sprint(i)}
		if res, wantRes := submit(t, l, sql, settings), fmt.Sprintf("%s@%d", m.name, i); res != wantRes {
			t.Errorf("Submit(%q) on %s = %v, want %v", sql, m.name, res, wantRes)
		}
		want = append(want, entry{int64(i), sql, m.name, fmt.Sprint(settings)})
	}
	// Then both at once: any interleaving, the same on both members.
	var wg sync.WaitGroup
	for _, l := range []*CommandLog{la, lb} {
		for i := range 10 {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), waitBound)
				defer cancel()
				if _, err := l.Submit(ctx, fmt.Sprintf("CREATE TABLE t%d", i), nil); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	waitApplied(t, la, 25)
	waitApplied(t, lb, 25)
	ea, eb := a.entries(), b.entries()
	if len(ea) != 26 || !slices.Equal(ea, eb) {
		t.Fatalf("members disagree:\na: %v\nb: %v", ea, eb)
	}
	if !slices.Equal(ea[:6], want) {
		t.Errorf("first commands %v, want %v", ea[:6], want)
	}
	for i, e := range ea {
		if e.off != int64(i) {
			t.Errorf("command %d applied at offset %d", i, e.off)
		}
	}
}

func TestSubmitReturnsApplyError(t *testing.T) {
	brokers := startCluster(t)
	a, b := &member{name: "a"}, &member{name: "b"}
	la, lb := open(t, brokers, a, nil), open(t, brokers, b, nil)
	ctx := context.Background()
	if res, err := la.Submit(ctx, "FAIL DROP STREAM missing", nil); !errors.Is(err, errRefused) || res != nil {
		t.Errorf("Submit(FAIL...) = %v, %v; want nil, %v", res, err, errRefused)
	}
	if _, err := lb.Submit(ctx, "PANIC", nil); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("Submit(PANIC) = %v, want a panic turned into an error", err)
	}
	if _, err := la.Submit(ctx, "", nil); err == nil {
		t.Error("Submit of an empty statement succeeded")
	}
	// Neither error stops the log, on the issuer or elsewhere.
	if res := submit(t, la, "CREATE STREAM s", nil); res != "a@2" {
		t.Errorf("Submit after errors = %v, want a@2", res)
	}
	waitApplied(t, lb, 2)
	if got := len(b.entries()); got != 3 {
		t.Errorf("b applied %d commands, want 3", got)
	}
}

func TestLateMemberReplays(t *testing.T) {
	brokers := startCluster(t)
	a := &member{name: "a"}
	la := open(t, brokers, a, nil)
	submit(t, la, "CREATE STREAM s", map[string]string{"timezone": "UTC"})
	if _, err := la.Submit(context.Background(), "FAIL CREATE STREAM s", nil); !errors.Is(err, errRefused) {
		t.Errorf("Submit(FAIL...) = %v, want %v", err, errRefused)
	}
	submit(t, la, "CREATE MATERIALIZED VIEW v", nil)
	c := &member{name: "c"}
	lc := open(t, brokers, c, nil) // returns after Ready
	if ec, ea := c.entries(), a.entries(); !slices.Equal(ec, ea) || lc.Applied() != 2 {
		t.Fatalf("after Ready c applied %v (up to %d), want %v", ec, lc.Applied(), ea)
	}
	// Commands after Ready reach the late member, and its own reach the others.
	submit(t, la, "DROP MATERIALIZED VIEW v", nil)
	if res := submit(t, lc, "CREATE TABLE t", nil); res != "c@4" {
		t.Errorf("late member's Submit = %v, want c@4", res)
	}
	waitApplied(t, la, 4)
	if ec, ea := c.entries(), a.entries(); len(ec) != 5 || !slices.Equal(ec, ea) {
		t.Errorf("members disagree:\na: %v\nc: %v", ea, ec)
	}
}

func TestMalformedRecordIsSkipped(t *testing.T) {
	brokers := startCluster(t)
	var mu sync.Mutex
	var reported []int64
	onError := func(off int64, err error) {
		mu.Lock()
		defer mu.Unlock()
		reported = append(reported, off)
	}
	a := &member{name: "a"}
	la := open(t, brokers, a, onError)
	submit(t, la, "CREATE STREAM s", nil)
	raw, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(testTopic))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	bad := []*kgo.Record{kgo.StringRecord("not json"), kgo.StringRecord(`{"v":99,"id":"x","sql":"CREATE TABLE t"}`)}
	if err := raw.ProduceSync(context.Background(), bad...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	// A member opening now finds a malformed record last, and is ready
	// once it has skipped it.
	b := &member{name: "b"}
	lb := open(t, brokers, b, nil)
	if lb.Skipped() != 2 || lb.Applied() != 2 {
		t.Errorf("b: skipped %d, applied up to %d; want 2, 2", lb.Skipped(), lb.Applied())
	}
	if res := submit(t, la, "CREATE TABLE t", nil); res != "a@3" {
		t.Errorf("Submit after malformed records = %v, want a@3", res)
	}
	waitApplied(t, lb, 3)
	want := []entry{{0, "CREATE STREAM s", "a", "map[]"}, {3, "CREATE TABLE t", "a", "map[]"}}
	if ea, eb := a.entries(), b.entries(); !slices.Equal(ea, want) || !slices.Equal(eb, want) {
		t.Errorf("applied\na: %v\nb: %v\nwant %v", ea, eb, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(reported, []int64{1, 2}) || la.Skipped() != 2 {
		t.Errorf("OnError saw offsets %v, skipped %d; want [1 2], 2", reported, la.Skipped())
	}
}

func TestCloseWhileSubmitWaits(t *testing.T) {
	brokers := startCluster(t)
	a, b := &member{name: "a", slow: true}, &member{name: "b"}
	la, lb := open(t, brokers, a, nil), open(t, brokers, b, nil)
	// b issues SLOW, on which a's applier blocks; a's own command waits
	// behind it.
	submit(t, lb, "SLOW", nil)
	errc := make(chan error, 1)
	go func() {
		_, err := la.Submit(context.Background(), "CREATE STREAM s", nil)
		errc <- err
	}()
	waitApplied(t, lb, 1) // a's command is in the topic
	if err := la.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := <-errc; !errors.Is(err, ErrClosed) && !errors.Is(err, kgo.ErrClientClosed) {
		t.Errorf("Submit waiting at Close = %v, want %v", err, ErrClosed)
	}
	if err := la.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := la.Submit(context.Background(), "CREATE STREAM t", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit after Close = %v, want %v", err, ErrClosed)
	}
	if got := la.Applied(); got > 0 {
		t.Errorf("a applied up to %d after Close, want its own command (1) unapplied", got)
	}
	lb.Close()
	checkNoLeaks(t)
}

// checkNoLeaks fails t if goroutines of a command log or of a Kafka client
// outlive their Close (the in-process cluster's own are not counted).
func checkNoLeaks(t *testing.T) {
	t.Helper()
	var leaks []string
	for deadline := time.Now().Add(waitBound); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		buf := make([]byte, 1<<16)
		n := runtime.Stack(buf, true)
		for ; n == len(buf); n = runtime.Stack(buf, true) {
			buf = make([]byte, 2*len(buf))
		}
		leaks = leaks[:0]
		for g := range strings.SplitSeq(string(buf[:n]), "\n\n") {
			if strings.Contains(g, "eddy/cluster.(*CommandLog)") || strings.Contains(g, "created by github.com/twmb/franz-go/pkg/kgo.") {
				leaks = append(leaks, g)
			}
		}
		if len(leaks) == 0 {
			return
		}
	}
	t.Errorf("%d goroutines outlive Close:\n%s", len(leaks), strings.Join(leaks, "\n\n"))
}
