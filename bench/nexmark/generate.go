package nexmark

import (
	"context"
	"fmt"
	"os"
	"strings"

	nexgen "github.com/eddysql/eddy/exec/connector/nexmark"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// The values of Config.Generate (--generate): what the generator of a
// query's run makes.
const (
	// GenerateRead generates only the tables the query reads: each
	// stream it scans builds its own table's events (every column, as
	// the streams declare them all) and no others.
	GenerateRead = nexgen.GenerateRead
	// GenerateAll generates the whole event sequence, every table and
	// every column, whatever the query reads, as Flink's and Feldera's
	// Nexmark sources do: the events of the tables it does not read are
	// built and dropped by one of the streams it scans (the connector's
	// generate option).
	GenerateAll = nexgen.GenerateAll
)

// generate returns c's generate mode, GenerateRead when unset.
func (c Config) generate() string {
	if c.Generate == "" {
		return GenerateRead
	}
	return c.Generate
}

// generateLists returns, for a run under GenerateAll, the tables each
// stream builds (its generate option), given how many times the query
// scans each of them: every stream it scans builds its own table with
// every column, and the one scanned the fewest times (the first of Tables
// among equals) also builds the tables the query does not read. So the
// query's scans build every event of the sequence between them, each kind
// once when every stream is scanned once. A stream scanned twice (a
// query planned with the optimizer off that reads bid in two places; the
// optimizer merges such scans) builds its events twice, as it does under
// GenerateRead, and the unread tables twice when it is the only one.
// A query that scans none of the streams gets nothing: there is no scan
// to build the sequence in.
func generateLists(scans map[string]int) map[string][]string {
	lists := map[string][]string{}
	carrier := ""
	for _, table := range Tables {
		n := scans[table]
		if n == 0 {
			continue
		}
		lists[table] = []string{table}
		if carrier == "" || n < scans[carrier] {
			carrier = table
		}
	}
	if carrier == "" {
		return nil
	}
	for _, table := range Tables {
		if scans[table] == 0 {
			lists[carrier] = append(lists[carrier], table)
		}
	}
	return lists
}

// countScans returns how many times the continuous queries of stmts scan
// each of the streams person, auction and bid. It plans them as the run
// does, in an engine of its own (in memory, its own scratch directory with
// the query directory's data files) over the streams of c throttled to
// one event a second, so that the queries it starts do next to nothing
// before it closes the engine, and counts the nexmark sources of their
// dataflows. Only the statements that create objects are run: a pull
// query or a FLUSH would wait for the throttled streams.
func countScans(ctx context.Context, c Config, stmts []sql.Stmt) (map[string]int, error) {
	dir, err := os.MkdirTemp("", "eddy-nexmark-scans-")
	if err != nil {
		return nil, fmt.Errorf("scratch directory: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := copyDataFiles(c.Dir, dir); err != nil {
		return nil, err
	}
	eng, err := engine.Open(ctx, engine.Config{FileRoot: dir, Parallelism: c.parallelism()})
	if err != nil {
		return nil, fmt.Errorf("opening an engine to plan in: %w", err)
	}
	defer eng.Close()
	sess := eng.NewSession(engine.SessionOptions{})
	probe := c
	probe.Rate, probe.Generate = 1, GenerateRead
	for _, ddl := range StreamDDL(probe) {
		if err := execText(ctx, sess, ddl); err != nil {
			return nil, fmt.Errorf("creating the streams: %w", err)
		}
	}
	for _, st := range stmts {
		switch st.(type) {
		case *sql.CreateStream, *sql.CreateTable, *sql.CreateView, *sql.CreateSink, *sql.Set:
			if _, err := sess.Execute(ctx, st); err != nil {
				return nil, err
			}
		}
	}
	scans := map[string]int{}
	for _, q := range eng.ObserveQueries() {
		for _, s := range q.Stages {
			for _, op := range s.Operators {
				if table, ok := scannedStream(op); ok {
					scans[table]++
				}
			}
		}
	}
	return scans, nil
}

// scannedStream returns the stream a source operator scans when it is one
// of the nexmark streams: its name reads "Source <stream> kind=nexmark
// ...", as EXPLAIN prints it.
func scannedStream(op engine.OperatorInfo) (string, bool) {
	f := strings.Fields(op.Name)
	if !op.Source || len(f) < 3 || f[0] != "Source" || f[2] != "kind="+nexgen.Name {
		return "", false
	}
	for _, table := range Tables {
		if strings.EqualFold(f[1], table) {
			return table, true
		}
	}
	return "", false
}

// streamsFor returns the statements that create the streams a run of
// stmts reads: StreamDDL's, under GenerateAll with each stream's share of
// the whole generator (generateLists over countScans).
func streamsFor(ctx context.Context, c Config, stmts []sql.Stmt) ([]string, error) {
	if c.generate() != GenerateAll {
		return StreamDDL(c), nil
	}
	scans, err := countScans(ctx, c, stmts)
	if err != nil {
		return nil, fmt.Errorf("planning the query to share the whole generator among its streams (--generate all): %w", err)
	}
	return streamDDL(c, generateLists(scans)), nil
}
