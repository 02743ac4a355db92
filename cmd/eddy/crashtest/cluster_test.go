package crashtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// clusterSetup is the cluster test's DDL: a windowed aggregate and a
// join of two 12-partition topics.
const clusterSetup = `
CREATE STREAM bids (auction BIGINT, price BIGINT, date_time TIMESTAMP(3),
  WATERMARK FOR date_time AS date_time - INTERVAL '1' HOUR) WITH (%[1]s, topic = 'bids');
CREATE STREAM auctions (id BIGINT, category BIGINT) WITH (%[1]s, topic = 'auctions');
CREATE MATERIALIZED VIEW per_window AS
  SELECT auction, window_start, COUNT(*) AS n, SUM(price) AS total
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(date_time), INTERVAL '10' SECOND))
  GROUP BY auction, window_start, window_end;
CREATE MATERIALIZED VIEW per_category AS
  SELECT a.category, COUNT(*) AS n, MAX(b.price) AS top
  FROM bids b JOIN auctions a ON b.auction = a.id GROUP BY a.category;`

// clusterQueries read the views whose answers must match a single
// process's.
const clusterQueries = `SELECT auction, window_start, n, total FROM per_window ORDER BY auction, window_start;
SELECT category, n, top FROM per_category ORDER BY category;`

// member is one `eddy serve --cluster` process.
type member struct {
	name string
	cmd  *exec.Cmd
	addr string        // its MySQL address
	out  *lockedBuffer // its standard error: its log
	done chan error
}

// lockedBuffer is a buffer a process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startMember starts a member of cluster c on brokers and waits until it
// serves.
func startMember(t testing.TB, bin, brokers, name string) *member {
	return startMemberOf(t, bin, brokers, "c", name)
}

// startMemberOf starts member name of cluster c on brokers and waits
// until it serves.
func startMemberOf(t testing.TB, bin, brokers, c, name string) *member {
	t.Helper()
	cmd := exec.Command(bin, "--timing=false", "--checkpoint-interval", "200ms", "serve", "--http", "", "--mysql", "127.0.0.1:0",
		"--cluster", c, "--brokers", brokers, "--member", name, "--cluster-partitions", "6", "--session-timeout", "6s", "--log-level", "info")
	cmd.Env = os.Environ()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	m := &member{name: name, cmd: cmd, out: &lockedBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = m.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	serving := regexp.MustCompile(`to MySQL clients on (\S+)`)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if g := serving.FindStringSubmatch(sc.Text()); g != nil {
			m.addr = g[1]
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
		m.done <- cmd.Wait()
	}()
	if m.addr == "" {
		m.kill()
		t.Fatalf("member %s did not start:\n%s", name, m.out)
	}
	t.Cleanup(func() {
		m.kill()
		if t.Failed() {
			// Every member's log, for the failure's story.
			path := filepath.Join(os.TempDir(), "eddy-cluster-"+name+".log")
			if err := os.WriteFile(path, []byte(m.out.String()), 0o644); err == nil {
				t.Logf("member %s's log: %s", name, path)
			}
		}
	})
	return m
}

// kill ends the member with SIGKILL, as a crash would.
func (m *member) kill() {
	if m.cmd.ProcessState != nil {
		return
	}
	if err := m.cmd.Process.Signal(syscall.SIGKILL); err == nil {
		<-m.done
	}
}

// sql runs statements on the member through `eddy exec --connect`.
func (m *member) sql(t testing.TB, bin, stmts string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, "--timing=false", "--format", "csv", "exec", "--connect", m.addr, "-e", stmts)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("eddy exec on %s: %v\n%s%s", m.name, err, out.String(), errOut.String())
	}
	return out.String(), nil
}

// produceClusterBids writes bids [from, to) over the 12 partitions of
// bids, each partition in event-time order, and the auctions once.
func produceClusterBids(t *testing.T, brokers string, from, to int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := from; i < to; i++ {
		ts := base.Add(time.Duration(i) * 100 * time.Millisecond).Format("2006-01-02 15:04:05.000")
		recs = append(recs, &kgo.Record{Topic: "bids", Partition: int32(i % 12),
			Value: fmt.Appendf(nil, `{"auction": %d, "price": %d, "date_time": "%s"}`, i%23, 10+(i*37)%990, ts)})
		if i < 23 {
			recs = append(recs, &kgo.Record{Topic: "auctions", Partition: int32(i % 12), Value: fmt.Appendf(nil, `{"id": %d, "category": %d}`, i, i%5)})
		}
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// singleProcess answers the cluster queries with one eddy process that
// reads what the topics hold now.
func singleProcess(t *testing.T, bin, brokers string) string {
	t.Helper()
	cmd := exec.Command(bin, "--data-dir", t.TempDir(), "--timing=false", "--format", "csv", "exec", "-e",
		fmt.Sprintf(clusterSetup, "connector = 'kafka', brokers = '"+brokers+"'")+"\nFLUSH;\n"+clusterQueries)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("one process: %v\n%s", err, errOut.String())
	}
	return out.String()
}

// waitAnswers waits until every member answers the cluster queries as
// want says.
func waitAnswers(t *testing.T, bin, want string, members ...*member) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for _, m := range members {
		for {
			got, err := m.sql(t, bin, clusterQueries)
			if err == nil && got == want {
				break
			}
			if time.Now().After(deadline) {
				show, serr := m.sql(t, bin, "SHOW CLUSTER;")
				t.Fatalf("member %s does not answer as one process does: %v\n%s\nSHOW CLUSTER (%v):\n%s\nlog:\n%s", m.name, err, diff(want, got), serr, show, m.out)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
}

// TestClusterOfProcesses runs three `eddy serve --cluster` processes on
// one in-process Kafka cluster (kfake) with a windowed aggregate and a
// join over 12-partition topics. Every member answers what a single
// process answers over the same input; after one member is killed
// (SIGKILL) its tasks move to the others and the answers stay exact; a
// member that joins later replays the catalog and takes a share.
func TestClusterOfProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs eddy as child processes; not in -short")
	}
	bin := buildEddy(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(12, "bids", "auctions", "big"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := strings.Join(c.ListenAddrs(), ",")
	ms := []*member{startMember(t, bin, brokers, "m0"), startMember(t, bin, brokers, "m1"), startMember(t, bin, brokers, "m2")}
	with := "connector = 'kafka', brokers = '" + brokers + "'"
	if _, err := ms[0].sql(t, bin, fmt.Sprintf(clusterSetup, with)+
		"\nCREATE SINK big AS SELECT auction, price, date_time FROM bids WHERE price > 900 WITH ("+with+", topic = 'big', key_column = 'date_time', type = 'append-only');"); err != nil {
		t.Fatal(err)
	}
	produceClusterBids(t, brokers, 0, 3000)
	waitAnswers(t, bin, singleProcess(t, bin, brokers), ms...)

	// Killed while its tasks work through new input.
	produceClusterBids(t, brokers, 3000, 6000)
	time.Sleep(time.Duration(rand.Int64N(int64(400 * time.Millisecond)))) // the first kill
	ms[2].kill()
	waitAnswers(t, bin, singleProcess(t, bin, brokers), ms[0], ms[1])

	late := startMember(t, bin, brokers, "m3")
	produceClusterBids(t, brokers, 6000, 9000)
	want := singleProcess(t, bin, brokers)
	waitAnswers(t, bin, want, ms[0], ms[1], late)

	// Then -crash.n rounds of: more input, and at a random moment a
	// random member killed and another started in its place.
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -crash.seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	live := []*member{ms[0], ms[1], late}
	bids := 9000
	for k := range *crashN {
		produceClusterBids(t, brokers, bids, bids+1200)
		bids += 1200
		time.Sleep(time.Duration(rng.Int64N(int64(time.Second))))
		i := rng.IntN(len(live))
		live[i].kill()
		live[i] = startMember(t, bin, brokers, fmt.Sprintf("r%d", k))
	}
	want = singleProcess(t, bin, brokers)
	waitAnswers(t, bin, want, live...)
	for deadline := time.Now().Add(time.Minute); !strings.Contains(late.out.String(), "task started"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the member that joined runs no task:\n%s", late.out)
		}
	}
	// The sink published every bid over 900 exactly once, across the
	// kill: a read_committed consumer sees each once.
	var wantBig []string
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range bids {
		if 10+(i*37)%990 > 900 {
			wantBig = append(wantBig, base.Add(time.Duration(i)*100*time.Millisecond).Format("2006-01-02 15:04:05.000"))
		}
	}
	slices.Sort(wantBig)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		var got []string
		for _, m := range committed(t, brokers, "big") {
			got = append(got, m[:strings.IndexByte(m, '=')])
		}
		slices.Sort(got)
		if slices.Equal(got, wantBig) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sink's committed messages (%d) are not the %d bids over 900 once each:\n%s", len(got), len(wantBig),
				diff(strings.Join(wantBig, "\n"), strings.Join(got, "\n")))
		}
	}
	t.Logf("three members, %d killed and %d added: %d answer lines and %d sink messages identical to one process's",
		1+*crashN, 1+*crashN, strings.Count(want, "\n"), len(wantBig))
}
