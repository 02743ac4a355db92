package nexmark

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	nexgen "github.com/eddysql/eddy/exec/connector/nexmark"
)

// Config says how every query of a run is run.
type Config struct {
	// Events is the length of the global event sequence (persons,
	// auctions and bids together) each stream is generated from.
	Events int64
	// Parallelism is the parallelism of the engine's queries; 0 means the
	// number of CPUs.
	Parallelism int
	// Rate throttles the generator to this many events per second of wall
	// clock (the connector's rate); 0 means unthrottled.
	Rate float64
	// Dir is the query directory; "" means the queries built into the
	// binary (package queries). Files in it other than queries and
	// documentation (such as q13's side input) are copied into the
	// scratch directory each query runs in, where relative connector
	// paths resolve.
	Dir string
	// CheckpointInterval checkpoints the query's job this often into a
	// state store in the engine's data directory (0: no checkpoints). It
	// implies OnDisk.
	CheckpointInterval time.Duration
	// WatermarkAlignment aligns the watermarks of the query's sources
	// within this drift (engine.Config.WatermarkAlignment; 0: not
	// aligned).
	WatermarkAlignment time.Duration
	// OnDisk runs the engine on a data directory (Badger) in the query's
	// scratch directory rather than in memory: the baseline to compare
	// checkpointed runs with.
	OnDisk bool
	// Generate is what the generator makes: GenerateRead (or "", the
	// default) only the tables the query reads, GenerateAll every event of
	// every table with every column.
	Generate string
}

// DefaultEvents is the default length of a run: 10 million events, a tenth
// of the community's standard 100M (NEXMARK.md §5.6), so that a run of the
// whole suite on a small machine takes minutes rather than hours.
const DefaultEvents = 10_000_000

// watermarkDelay is the watermark every stream declares: date_time minus
// 4 seconds, as Flink's and RisingWave's Nexmark DDL declare it
// (NEXMARK.md §1.5).
const watermarkDelay = "INTERVAL '4' SECOND"

// Tables are the generator's tables, in the order the streams are created.
var Tables = []string{nexgen.TablePerson, nexgen.TableAuction, nexgen.TableBid}

// parallelism returns the parallelism queries run at.
func (c Config) parallelism() int {
	if c.Parallelism > 0 {
		return c.Parallelism
	}
	return runtime.NumCPU()
}

// onDisk reports whether queries run on a data directory.
func (c Config) onDisk() bool { return c.OnDisk || c.CheckpointInterval > 0 }

// Validate reports what is wrong with c, if anything.
func (c Config) Validate() error {
	if c.Events < 1 || c.Events > nexgen.MaxEvents {
		return fmt.Errorf("events must be from 1 to %d, got %d", nexgen.MaxEvents, c.Events)
	}
	if c.Parallelism < 0 || c.Parallelism > 256 {
		return fmt.Errorf("parallelism must be from 1 to 256 (0: the number of CPUs), got %d", c.Parallelism)
	}
	if c.Rate < 0 || c.Rate > float64(nexgen.MaxRate) {
		return fmt.Errorf("rate must be from 0 (unthrottled) to %d events/s, got %g", nexgen.MaxRate, c.Rate)
	}
	if c.WatermarkAlignment < 0 {
		return fmt.Errorf("watermark alignment must not be negative, got %s", c.WatermarkAlignment)
	}
	if c.CheckpointInterval < 0 {
		return fmt.Errorf("checkpoint interval must not be negative, got %s", c.CheckpointInterval)
	}
	if g := c.generate(); g != GenerateRead && g != GenerateAll {
		return fmt.Errorf("generate must be %q or %q, got %q", GenerateRead, GenerateAll, c.Generate)
	}
	return nil
}

// StreamDDL returns the statements that create the streams person,
// auction and bid: every column of their table, the watermark, and the
// generator's options. Each builds only its own table's events: under
// GenerateAll a run shares the rest among the streams its query scans
// (streamsFor).
func StreamDDL(c Config) []string { return streamDDL(c, nil) }

// streamDDL is StreamDDL with the tables each stream builds (its generate
// option, joined by commas), by stream; a stream without any has none.
func streamDDL(c Config, generate map[string][]string) []string {
	out := make([]string, 0, len(Tables))
	for _, table := range Tables {
		var b strings.Builder
		fmt.Fprintf(&b, "CREATE STREAM %s (", table)
		for _, col := range nexgen.Columns(table) {
			fmt.Fprintf(&b, "%s %s, ", col.Name, col.Type)
		}
		fmt.Fprintf(&b, "WATERMARK FOR date_time AS date_time - %s) WITH (connector = 'nexmark', table = '%s', events = '%d'",
			watermarkDelay, table, c.Events)
		if c.Rate > 0 {
			fmt.Fprintf(&b, ", rate = '%s'", strconv.FormatFloat(c.Rate, 'f', -1, 64))
		}
		if g := generate[table]; len(g) > 0 {
			fmt.Fprintf(&b, ", generate = '%s'", strings.Join(g, ", "))
		}
		b.WriteString(");")
		out = append(out, b.String())
	}
	return out
}

// BaselineName is the name the baseline is reported under.
const BaselineName = "baseline"

// BaselineDescription says what the baseline runs, for the report.
const BaselineDescription = "person, auction and bid, every column, each drained into a blackhole sink (no query work)"

// Baseline returns the generator-only run: every column of the three
// streams into blackhole sinks.
func Baseline() Query {
	var b strings.Builder
	for _, table := range Tables {
		fmt.Fprintf(&b, "CREATE SINK base_%s AS SELECT * FROM %s WITH (connector = 'blackhole');\n", table, table)
	}
	return Query{Name: BaselineName, Text: b.String()}
}
