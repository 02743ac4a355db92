package datagen

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog"
)

// Limits of the options.
const (
	// DefaultBatchSize is within DESIGN.md's 1–8 K rows per batch.
	DefaultBatchSize = 4096
	// MaxBatchSize bounds batch_size.
	MaxBatchSize = 1 << 20
	// MaxRows keeps row numbers exact in a float64, which the wall-clock
	// schedule uses.
	MaxRows = int64(1) << 53
	// MaxRate bounds rate.
	MaxRate = 1e12
)

// unbounded is the length of a generator that never ends.
const unbounded = math.MaxUint64

// Config says what a datagen source generates.
type Config struct {
	// Rows is how many rows the generator makes; 0: as many as its
	// sequences allow (unbounded when none ends).
	Rows int64
	// Rate throttles the rows to this many per wall-clock second across
	// every split; 0: unthrottled.
	Rate float64
	// Seed selects the values; the same seed gives the same rows.
	Seed int64
	// BatchSize is the most rows per chunk; 0: DefaultBatchSize.
	BatchSize int
	// Fields generate the declared columns, in their order.
	Fields []Field
}

// Len returns how many rows the generator makes: Rows, or fewer when a
// sequence ends sooner, or unbounded.
func (c *Config) Len() uint64 {
	n := uint64(unbounded)
	if c.Rows > 0 {
		n = uint64(c.Rows)
	}
	for i := range c.Fields {
		n = min(n, c.Fields[i].seqLen())
	}
	return n
}

// options are the WITH options besides the fields' ones.
var options = []string{"connector", "rows", "rate", "seed", "batch_size"}

// fieldPrefix starts a column's options: fields.<column>.<property>.
const fieldPrefix = "fields."

// FromOptions builds a Config from a stream's WITH options (keys in lower
// case, as the catalog keeps them) and its declared columns, validating
// both. A bad option is an *OptionError naming it.
func FromOptions(opts map[string]string, cols []catalog.Column) (Config, error) {
	if len(cols) == 0 {
		return Config{}, &OptionError{Option: "connector", Msg: "a datagen stream must declare its columns"}
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first bad option reported is always the same
	props := make([]map[string]string, len(cols))
	for _, k := range keys {
		lk := strings.ToLower(k)
		if slices.Contains(options, lk) {
			continue
		}
		rest, ok := strings.CutPrefix(lk, fieldPrefix)
		if !ok {
			return Config{}, &OptionError{Option: k, Msg: "unknown option (valid: " + strings.Join(options, ", ") + ", and 'fields.<column>.<property>')"}
		}
		col, prop, ok := cutLast(rest)
		if !ok {
			return Config{}, &OptionError{Option: k, Msg: "want 'fields.<column>.<property>', with a property among " + strings.Join(properties, ", ")}
		}
		i := slices.IndexFunc(cols, func(c catalog.Column) bool { return strings.EqualFold(c.Name, col) })
		if i < 0 {
			return Config{}, &OptionError{Option: k, Msg: "the stream has no column " + quote(col)}
		}
		if !slices.Contains(properties, prop) {
			return Config{}, &OptionError{Option: k, Msg: "unknown property " + quote(prop) + " (valid: " + strings.Join(properties, ", ") + ")"}
		}
		if props[i] == nil {
			props[i] = map[string]string{}
		}
		props[i][prop] = strings.TrimSpace(opts[k])
	}
	var cfg Config
	var err error
	get := func(name string) (string, bool) { v, ok := opts[name]; return strings.TrimSpace(v), ok }
	if c, ok := get("connector"); ok && !strings.EqualFold(c, Name) {
		return Config{}, &OptionError{Option: "connector", Msg: "is " + quote(c) + ", not 'datagen'"}
	}
	if v, ok := get("rows"); ok {
		if cfg.Rows, err = intOption("rows", v, 0, MaxRows); err != nil {
			return Config{}, err
		}
	}
	if v, ok := get("rate"); ok {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(r) || r < 0 || r > MaxRate {
			return Config{}, &OptionError{Option: "rate", Msg: "invalid value " + quote(v) + " (want rows per second from 0, unthrottled, to 1e12)"}
		}
		cfg.Rate = r
	}
	if v, ok := get("seed"); ok {
		if cfg.Seed, err = intOption("seed", v, math.MinInt64, math.MaxInt64); err != nil {
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
	cfg.Fields = make([]Field, len(cols))
	for i, c := range cols {
		if cfg.Fields[i], err = newField(c, props[i]); err != nil {
			return Config{}, err
		}
	}
	return cfg, nil
}

// cutLast splits "column.property" at its last dot (a column name may
// hold dots when quoted).
func cutLast(s string) (string, string, bool) {
	i := strings.LastIndexByte(s, '.')
	if i <= 0 || i == len(s)-1 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// intOption parses an integer option within [lo, hi].
func intOption(name, v string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, &OptionError{Option: name, Msg: "invalid value " + quote(v) + " (want an integer)", Err: err}
	}
	if n < lo || n > hi {
		return 0, &OptionError{Option: name, Msg: fmt.Sprintf("value %s is out of range [%d, %d]", v, lo, hi)}
	}
	return n, nil
}

// OptionError reports a WITH option of a datagen stream that is unknown
// or has a bad value. Option names the option; Err, when set, is the
// underlying cause.
type OptionError struct {
	Option string
	Msg    string
	Err    error
}

// Error returns "datagen connector: option name: msg".
func (e *OptionError) Error() string {
	return fmt.Sprintf("datagen connector: option %s: %s", e.Option, e.Msg)
}

// Unwrap returns the underlying cause, if any.
func (e *OptionError) Unwrap() error { return e.Err }

// OptionName implements connector.OptionError.
func (e *OptionError) OptionName() string { return e.Option }

// quote renders a value as a SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
