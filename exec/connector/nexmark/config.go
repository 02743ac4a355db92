package nexmark

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

// Defaults and limits of the options.
const (
	// DefaultFirstEventRate spaces event timestamps 0.1 ms apart, as
	// Flink's, Beam's and RisingWave's generators do (NEXMARK.md §1.2).
	DefaultFirstEventRate = 10_000
	// DefaultBaseTime is 2015-07-15 00:00:00 UTC, Beam's fixed base time,
	// so that runs are reproducible (NEXMARK.md §1.2, §1.9).
	DefaultBaseTime = int64(1436918400000)
	// DefaultBatchSize is within DESIGN.md's 1–8 K rows per batch, large
	// enough to amortize per-batch costs.
	DefaultBatchSize = 4096
	// MaxBatchSize keeps a batch's string offsets within int32 even for
	// auction rows (about 600 bytes at most each).
	MaxBatchSize = 1 << 20
	// MaxEvents keeps event numbers exact in a float64 (used for the
	// wall-clock schedule) and event times far from overflow.
	MaxEvents = int64(1) << 53
	// MaxRate bounds first_event_rate and rate so that timestamp
	// arithmetic stays within 64 bits.
	MaxRate = int64(1_000_000_000_000)
)

// The range of base_time: years 0001 to 9999, as TIMESTAMP holds them.
const (
	minBaseTime = int64(-62135596800000) // 0001-01-01 00:00:00
	maxBaseTime = int64(253402300799999) // 9999-12-31 23:59:59.999
)

// Config says which table a nexmark source generates and how.
type Config struct {
	// Table is TableBid, TableAuction or TablePerson.
	Table string
	// Events is the length of the global event sequence (all kinds); 0
	// means unbounded.
	Events int64
	// FirstEventRate spaces event timestamps: event n is stamped
	// BaseTime + floor(n*1000/FirstEventRate) ms. 0 means
	// DefaultFirstEventRate.
	FirstEventRate int64
	// Rate throttles emission to this many events of the global sequence
	// per wall-clock second, across all splits; 0 means unthrottled.
	Rate float64
	// Seed selects the pseudo-random values; the same seed gives the same
	// rows.
	Seed int64
	// BaseTime is the timestamp of event 0, in ms since the Unix epoch.
	// FromOptions defaults it to DefaultBaseTime; a Config built by hand
	// must set it (0 is 1970-01-01).
	BaseTime int64
	// BatchSize is the most rows per chunk; 0 means DefaultBatchSize.
	BatchSize int
	// Columns are the stream's declared columns, a subset of the table's
	// in any order; none means all of them (see Columns).
	Columns []catalog.Column
	// Generate lists the tables whose events the source builds, as the
	// generate option names them ('all' is all three): the events of the
	// other tables listed are built with every column into record
	// batches of their own and released, and the table's own events are
	// built with every column, declared or not. The rows it returns are
	// the same as without; only the work differs, which with all three
	// is that of the whole generator. Nil (generate = 'read') builds only
	// the table's own events, and only their declared columns.
	Generate []string

	// block, when set, replaces SplitBlock: the package's tests take
	// splits of one event in turn, where a table's events can end long
	// before its split's.
	block uint64
}

// options lists the WITH options a nexmark stream accepts.
var options = []string{"connector", "table", "events", "first_event_rate", "rate", "seed", "base_time", "batch_size", "generate"}

// FromOptions builds a Config from a stream's WITH options (keys matched
// case-insensitively) and its declared columns, validating both. An unknown
// option, a bad value or a missing table is an *OptionError naming the
// option; a declared column the table does not have is a *ColumnError
// listing the valid ones.
func FromOptions(opts map[string]string, cols []catalog.Column) (Config, error) {
	var unknown []string
	for k := range opts {
		if !isOption(k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Config{}, &OptionError{Option: unknown[0], Msg: "unknown option (valid: " + strings.Join(options, ", ") + ")"}
	}
	get := lookup(opts)
	if c, ok := get("connector"); ok && !strings.EqualFold(c, Name) {
		return Config{}, &OptionError{Option: "connector", Msg: "is " + quote(c) + ", not 'nexmark'"}
	}
	cfg := Config{BaseTime: DefaultBaseTime, Columns: cols}
	table, ok := get("table")
	if !ok || table == "" {
		return Config{}, &OptionError{Option: "table", Msg: "is required (want 'bid', 'auction' or 'person')"}
	}
	cfg.Table = strings.ToLower(table)
	var err error
	if v, ok := get("events"); ok {
		if cfg.Events, err = intOption("events", v, 0, MaxEvents); err != nil {
			return Config{}, err
		}
	}
	if v, ok := get("first_event_rate"); ok {
		if cfg.FirstEventRate, err = intOption("first_event_rate", v, 1, MaxRate); err != nil {
			return Config{}, err
		}
	}
	if v, ok := get("rate"); ok {
		if cfg.Rate, err = rateOption(v); err != nil {
			return Config{}, err
		}
	}
	if v, ok := get("seed"); ok {
		if cfg.Seed, err = intOption("seed", v, math.MinInt64, math.MaxInt64); err != nil {
			return Config{}, err
		}
	}
	if v, ok := get("base_time"); ok {
		if cfg.BaseTime, err = baseTimeOption(v); err != nil {
			return Config{}, err
		}
	}
	if v, ok := get("batch_size"); ok {
		n, err := intOption("batch_size", v, 1, MaxBatchSize)
		if err != nil {
			return Config{}, err
		}
		cfg.BatchSize = int(n)
	}
	if v, ok := get("generate"); ok {
		if cfg.Generate, err = generateOption(v); err != nil {
			return Config{}, err
		}
	}
	if err := cfg.validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// lookup returns a getter of opts' values, trimmed, by key matched
// without regard to case.
func lookup(opts map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for k, v := range opts {
			if strings.EqualFold(k, name) {
				return strings.TrimSpace(v), true
			}
		}
		return "", false
	}
}

// isOption reports whether k names an option of a nexmark stream.
func isOption(k string) bool {
	for _, o := range options {
		if strings.EqualFold(k, o) {
			return true
		}
	}
	return false
}

// intOption parses an integer option within [lo, hi].
func intOption(name, v string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, &OptionError{Option: name, Msg: "invalid value " + quote(v) + " (want an integer)", Err: err}
	}
	if n < lo || n > hi {
		return 0, &OptionError{Option: name, Msg: "value " + v + " is out of range [" + strconv.FormatInt(lo, 10) + ", " + strconv.FormatInt(hi, 10) + "]"}
	}
	return n, nil
}

// rateOption parses the wall-clock rate: a non-negative number of events
// per second, fractions allowed.
func rateOption(v string) (float64, error) {
	r, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, &OptionError{Option: "rate", Msg: "invalid value " + quote(v) + " (want events per second, 0 for unthrottled)", Err: err}
	}
	if math.IsNaN(r) || r < 0 || r > float64(MaxRate) {
		return 0, &OptionError{Option: "rate", Msg: "value " + v + " is out of range [0, " + strconv.FormatInt(MaxRate, 10) + "]"}
	}
	return r, nil
}

// baseTimeOption parses base_time: 'YYYY-MM-DD HH:MM:SS[.fff]' (UTC) or an
// integer count of milliseconds since the Unix epoch, as SQL.md lets files
// write timestamps.
func baseTimeOption(v string) (int64, error) {
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		if ms, err = types.ParseTimestamp(v); err != nil {
			return 0, &OptionError{Option: "base_time", Msg: "invalid value " + quote(v) + " (want 'YYYY-MM-DD HH:MM:SS' or milliseconds since the epoch)", Err: err}
		}
	}
	if ms < minBaseTime || ms > maxBaseTime {
		return 0, &OptionError{Option: "base_time", Msg: "value " + quote(v) + " is outside years 0001 to 9999"}
	}
	return ms, nil
}

// GenerateRead and GenerateAll are the generate option's two named values:
// build only what the stream reads, or the whole event sequence.
const (
	GenerateRead = "read"
	GenerateAll  = "all"
)

// generateOption parses the generate option: 'read' (nil), 'all' (the
// three tables), or a comma-separated list of tables, returned once each
// in the order person, auction, bid.
func generateOption(v string) ([]string, error) {
	switch strings.ToLower(v) {
	case GenerateRead:
		return nil, nil
	case GenerateAll:
		return []string{TablePerson, TableAuction, TableBid}, nil
	}
	var listed [numKinds]bool
	for _, part := range strings.Split(v, ",") {
		k, ok := tableKind(part)
		if !ok {
			return nil, &OptionError{Option: "generate", Msg: "invalid value " + quote(v) + " (want 'read', 'all' or tables such as 'person, bid')"}
		}
		listed[k] = true
	}
	var out []string
	for k, name := range kindNames {
		if listed[k] {
			out = append(out, name)
		}
	}
	return out, nil
}

// validate checks a Config built by hand or by FromOptions.
func (c *Config) validate() error {
	k, ok := tableKind(c.Table)
	if !ok {
		return &OptionError{Option: "table", Msg: "invalid value " + quote(c.Table) + " (want 'bid', 'auction' or 'person')"}
	}
	switch {
	case c.Events < 0 || c.Events > MaxEvents:
		return &OptionError{Option: "events", Msg: "value " + strconv.FormatInt(c.Events, 10) + " is out of range [0, " + strconv.FormatInt(MaxEvents, 10) + "]"}
	case c.FirstEventRate < 0 || c.FirstEventRate > MaxRate:
		return &OptionError{Option: "first_event_rate", Msg: "value " + strconv.FormatInt(c.FirstEventRate, 10) + " is out of range [1, " + strconv.FormatInt(MaxRate, 10) + "]"}
	case math.IsNaN(c.Rate) || c.Rate < 0 || c.Rate > float64(MaxRate):
		return &OptionError{Option: "rate", Msg: "value " + strconv.FormatFloat(c.Rate, 'g', -1, 64) + " is out of range [0, " + strconv.FormatInt(MaxRate, 10) + "]"}
	case c.BaseTime < minBaseTime || c.BaseTime > maxBaseTime:
		return &OptionError{Option: "base_time", Msg: "value " + strconv.FormatInt(c.BaseTime, 10) + " is outside years 0001 to 9999"}
	case c.BatchSize < 0 || c.BatchSize > MaxBatchSize:
		return &OptionError{Option: "batch_size", Msg: "value " + strconv.Itoa(c.BatchSize) + " is out of range [1, " + strconv.Itoa(MaxBatchSize) + "]"}
	}
	for _, t := range c.Generate {
		if _, ok := tableKind(t); !ok {
			return &OptionError{Option: "generate", Msg: "invalid table " + quote(t) + " (want 'bid', 'auction' or 'person')"}
		}
	}
	_, err := bindColumns(k, strings.ToLower(strings.TrimSpace(c.Table)), c.Columns)
	return err
}

// OptionError reports a WITH option of a nexmark stream that is unknown,
// missing or has a bad value. Option names the option; Err, when set, is
// the underlying cause (a number that does not parse, say), reachable with
// errors.Is and errors.As.
type OptionError struct {
	Option string
	Msg    string
	Err    error
}

// Error returns "nexmark connector: option name: msg".
func (e *OptionError) Error() string {
	return fmt.Sprintf("nexmark connector: option %s: %s", e.Option, e.Msg)
}

// Unwrap returns the underlying cause, if any.
func (e *OptionError) Unwrap() error { return e.Err }

// ColumnError reports a declared column of a nexmark stream that the table
// does not have, that is declared twice, or whose type cannot hold the
// table's values. Column names the column as declared.
type ColumnError struct {
	Column string
	Msg    string
}

// Error returns "nexmark connector: column name: msg".
func (e *ColumnError) Error() string {
	return fmt.Sprintf("nexmark connector: column %s: %s", e.Column, e.Msg)
}

// The errors of a source used out of order.
var (
	errNotOpen     = errors.New("nexmark connector: source is not open")
	errClosed      = errors.New("nexmark connector: source is closed")
	errAlreadyOpen = errors.New("nexmark connector: source is already open")
)

// quote renders an option value as a SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
