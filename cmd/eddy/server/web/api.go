package web

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/engine"
)

// The JSON API's documents. Names are snake_case, durations are seconds
// (float), instants RFC 3339 strings and watermarks milliseconds since the
// epoch; the shapes follow the engine's observation API
// (engine.ObjectInfo, engine.QueryInfo) one to one.

// catalogDoc is GET /api/catalog.
type catalogDoc struct {
	Objects []objectDoc `json:"objects"`
}

type objectDoc struct {
	Name       string            `json:"name"`
	Kind       string            `json:"kind"`
	Connector  string            `json:"connector"`
	Options    map[string]string `json:"options"`
	Columns    []columnDoc       `json:"columns"`
	PrimaryKey []string          `json:"primary_key"`
	Watermark  *watermarkDoc     `json:"watermark"`
	Query      string            `json:"query,omitempty"`
	DependsOn  []string          `json:"depends_on"`
	Bounded    bool              `json:"bounded"`
	Rows       int64             `json:"rows"`
	RowsPerSec float64           `json:"rows_per_second"`
}

type columnDoc struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
}

type watermarkDoc struct {
	Column       string  `json:"column"`
	DelaySeconds float64 `json:"delay_seconds"`
	Text         string  `json:"text"`
}

// queriesDoc is GET /api/queries; Time is when the snapshot was taken,
// in ms since the epoch, for rates between two of them.
type queriesDoc struct {
	Time    int64      `json:"time_ms"`
	Queries []queryDoc `json:"queries"`
}

// queryOneDoc is GET /api/queries/{name}.
type queryOneDoc struct {
	Time int64 `json:"time_ms"`
	queryDoc
}

type queryDoc struct {
	Name          string         `json:"name"`
	Kind          string         `json:"kind"`
	Status        string         `json:"status"`
	Error         string         `json:"error,omitempty"`
	Query         string         `json:"query"`
	Started       *time.Time     `json:"started"`
	UptimeSeconds float64        `json:"uptime_seconds"`
	Parallelism   int            `json:"parallelism"`
	Totals        totalsDoc      `json:"totals"`
	Stages        []stageDoc     `json:"stages"`
	Exchanges     []exchangeDoc  `json:"exchanges"`
	Checkpoints   *checkpointDoc `json:"checkpoints"`
}

type totalsDoc struct {
	RowsIn           int64   `json:"rows_in"`
	RowsOut          int64   `json:"rows_out"`
	LateRows         int64   `json:"late_rows"`
	BadRows          int64   `json:"bad_rows"`
	WatermarkMs      *int64  `json:"watermark_ms"`
	SourceLagSeconds float64 `json:"source_lag_seconds"`
	BacklogRows      int64   `json:"backlog_rows"`
	ShedRows         int64   `json:"shed_rows"`
	DropFraction     float64 `json:"drop_fraction"`
	ShedWindows      int64   `json:"shed_windows"`
}

type stageDoc struct {
	ID          int           `json:"id"`
	Parallelism int           `json:"parallelism"`
	Operators   []operatorDoc `json:"operators"`
}

type exchangeDoc struct {
	From  int      `json:"from"`
	To    int      `json:"to"`
	Input int      `json:"input"`
	Kind  string   `json:"kind"`
	Keys  []string `json:"keys"`
	Name  string   `json:"name"`
}

type operatorDoc struct {
	NodeID        int          `json:"node_id"`
	Name          string       `json:"name"`
	Source        bool         `json:"source"`
	Sink          bool         `json:"sink"`
	EstRowsPerSec float64      `json:"estimated_rows_per_second"`
	EstStateBytes float64      `json:"estimated_state_bytes"`
	Figures       figuresDoc   `json:"figures"`
	Instances     []figuresDoc `json:"instances"`
}

type figuresDoc struct {
	RowsIn              int64            `json:"rows_in"`
	RowsOut             int64            `json:"rows_out"`
	BusySeconds         float64          `json:"busy_seconds"`
	IdleSeconds         float64          `json:"idle_seconds"`
	BackpressureSeconds float64          `json:"backpressured_seconds"`
	WallSeconds         float64          `json:"wall_seconds"`
	WatermarkMs         *int64           `json:"watermark_ms"`
	WatermarkLagSeconds float64          `json:"watermark_lag_seconds"`
	InputEnded          bool             `json:"input_ended"`
	StateRows           int64            `json:"state_rows"`
	StateBytes          int64            `json:"state_bytes"`
	LateRows            int64            `json:"late_rows"`
	BadRows             int64            `json:"bad_rows"`
	SourceLagSeconds    float64          `json:"source_lag_seconds"`
	BacklogRows         int64            `json:"backlog_rows"`
	ShedRows            int64            `json:"shed_rows"`
	ShedWindows         int64            `json:"shed_windows"`
	Counters            map[string]int64 `json:"counters,omitempty"`
}

type checkpointDoc struct {
	Taken        int             `json:"taken"`
	Failed       int             `json:"failed"`
	TotalSeconds float64         `json:"total_seconds"`
	Recent       []checkpointRec `json:"recent"`
}

type checkpointRec struct {
	Epoch            uint64    `json:"epoch"`
	Start            time.Time `json:"start"`
	DurationSeconds  float64   `json:"duration_seconds"`
	SyncSeconds      float64   `json:"sync_seconds"`
	DeferredSeconds  float64   `json:"deferred_seconds"`
	AlignmentSeconds float64   `json:"alignment_seconds"`
	Bytes            int64     `json:"bytes"`
	StateBytes       *int64    `json:"state_bytes"`
	Error            string    `json:"error,omitempty"`
}

func (s *Server) catalog(w http.ResponseWriter, _ *http.Request) {
	doc := catalogDoc{Objects: []objectDoc{}}
	for _, o := range s.cfg.Engine.ObserveCatalog() {
		doc.Objects = append(doc.Objects, objectOf(o))
	}
	writeJSON(w, http.StatusOK, doc)
}

func (s *Server) queries(w http.ResponseWriter, _ *http.Request) {
	doc := queriesDoc{Time: time.Now().UnixMilli(), Queries: []queryDoc{}}
	for _, q := range s.cfg.Engine.ObserveQueries() {
		doc.Queries = append(doc.Queries, queryOf(q))
	}
	writeJSON(w, http.StatusOK, doc)
}

func (s *Server) query(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	now := time.Now()
	q, ok := s.cfg.Engine.ObserveQuery(name)
	if !ok {
		writeError(w, http.StatusNotFound, "no continuous query named '"+name+"' (a view, sink or derived stream)")
		return
	}
	writeJSON(w, http.StatusOK, queryOneDoc{Time: now.UnixMilli(), queryDoc: queryOf(q)})
}

func objectOf(o engine.ObjectInfo) objectDoc {
	d := objectDoc{Name: o.Name, Kind: o.Kind, Connector: o.Connector, Options: o.Options, Columns: []columnDoc{},
		PrimaryKey: nonNil(o.PrimaryKey), Query: o.Query, DependsOn: nonNil(o.DependsOn), Bounded: o.Bounded,
		Rows: o.Rows, RowsPerSec: o.RowsPerSec}
	if d.Options == nil {
		d.Options = map[string]string{}
	}
	for _, c := range o.Columns {
		d.Columns = append(d.Columns, columnDoc(c))
	}
	if wm := o.Watermark; wm != nil {
		d.Watermark = &watermarkDoc{Column: wm.Column, DelaySeconds: wm.Delay.Seconds(), Text: wm.Text}
	}
	return d
}

func queryOf(q engine.QueryInfo) queryDoc {
	d := queryDoc{Name: q.Name, Kind: q.Kind, Status: q.Status, Error: q.Error, Query: q.Query,
		UptimeSeconds: q.Uptime.Seconds(), Parallelism: q.Parallelism, Stages: []stageDoc{}, Exchanges: []exchangeDoc{},
		Totals: totalsDoc{RowsIn: q.Totals.RowsIn, RowsOut: q.Totals.RowsOut, LateRows: q.Totals.LateRows,
			BadRows: q.Totals.BadRows, WatermarkMs: watermark(q.Totals.Watermark), SourceLagSeconds: q.Totals.SourceLag.Seconds(),
			BacklogRows: q.Totals.Backlog, ShedRows: q.Totals.ShedRows, DropFraction: q.Totals.DropFraction,
			ShedWindows: q.Totals.ShedWindows}}
	if !q.Started.IsZero() {
		started := q.Started.UTC()
		d.Started = &started
	}
	for _, st := range q.Stages {
		sd := stageDoc{ID: st.ID, Parallelism: st.Parallelism, Operators: []operatorDoc{}}
		for _, op := range st.Operators {
			od := operatorDoc{NodeID: op.NodeID, Name: op.Name, Source: op.Source, Sink: op.Sink,
				EstRowsPerSec: op.EstRowsPerSec, EstStateBytes: op.EstStateBytes, Figures: figuresOf(op.Figures),
				Instances: []figuresDoc{}}
			for _, f := range op.Instances {
				od.Instances = append(od.Instances, figuresOf(f))
			}
			sd.Operators = append(sd.Operators, od)
		}
		d.Stages = append(d.Stages, sd)
	}
	for _, ex := range q.Exchanges {
		d.Exchanges = append(d.Exchanges, exchangeDoc{From: ex.From, To: ex.To, Input: ex.Input, Kind: ex.Kind,
			Keys: nonNil(ex.Keys), Name: ex.Name})
	}
	if c := q.Checkpoints; c != nil {
		cd := &checkpointDoc{Taken: c.Taken, Failed: c.Failed, TotalSeconds: c.TotalTime.Seconds(), Recent: []checkpointRec{}}
		for _, r := range c.Recent {
			rec := checkpointRec{Epoch: r.Epoch, Start: r.Start.UTC(), DurationSeconds: r.Duration.Seconds(),
				SyncSeconds: r.Sync.Seconds(), DeferredSeconds: r.Deferred.Seconds(), AlignmentSeconds: r.Alignment.Seconds(),
				Bytes: r.Bytes, Error: r.Error}
			if r.Error == "" && r.StateBytes >= 0 {
				sb := r.StateBytes
				rec.StateBytes = &sb
			}
			cd.Recent = append(cd.Recent, rec)
		}
		d.Checkpoints = cd
	}
	return d
}

func figuresOf(f engine.OperatorFigures) figuresDoc {
	return figuresDoc{RowsIn: f.RowsIn, RowsOut: f.RowsOut, BusySeconds: f.Busy.Seconds(), IdleSeconds: f.Idle.Seconds(),
		BackpressureSeconds: f.Backpressure.Seconds(), WallSeconds: f.Wall.Seconds(), WatermarkMs: watermark(f.Watermark),
		WatermarkLagSeconds: f.WatermarkLag.Seconds(), InputEnded: f.Watermark == exec.MaxWatermark,
		StateRows: f.StateRows, StateBytes: f.StateBytes, LateRows: f.LateRows, BadRows: f.BadRows,
		SourceLagSeconds: f.SourceLag.Seconds(), BacklogRows: f.Backlog, ShedRows: f.ShedRows, ShedWindows: f.ShedWindows,
		Counters: f.Counters}
}

// watermark is a watermark for JSON: nil when there is none yet or the
// input ended (input_ended says which).
func watermark(ms int64) *int64 {
	if ms == 0 || ms == exec.MaxWatermark {
		return nil
	}
	return &ms
}

// nonNil makes an empty list encode as [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// errorDoc is every error's body.
type errorDoc struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, errorDoc{Error: msg})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v) // the client may have gone: nothing to do about it
}
