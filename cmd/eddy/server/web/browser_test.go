package web

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/eddysql/eddy/exec/engine"
)

// screenshot makes TestBrowser write its screenshot to docs/web-view.png
// (the README's picture) as well as to its artifact directory:
//
//	go test ./cmd/eddy/server/web -run TestBrowser -screenshot
var screenshot = flag.Bool("screenshot", false, "TestBrowser: write the page's screenshot to docs/web-view.png")

// chromium returns the path of the Chromium binary, skipping t when there
// is none — or failing it under CI=true, where .ci/run installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	msg := "no chromium binary: install Debian's package chromium (apt-get install chromium) to run the browser test"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// pageState is what the browser test reads off the page.
type pageState struct {
	Ops     int    `json:"ops"`     // operator cards in the graph
	Moving  int    `json:"moving"`  // of them, with a rate above zero
	Edges   int    `json:"edges"`   // exchange curves
	Drawn   int    `json:"drawn"`   // of them, with a path
	Title   string `json:"title"`   // the query's name in the heading
	Listed  int    `json:"listed"`  // queries in the list
	Inst    int    `json:"inst"`    // rows of the instances table
	Conn    string `json:"conn"`    // the connection indicator
	Console string `json:"console"` // errors the page reported
}

const readPage = `(() => {
	const ops = [...document.querySelectorAll("#graph .op")];
	const edges = [...document.querySelectorAll("#graph path.edge")];
	return {
		ops: ops.length,
		moving: ops.filter(o => (Number(o.dataset.inRate) || 0) + (Number(o.dataset.outRate) || 0) > 0).length,
		edges: edges.length,
		drawn: edges.filter(e => (e.getAttribute("d") || "").startsWith("M ")).length,
		title: document.getElementById("q-name").textContent,
		listed: document.querySelectorAll("#query-list li").length,
		inst: document.querySelectorAll("#instances tr").length,
		conn: document.getElementById("conn").textContent,
		console: (window.__errors || []).join("; "),
	};
})()`

// TestBrowser loads the page in headless Chromium against a server over
// running queries and waits until it draws the selected query's dataflow:
// one card per operator, every one with a rate above zero, and one curve
// per exchange; then it selects an operator, checks its instances are
// listed, and takes a screenshot.
func TestBrowser(t *testing.T) {
	path := chromium(t)
	// Event time follows the wall clock: events are spaced at the rate
	// they are generated, from now on.
	now := time.Now().UnixMilli()
	eng := newEngine(t, engine.Config{Parallelism: 2, CheckpointInterval: time.Second}, fmt.Sprintf(`
		CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, date_time TIMESTAMP(3),
		  WATERMARK FOR date_time AS date_time - INTERVAL '2' SECOND)
		  WITH (connector = 'nexmark', table = 'bid', rate = '4000', first_event_rate = '4000', base_time = '%d');
		CREATE MATERIALIZED VIEW hot_auctions AS
		  SELECT auction, window_start, COUNT(*) AS bids, MAX(price) AS top_price
		  FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) GROUP BY auction, window_start;
		CREATE MATERIALIZED VIEW per_channel AS
		  SELECT channel, COUNT(*) AS bids, MAX(price) AS top FROM bid GROUP BY channel;
		CREATE SINK big_bids AS SELECT auction, bidder, price FROM bid WHERE price > 10000000 WITH (connector = 'blackhole');`, now))
	base := startServer(t, eng, Config{Version: "dev"})
	q, ok := eng.ObserveQuery("hot_auctions")
	if !ok {
		t.Fatal("hot_auctions is not running")
	}
	var wantOps int
	for _, st := range q.Stages {
		wantOps += len(st.Operators)
	}

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		// This machine's network is closed: without these Chromium
		// stalls on connections it tries by itself.
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1480, 1060))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf))
	defer cancel()
	// The first Run starts the browser, whose lifetime is ctx's: a
	// timeout goes on the steps after it.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	step, cancelStep := context.WithTimeout(ctx, 30*time.Second)
	defer cancelStep()
	// The page's uncaught errors are collected from before its scripts
	// run.
	collectErrors := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.__errors = []; window.addEventListener("error", e => window.__errors.push(e.message));`})
		return chromedp.Void{}, err
	}
	if err := chromedp.Do(step, collectErrors, chromedp.Navigate(base+"/#/q/hot_auctions")); err != nil {
		t.Fatal(err)
	}
	var st pageState
	wait := func(what string, done func(pageState) bool) {
		t.Helper()
		for {
			var err error
			if st, err = chromedp.Run(step, chromedp.Evaluate[pageState](readPage)); err != nil {
				t.Fatalf("waiting for %s: %v (last seen %+v)", what, err, st)
			}
			if st.Console != "" {
				t.Fatalf("the page reported errors: %s", st.Console)
			}
			if done(st) {
				return
			}
			select {
			case <-step.Done():
				t.Fatalf("waiting for %s: %v; the page shows %+v", what, step.Err(), st)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	wait("the dataflow with live rates", func(s pageState) bool {
		return s.Title == "hot_auctions" && s.Ops == wantOps && s.Moving == wantOps && s.Edges == len(q.Exchanges) && s.Drawn == s.Edges
	})
	if st.Listed != 3 {
		t.Errorf("%d queries listed, want 3", st.Listed)
	}
	// Selecting the aggregate lists its instances, one row each and a
	// header.
	if err := chromedp.Do(step, chromedp.Click(`#graph .op[data-node="`+strconv.Itoa(aggNode(q))+`"]`)); err != nil {
		t.Fatal(err)
	}
	wait("the aggregate's instances", func(s pageState) bool { return s.Inst == 1+2 })

	shot, err := chromedp.Run(step, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil || img.Bounds().Dx() < 1000 {
		t.Fatalf("screenshot: %v, %v", err, img)
	}
	out := filepath.Join(t.ArtifactDir(), "web-view.png")
	if *screenshot {
		out = filepath.Join("..", "..", "..", "..", "docs", "web-view.png")
	}
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot (%d bytes) in %s; the page showed %+v", len(shot), out, st)
}

// aggNode returns the plan node of q's HashAggregate.
func aggNode(q engine.QueryInfo) int {
	for _, st := range q.Stages {
		for _, op := range st.Operators {
			if opKind(op.Name) == "HashAggregate" {
				return op.NodeID
			}
		}
	}
	panic(errors.New("no HashAggregate"))
}
