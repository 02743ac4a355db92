package verify

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	nexgen "github.com/eddysql/eddy/exec/connector/nexmark"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/exec/engine/difftest"
	"github.com/eddysql/eddy/sql"
)

// The run every query is verified on (see the package documentation).
// The flags change it, to look for bugs beyond the default run.
var (
	// events is the length of the global sequence: 200 persons, 600
	// auctions and 9,200 bids.
	events = flag.Int64("nexmark.events", 10_000, "length of the generated event sequence")
	// seed selects the generator's random values.
	seed = flag.Int64("nexmark.seed", 20240501, "seed of the generator")
	// firstEventRate spaces event times 10 ms apart: the run covers 100 s
	// of event time (ten 10-second windows), and no two events share a
	// timestamp, so orderings by date_time have no ties.
	firstEventRate = flag.Int64("nexmark.first_event_rate", 100, "event-time spacing of the generator, events per second")
	// baseTime is 30 s before midnight, so the run spans two days, and
	// the per-day queries (q15-q17) and q10's partitions see both.
	baseTime = flag.String("nexmark.base_time", "2015-07-15 23:59:30", "event time of the first event")
)

// defaultRun reports whether the run is the default one, whose results
// are known to be unambiguous.
func defaultRun() bool {
	n := 0
	flag.Visit(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "nexmark.") {
			n++
		}
	})
	return n == 0
}

// tables are the generator's tables, in the order the streams are made.
var tables = []string{nexgen.TablePerson, nexgen.TableAuction, nexgen.TableBid}

// streamDDL returns the statements creating person, auction and bid as
// the Nexmark bench does (every column, the watermark date_time - 4 s),
// bounded to the run's events and with its seed, spacing and base time.
func streamDDL() []string {
	var out []string
	for _, table := range tables {
		var cols []string
		for _, c := range nexgen.Columns(table) {
			cols = append(cols, c.Name+" "+c.Type.String())
		}
		out = append(out, fmt.Sprintf("CREATE STREAM %s (%s, WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND) "+
			"WITH (connector = 'nexmark', table = '%s', events = '%d', seed = '%d', first_event_rate = '%d', base_time = '%s');",
			table, strings.Join(cols, ", "), table, *events, *seed, *firstEventRate, *baseTime))
	}
	return out
}

// session is a session on a new in-memory engine.
type session struct {
	eng  *engine.Engine
	sess *engine.Session
}

// newSession opens an in-memory engine whose relative paths resolve in
// baseDir, running queries at parallelism p, and creates the streams.
func newSession(ctx context.Context, baseDir string, p int) (*session, error) {
	eng, err := engine.Open(ctx, engine.Config{FileRoot: baseDir, Parallelism: p})
	if err != nil {
		return nil, err
	}
	s := &session{eng: eng, sess: eng.NewSession(engine.SessionOptions{})}
	for _, ddl := range streamDDL() {
		if _, err := s.exec(ctx, ddl); err != nil {
			eng.Close()
			return nil, err
		}
	}
	return s, nil
}

// exec runs a script and returns its last statement's result. Notices
// (late or bad rows, failed queries) are errors: the run has neither, and
// every query must keep running.
func (s *session) exec(ctx context.Context, script string) (*engine.Result, error) {
	stmts, err := sql.Parse(script)
	if err != nil {
		return nil, err
	}
	var res *engine.Result
	for _, st := range stmts {
		if res, err = s.sess.Execute(ctx, st); err != nil {
			return nil, err
		}
		if len(res.Notices) > 0 {
			return nil, fmt.Errorf("%.60s...: notices: %s", st.Source().Text(), strings.Join(res.Notices, "; "))
		}
	}
	return res, nil
}

func (s *session) close() { s.eng.Close() }

// dumpEvents writes the run's events to dir/<table>.csv (with a header),
// through file sinks reading the same streams the queries read.
func dumpEvents(ctx context.Context, dir string) error {
	s, err := newSession(ctx, dir, 1)
	if err != nil {
		return err
	}
	defer s.close()
	for _, table := range tables {
		if _, err := s.exec(ctx, fmt.Sprintf("CREATE SINK dump_%[1]s AS SELECT * FROM %[1]s "+
			"WITH (connector = 'file', path = '%[1]s.csv', format = 'csv', header = 'true');", table)); err != nil {
			return err
		}
	}
	_, err = s.exec(ctx, "FLUSH;")
	return err
}

// sources returns the difftest sources of the generator's tables, with
// side_input (q13's table: key = value = 0 ... 9999) keyed by key.
func sources() []*difftest.Source {
	var out []*difftest.Source
	for _, table := range tables {
		src := &difftest.Source{Name: table}
		for _, c := range nexgen.Columns(table) {
			src.Columns = append(src.Columns, difftest.Column{Name: c.Name, Type: c.Type.String()})
		}
		out = append(out, src)
	}
	return append(out, &difftest.Source{Name: "side_input", Table: true, Key: []string{"key"},
		Columns: []difftest.Column{{Name: "key", Type: "BIGINT"}, {Name: "value", Type: "BIGINT"}}})
}

// loadEvents reads the dumped events of dir, and q13's side input from
// sideInput, as difftest data: one round holding every row.
func loadEvents(dir, sideInput string) (*difftest.Data, error) {
	d := &difftest.Data{Sources: sources()}
	var rd difftest.Round
	for _, src := range d.Sources {
		path, header := filepath.Join(dir, src.Name+".csv"), true
		if src.Name == "side_input" {
			path, header = sideInput, false
		}
		rows, err := readCSV(path, src, header)
		if err != nil {
			return nil, err
		}
		b := difftest.Batch{Source: src.Name, Rows: rows}
		if src.Table {
			rd.Tables = append(rd.Tables, b)
		} else {
			rd.Streams = append(rd.Streams, b)
		}
	}
	d.Rounds = []difftest.Round{rd}
	return d, nil
}

// readCSV reads a CSV file of src's rows with Go's encoding/csv (not
// eddy's reader). The generator writes no NULLs, so an empty field is the
// empty string (encoding/csv cannot tell "" from an empty field); any
// other column must hold a value of its type. With header, the first line
// must name src's columns in order.
func readCSV(path string, src *difftest.Source, header bool) ([]difftest.Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = len(src.Columns)
	var rows []difftest.Row
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if header && line == 1 {
			for j, c := range src.Columns {
				if rec[j] != c.Name {
					return nil, fmt.Errorf("%s: column %d is %q, want %s", path, j+1, rec[j], c.Name)
				}
			}
			continue
		}
		row := make(difftest.Row, len(rec))
		for j, field := range rec {
			v, err := parseValue(field, src.Columns[j].Type)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %w", path, line, src.Columns[j].Name, err)
			}
			row[j] = v
		}
		rows = append(rows, row)
	}
}

// parseValue reads a CSV field of an eddy column type.
func parseValue(field, typ string) (difftest.Value, error) {
	switch {
	case typ == "VARCHAR":
		return difftest.Str(field), nil
	case typ == "BIGINT":
		n, err := strconv.ParseInt(field, 10, 64)
		return difftest.Int(n), err
	case strings.HasPrefix(typ, "TIMESTAMP"):
		ms, err := types.ParseTimestamp(field)
		return difftest.Time(ms), err
	}
	return difftest.Null, fmt.Errorf("unexpected column type %s", typ)
}
