package sink

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

// The sink connectors, as named by WITH (connector = '...').
const (
	ConnectorFile      = "file"
	ConnectorPrint     = "print"
	ConnectorBlackhole = "blackhole"
)

// The values of Config.Format.
const (
	FormatJSON = "json" // JSON lines: one object per row
	FormatCSV  = "csv"  // RFC 4180
	FormatText = "text" // print's default: values separated by spaces, as types.Format shows them
)

// The values of the 'type' option, accepted for RisingWave compatibility.
const (
	TypeAppendOnly = "append-only"
	TypeUpsert     = "upsert"
)

// Config says where a sink writes and how.
type Config struct {
	Connector string        // ConnectorFile, ConnectorPrint or ConnectorBlackhole
	Path      string        // file: as given in WITH (path = ...); messages name it so
	Root      fileroot.Root // file: Path resolves against it and must stay inside it (and out of the data directory)
	// Format is FormatJSON or FormatCSV for a file (inferred from the
	// path's extension when empty), and FormatText (the default), FormatJSON
	// or FormatCSV for print.
	Format string
	Header bool // CSV: write a header line naming the columns
	// AppendOnly is set by the planner when the query never retracts: rows
	// are then written without their op.
	AppendOnly bool
	// ForceAppendOnly records WITH (type = 'append-only'): the user demands
	// an append-only query, and the caller reports an updating one as an
	// error. The sink itself does not read it.
	ForceAppendOnly bool
	Names           []string  // the column names, in order
	Types           []types.T // the column types, in order
	Stdout          io.Writer // print: where lines go; nil means os.Stdout
	// RateLimit caps the rows written per second (0: no cap): a sink that
	// writes more slowly than its query produces back-pressures the query
	// down to its sources, as a slow external system would.
	RateLimit float64
	// PartitionBy names the columns a file sink partitions its rows by
	// (WITH (partition_by = 'a, b')): Path is then a directory, and each
	// row goes to Path/a=<value>/b=<value>/part-<instance>.<ext>. The names
	// match the query's columns without regard to case.
	PartitionBy []string
	// MaxOpenFiles bounds the partition files a partitioned sink keeps
	// open; beyond it the least recently written one is closed, and
	// reopened for appending when a row for it comes. 0 means
	// DefaultMaxOpenFiles.
	MaxOpenFiles int
	// TwoPhase makes a file sink publish exactly once when its query is
	// checkpointed (see TwoPhase): the engine sets it for the sinks of
	// the queries it checkpoints.
	TwoPhase bool
	// FlushInterval bounds how long a file sink's rows wait in its buffer
	// (WITH (flush_interval = '1s')): it writes them out (without fsync)
	// once the first of them has waited that long, input or not. 0 means
	// DefaultFlushInterval; FlushEveryChunk writes every chunk out at once.
	FlushInterval time.Duration
}

// DefaultFlushInterval is the default of Config.FlushInterval: a reader of
// the file sees a row within a second, while a fast query still writes
// its output in buffers of many rows (the buffer also goes out whenever
// it fills).
const DefaultFlushInterval = time.Second

// FlushEveryChunk is the Config.FlushInterval of flush_interval = '0': the
// buffer is written out after every chunk.
const FlushEveryChunk time.Duration = -1

// DefaultMaxOpenFiles is the default of Config.MaxOpenFiles: well below
// the usual limit of 1024 descriptors per process, which every other file
// and socket of eddy shares, yet enough for the partitions a time-ordered
// stream writes at once (q10 writes one minute at a time).
const DefaultMaxOpenFiles = 100

// OptionError reports a sink's WITH option that is unknown, missing or has
// a bad value. Connector is the sink's connector when known, and Option
// names the option.
type OptionError struct {
	Connector string
	Option    string
	Msg       string
	Err       error // the cause, when there is one (a *fileroot.PathError)
}

// Unwrap returns the cause.
func (e *OptionError) Unwrap() error { return e.Err }

// Error returns "<connector> sink: option <name>: <msg>".
func (e *OptionError) Error() string {
	who := "sink"
	if e.Connector != "" {
		who = e.Connector + " sink"
	}
	return fmt.Sprintf("%s: option %s: %s", who, e.Option, e.Msg)
}

// options lists, per connector, the WITH options it accepts, in the order
// messages list them.
var options = map[string][]string{
	ConnectorFile:      {"connector", "path", "format", "header", "type", "rate_limit", "partition_by", "max_open_files", "flush_interval"},
	ConnectorPrint:     {"connector", "format", "header", "type", "rate_limit"},
	ConnectorBlackhole: {"connector", "type", "rate_limit"},
}

// FromOptions builds a Config from a sink's WITH options (keys matched
// without regard to case) and validates them: connector ('file', 'print' or
// 'blackhole'), path (file: required), format (file: 'csv' or 'json',
// inferred from a .csv, .json, .jsonl or .ndjson path; print: 'text', 'json'
// or 'csv'), header ('true' or 'false', CSV only) and type ('append-only'
// or 'upsert'), partition_by (file: a comma-separated list of column
// names), max_open_files (with partition_by: a positive count) and
// flush_interval (file: a duration, connector.ParseDuration; '0' writes
// every chunk out at once). An unknown option, a bad value, a missing one
// or a path that root refuses (outside it, or in the data directory) is an
// *OptionError naming the option. Names, Types and AppendOnly are left for
// the engine to fill.
func FromOptions(opts map[string]string, root fileroot.Root) (Config, error) {
	get := func(name string) (string, bool) {
		for k, v := range opts {
			if strings.EqualFold(k, name) {
				return v, true
			}
		}
		return "", false
	}
	conn, ok := get("connector")
	if !ok {
		return Config{}, &OptionError{Option: "connector", Msg: "is required (want 'file', 'print' or 'blackhole')"}
	}
	cfg := Config{Connector: strings.ToLower(strings.TrimSpace(conn)), Root: root}
	valid, ok := options[cfg.Connector]
	if !ok {
		return Config{}, &OptionError{Option: "connector", Msg: "unknown sink connector " + quote(conn) + " (want 'file', 'print' or 'blackhole')"}
	}
	var unknown []string
	for k := range opts {
		if !slices.Contains(valid, strings.ToLower(k)) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Config{}, cfg.optErr(unknown[0], "unknown option (valid: "+strings.Join(valid, ", ")+")")
	}
	if cfg.Connector == ConnectorFile {
		path, ok := get("path")
		if !ok || strings.TrimSpace(path) == "" {
			return Config{}, cfg.optErr("path", "is required")
		}
		cfg.Path = path
		if _, err := cfg.Resolve(); err != nil {
			return Config{}, err
		}
	}
	if f, ok := get("format"); ok {
		cfg.Format = strings.ToLower(strings.TrimSpace(f))
		if !cfg.formatValid() {
			return Config{}, cfg.optErr("format", "invalid value "+quote(f)+" (want "+cfg.formatsWanted()+")")
		}
	}
	if v, ok := get("header"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			cfg.Header = true
		case "false":
		default:
			return Config{}, cfg.optErr("header", "invalid value "+quote(v)+" (want 'true' or 'false')")
		}
	}
	if v, ok := get("type"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case TypeAppendOnly:
			cfg.ForceAppendOnly = true
		case TypeUpsert:
		default:
			return Config{}, cfg.optErr("type", "invalid value "+quote(v)+" (want 'append-only' or 'upsert')")
		}
	}
	if v, ok := get("rate_limit"); ok {
		r, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || r < 0 || math.IsInf(r, 0) || math.IsNaN(r) {
			return Config{}, cfg.optErr("rate_limit", "invalid value "+quote(v)+" (want rows per second, 0 for none)")
		}
		cfg.RateLimit = r
	}
	if v, ok := get("partition_by"); ok {
		cols, err := parsePartitionBy(v)
		if err != nil {
			return Config{}, cfg.optErr("partition_by", err.Error())
		}
		cfg.PartitionBy = cols
	}
	if v, ok := get("max_open_files"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return Config{}, cfg.optErr("max_open_files", "invalid value "+quote(v)+" (want a positive number of files)")
		}
		if cfg.PartitionBy == nil {
			return Config{}, cfg.optErr("max_open_files", "applies only with partition_by")
		}
		cfg.MaxOpenFiles = n
	}
	if v, ok := get("flush_interval"); ok {
		d, err := connector.ParseDuration(v)
		if err != nil {
			return Config{}, cfg.optErr("flush_interval", err.Error())
		}
		if cfg.FlushInterval = d; d == 0 {
			cfg.FlushInterval = FlushEveryChunk
		}
	}
	if err := cfg.resolveFormat(); err != nil {
		return Config{}, err
	}
	if _, ok := get("header"); ok && cfg.Format != FormatCSV {
		return Config{}, cfg.optErr("header", "applies only to format 'csv'")
	}
	return cfg, nil
}

// resolveFormat fills in the default format: a file's is inferred from
// its path's extension, print's is text.
func (c *Config) resolveFormat() error {
	if c.Format != "" {
		return nil
	}
	switch c.Connector {
	case ConnectorFile:
		switch strings.ToLower(filepath.Ext(c.Path)) {
		case ".csv":
			c.Format = FormatCSV
		case ".json", ".jsonl", ".ndjson":
			c.Format = FormatJSON
		default:
			return c.optErr("format", "is required (cannot infer it from the extension of "+quote(c.Path)+"; want 'csv' or 'json')")
		}
	case ConnectorPrint:
		c.Format = FormatText
	}
	return nil
}

// formatValid reports whether c.Format is one its connector writes.
func (c *Config) formatValid() bool {
	switch c.Format {
	case FormatJSON, FormatCSV:
		return c.Connector != ConnectorBlackhole
	case FormatText:
		return c.Connector == ConnectorPrint
	}
	return false
}

// formatsWanted lists the formats c's connector writes, for messages.
func (c *Config) formatsWanted() string {
	if c.Connector == ConnectorPrint {
		return "'text', 'json' or 'csv'"
	}
	return "'csv' or 'json'"
}

// validate checks a Config built by hand or by FromOptions and fills in
// its default format.
func (c *Config) validate() error {
	if _, ok := options[c.Connector]; !ok {
		return &OptionError{Option: "connector", Msg: "unknown sink connector " + quote(c.Connector) + " (want 'file', 'print' or 'blackhole')"}
	}
	if c.Connector == ConnectorFile && strings.TrimSpace(c.Path) == "" {
		return c.optErr("path", "is required")
	}
	if err := c.resolveFormat(); err != nil {
		return err
	}
	if c.Format != "" && !c.formatValid() {
		return c.optErr("format", "invalid value "+quote(c.Format)+" (want "+c.formatsWanted()+")")
	}
	if c.Header && c.Format != FormatCSV {
		return c.optErr("header", "applies only to format 'csv'")
	}
	if len(c.Names) != len(c.Types) {
		return fmt.Errorf("%s sink: %d column names for %d column types", c.Connector, len(c.Names), len(c.Types))
	}
	if len(c.PartitionBy) > 0 {
		if c.Connector != ConnectorFile {
			return c.optErr("partition_by", "applies only to the file connector")
		}
		if _, err := c.partitionColumns(); err != nil {
			return err
		}
	}
	if c.MaxOpenFiles < 0 {
		return c.optErr("max_open_files", "must not be negative")
	}
	if c.FlushInterval < 0 && c.FlushInterval != FlushEveryChunk {
		return c.optErr("flush_interval", "must not be negative")
	}
	for j, t := range c.Types {
		if t.Physical() == types.PhysNull && t.Kind != types.Null {
			return fmt.Errorf("%s sink: column %s: type %s cannot be written", c.Connector, c.Names[j], t)
		}
	}
	// An updating query's op is written as a field named op; a column of
	// that name would make the JSON keys or the CSV header ambiguous.
	if !c.AppendOnly && (c.Format == FormatJSON || c.Format == FormatCSV && c.Header) {
		for _, name := range c.Names {
			if name == "op" {
				return fmt.Errorf("%s sink: column op clashes with the op field the sink writes for an updating query; rename the column (AS)", c.Connector)
			}
		}
	}
	return nil
}

// Resolve returns the path a file sink writes (a partitioned sink: its
// root directory): Path resolved against Root, symbolic links followed. A
// path outside the root or in the data directory is an *OptionError for
// the path option, wrapping the *fileroot.PathError.
func (c *Config) Resolve() (string, error) {
	path, err := c.Root.Resolve(c.Path)
	if err != nil {
		return "", &OptionError{Connector: c.Connector, Option: "path", Msg: err.Error(), Err: err}
	}
	return path, nil
}

// optErr returns an *OptionError for option name of c's connector.
func (c *Config) optErr(name, msg string) *OptionError {
	return &OptionError{Connector: c.Connector, Option: name, Msg: msg}
}

// quote renders an option value as a SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
