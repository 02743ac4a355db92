package engine

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestObserveCatalog: the catalog snapshot lists every object by kind,
// with its columns, key, watermark, connector and options.
func TestObserveCatalog(t *testing.T) {
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `
		CREATE STREAM bid (auction BIGINT, price BIGINT NOT NULL, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND);
		CREATE TABLE item (id BIGINT, name VARCHAR, PRIMARY KEY (id));
		CREATE MATERIALIZED VIEW top AS SELECT auction, MAX(price) AS p FROM bid GROUP BY auction;
		CREATE SINK nothing AS SELECT auction FROM bid WITH (connector = 'blackhole');`)
	objs := s.eng.ObserveCatalog()
	var names []string
	for _, o := range objs {
		names = append(names, o.Kind+" "+o.Name)
	}
	if got, want := strings.Join(names, ", "), "stream bid, table item, materialized view top, sink nothing"; got != want {
		t.Fatalf("objects %s, want %s", got, want)
	}
	bid, item, top, sink := objs[0], objs[1], objs[2], objs[3]
	if bid.Connector != "insert" || bid.Watermark == nil || bid.Watermark.Column != "ts" || bid.Watermark.Delay != 2*time.Second ||
		!strings.Contains(bid.Watermark.Text, "ts - ") {
		t.Errorf("bid: connector %q, watermark %+v", bid.Connector, bid.Watermark)
	}
	if len(bid.Columns) != 3 || bid.Columns[1] != (ColumnInfo{Name: "price", Type: "BIGINT", Nullable: false}) || !bid.Columns[0].Nullable ||
		bid.Columns[2].Type != "TIMESTAMP(3)" {
		t.Errorf("bid's columns: %+v", bid.Columns)
	}
	if strings.Join(item.PrimaryKey, ",") != "id" {
		t.Errorf("item's key: %v", item.PrimaryKey)
	}
	if top.Connector != "" || !strings.Contains(top.Query, "MAX(price)") || strings.Join(top.DependsOn, ",") != "bid" {
		t.Errorf("top: %+v", top)
	}
	if sink.Connector != "blackhole" || sink.Options["connector"] != "blackhole" {
		t.Errorf("sink: %+v", sink)
	}
	// The snapshot is a copy: changing it changes nothing in the catalog.
	sink.Options["connector"] = "print"
	if o, _ := s.eng.Catalog().Get("nothing"); o.Connector() != "blackhole" {
		t.Errorf("changing a snapshot's options changed the catalog's: %q", o.Connector())
	}
}

// TestObserveQuery: a running view's snapshot has its dataflow — a
// source stage, the aggregate's stage behind a hash exchange on the
// grouping key, the sink's stage gathering them — with each operator's
// figures summed and per instance, and its checkpoints.
func TestObserveQuery(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2, CheckpointInterval: 5 * time.Millisecond})
	run(t, s, `
		CREATE STREAM bid (auction BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
		CREATE MATERIALIZED VIEW w AS SELECT auction, window_start, COUNT(*) AS n FROM TUMBLE(bid, ts, INTERVAL '10' SECOND) GROUP BY auction, window_start;
		INSERT INTO bid VALUES (1, 5, '2024-01-01 00:00:05'), (2, 50, '2024-01-01 00:00:15');
		INSERT INTO bid VALUES (3, 500, '2024-01-01 00:00:01');
		FLUSH;`)
	if _, ok := s.eng.ObserveQuery("bid"); ok {
		t.Error("a source stream is observed as a query")
	}
	if _, ok := s.eng.ObserveQuery("nope"); ok {
		t.Error("an unknown name is observed as a query")
	}
	q, ok := s.eng.ObserveQuery("W")
	if !ok {
		t.Fatal("view w is not observed")
	}
	if q.Name != "w" || q.Kind != "materialized view" || q.Status != "running" || q.Parallelism != 2 || q.Uptime <= 0 || q.Started.IsZero() {
		t.Errorf("query: %s %s %s parallelism %d uptime %v", q.Name, q.Kind, q.Status, q.Parallelism, q.Uptime)
	}
	if q.Totals.RowsIn != 3 || q.Totals.RowsOut != 2 || q.Totals.LateRows != 1 || q.Totals.Watermark == 0 {
		t.Errorf("totals: %+v", q.Totals)
	}
	// Every operator is in exactly one stage, the source first in its.
	type where struct{ stage, pos int }
	ops := map[string]where{}
	var sinks int
	for i, st := range q.Stages {
		if st.ID != i || st.Parallelism < 1 || len(st.Operators) == 0 {
			t.Errorf("stage %d: %+v", i, st)
		}
		for j, op := range st.Operators {
			if op.Source && j != 0 {
				t.Errorf("stage %d: source %q at position %d", i, op.Name, j)
			}
			if len(op.Instances) != st.Parallelism {
				t.Errorf("%s: %d instances in a stage of %d", op.Name, len(op.Instances), st.Parallelism)
			}
			var in, out int64
			for _, f := range op.Instances {
				in, out = in+f.RowsIn, out+f.RowsOut
			}
			if in != op.Figures.RowsIn || out != op.Figures.RowsOut {
				t.Errorf("%s: instances sum to %d in / %d out, figures say %d / %d", op.Name, in, out, op.Figures.RowsIn, op.Figures.RowsOut)
			}
			if f := op.Figures; f.Wall <= 0 || f.Busy+f.Idle+f.Backpressure > f.Wall+time.Millisecond {
				t.Errorf("%s: busy %v + idle %v + backpressure %v over wall %v", op.Name, f.Busy, f.Idle, f.Backpressure, f.Wall)
			}
			if op.Sink {
				sinks++
			} else if op.NodeID == 0 {
				t.Errorf("%s has no plan node", op.Name)
			}
			ops[strings.Fields(op.Name)[0]] = where{i, j}
		}
	}
	for _, name := range []string{"Source", "WindowAssign", "HashAggregate", "Materialize"} {
		if _, ok := ops[name]; !ok {
			t.Fatalf("no %s among %v", name, ops)
		}
	}
	src, agg, win, mat := ops["Source"], ops["HashAggregate"], ops["WindowAssign"], ops["Materialize"]
	if sinks != 1 || src.stage != win.stage || agg.stage == src.stage || mat.stage != len(q.Stages)-1 {
		t.Fatalf("%d sinks; operators by stage: %+v", sinks, ops)
	}
	source, aggregate := q.Stages[src.stage].Operators[0], q.Stages[agg.stage].Operators[agg.pos]
	if source.Figures.RowsOut != 2 || source.Figures.LateRows != 1 || source.Figures.Watermark == 0 || source.Figures.WatermarkLag <= 0 {
		t.Errorf("source figures: %+v", source.Figures)
	}
	if aggregate.Figures.RowsIn != 2 || aggregate.Figures.StateRows != 1 || aggregate.Figures.StateBytes <= 0 || aggregate.EstRowsPerSec <= 0 {
		t.Errorf("aggregate figures: %+v (estimated %v rows/s)", aggregate.Figures, aggregate.EstRowsPerSec)
	}
	// The aggregate reads a hash exchange on its grouping key, the sink a
	// single one.
	var kinds []string
	for _, ex := range q.Exchanges {
		if ex.From >= ex.To || ex.To >= len(q.Stages) {
			t.Errorf("exchange %+v goes backwards", ex)
		}
		if !strings.HasPrefix(ex.Name, "Exchange "+ex.Kind) {
			t.Errorf("exchange %+v is named %q", ex, ex.Name)
		}
		if ex.To == agg.stage && (ex.Kind != "hash" || strings.Join(ex.Keys, ",") != "auction,window_start") {
			t.Errorf("the aggregate's input: %+v", ex)
		}
		kinds = append(kinds, ex.Kind)
	}
	if got := strings.Join(kinds, " "); got != "hash single" {
		t.Errorf("exchanges %s, want hash single", got)
	}
	// Checkpoints are taken every 5ms.
	deadline := time.Now().Add(10 * time.Second)
	for q.Checkpoints == nil || q.Checkpoints.Taken == 0 || len(q.Checkpoints.Recent) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoints: %+v", q.Checkpoints)
		}
		time.Sleep(10 * time.Millisecond)
		q, _ = s.eng.ObserveQuery("w")
	}
	c := q.Checkpoints
	if last := c.Recent[len(c.Recent)-1]; last.Epoch == 0 || last.Duration <= 0 || c.TotalTime < last.Duration || last.Start.IsZero() {
		t.Errorf("checkpoints: %+v, the last %+v", c, last)
	}
	if all := s.eng.ObserveQueries(); len(all) != 1 || all[0].Name != "w" {
		t.Errorf("ObserveQueries lists %d queries", len(all))
	}
}

// TestObserveWhileRunning: snapshots taken while a query runs over a
// generated stream race with nothing (go test -race) and see its figures
// grow.
func TestObserveWhileRunning(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2})
	run(t, s, `
		CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', rate = '20000');
		CREATE MATERIALIZED VIEW c AS SELECT auction % 10 AS a, COUNT(*) AS n FROM bid GROUP BY auction % 10;`)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for ctx.Err() == nil {
				s.eng.ObserveCatalog()
				s.eng.ObserveQueries()
			}
		})
	}
	defer wg.Wait()
	defer cancel()
	var first int64 = -1
	for {
		q, ok := s.eng.ObserveQuery("c")
		if !ok {
			t.Fatal("view c is not observed")
		}
		if q.Status != "running" {
			t.Fatalf("view c is %s: %s", q.Status, q.Error)
		}
		if first < 0 {
			first = q.Totals.RowsIn
		} else if q.Totals.RowsIn > first && q.Totals.RowsOut > 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("rows in stayed at %d", first)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
