package file

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

// The values of Config.Format.
const (
	FormatCSV  = "csv"
	FormatJSON = "json" // JSON lines: one object per line
)

// The values of Config.OnError.
const (
	OnErrorSkip = "skip"
	OnErrorFail = "fail"
)

// DefaultBatchSize is the number of rows per chunk when Config.BatchSize is
// 0: within DESIGN.md's 1–8 K target, large enough to amortize per-batch
// costs and small enough to keep a chunk's columns in cache.
const DefaultBatchSize = 4096

// Config says what a file source reads and how.
type Config struct {
	Path   string        // as given in WITH (path = ...); row warnings name the file so
	Root   fileroot.Root // Path resolves against it and must stay inside it (and out of the data directory)
	Format string        // FormatCSV or FormatJSON
	Header bool          // CSV: the first line names the columns
	// Delimiter separates CSV fields; 0 means ','.
	Delimiter byte
	Follow    bool   // keep reading appended data (tail -f); the source is then unbounded
	OnError   string // OnErrorSkip (the default when empty) or OnErrorFail
	Columns   []catalog.Column
	BatchSize int // rows per chunk; 0 means DefaultBatchSize
}

// options lists the WITH options a file stream accepts.
var options = map[string]bool{
	"connector": true, "path": true, "format": true, "header": true,
	"follow": true, "on_error": true, "delimiter": true,
}

// FromOptions builds a Config from a stream's WITH options (keys in lower
// case, as the catalog keeps them) and its columns, validating them. An
// unknown option, a bad value, a missing path or a path that root refuses
// (outside it, or in the data directory) is an *OptionError naming the
// option. When format is not given it is inferred from the path's
// extension (.csv; .json, .jsonl, .ndjson).
func FromOptions(opts map[string]string, cols []catalog.Column, root fileroot.Root) (Config, error) {
	var unknown []string
	for k := range opts {
		if !options[strings.ToLower(k)] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Config{}, &OptionError{Option: unknown[0], Msg: "unknown option (valid: connector, path, format, header, follow, on_error, delimiter)"}
	}
	get := lookup(opts)
	if c, ok := get("connector"); ok && !strings.EqualFold(c, Name) {
		return Config{}, &OptionError{Option: "connector", Msg: "is " + quote(c) + ", not 'file'"}
	}
	cfg := Config{Root: root, Columns: cols}
	path, ok := get("path")
	if !ok || strings.TrimSpace(path) == "" {
		return Config{}, &OptionError{Option: "path", Msg: "is required"}
	}
	cfg.Path = path
	if _, err := cfg.Resolve(); err != nil {
		return Config{}, err
	}
	if f, ok := get("format"); ok {
		cfg.Format = strings.ToLower(strings.TrimSpace(f))
		if cfg.Format != FormatCSV && cfg.Format != FormatJSON {
			return Config{}, &OptionError{Option: "format", Msg: "invalid value " + quote(f) + " (want 'csv' or 'json')"}
		}
	} else if cfg.Format = formatOf(path); cfg.Format == "" {
		return Config{}, &OptionError{Option: "format", Msg: "is required (cannot infer it from the extension of " + quote(path) + "; want 'csv' or 'json')"}
	}
	var err error
	if cfg.Header, err = boolOption(get, "header"); err != nil {
		return Config{}, err
	}
	if cfg.Follow, err = boolOption(get, "follow"); err != nil {
		return Config{}, err
	}
	if v, ok := get("on_error"); ok {
		cfg.OnError = strings.ToLower(strings.TrimSpace(v))
		if cfg.OnError != OnErrorSkip && cfg.OnError != OnErrorFail {
			return Config{}, &OptionError{Option: "on_error", Msg: "invalid value " + quote(v) + " (want 'skip' or 'fail')"}
		}
	}
	if v, ok := get("delimiter"); ok {
		if cfg.Delimiter, err = delimiterOption(v); err != nil {
			return Config{}, err
		}
	}
	if cfg.Format != FormatCSV {
		if _, ok := get("header"); ok {
			return Config{}, &OptionError{Option: "header", Msg: "applies only to format 'csv'"}
		}
		if _, ok := get("delimiter"); ok {
			return Config{}, &OptionError{Option: "delimiter", Msg: "applies only to format 'csv'"}
		}
	}
	if err := cfg.validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// formatOf infers a format from a path's extension, or returns "".
func formatOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return FormatCSV
	case ".json", ".jsonl", ".ndjson":
		return FormatJSON
	}
	return ""
}

// boolOption reads an optional 'true'/'false' option (false when absent).
func boolOption(get func(string) (string, bool), name string) (bool, error) {
	v, ok := get(name)
	if !ok {
		return false, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, &OptionError{Option: name, Msg: "invalid value " + quote(v) + " (want 'true' or 'false')"}
}

// delimiterOption reads the CSV delimiter: one single-byte character other
// than a quote or a line break; `\t` is accepted for a tab.
func delimiterOption(v string) (byte, error) {
	if v == `\t` {
		return '\t', nil
	}
	if len(v) != 1 || v[0] >= 0x80 {
		return 0, &OptionError{Option: "delimiter", Msg: "invalid value " + quote(v) + " (want one ASCII character)"}
	}
	switch v[0] {
	case '"', '\n', '\r':
		return 0, &OptionError{Option: "delimiter", Msg: "invalid value " + quote(v) + " (a quote or line break cannot separate fields)"}
	}
	return v[0], nil
}

// validate checks a Config built by hand or by FromOptions.
func (c *Config) validate() error {
	if strings.TrimSpace(c.Path) == "" {
		return &OptionError{Option: "path", Msg: "is required"}
	}
	if c.Format != FormatCSV && c.Format != FormatJSON {
		return &OptionError{Option: "format", Msg: "invalid value " + quote(c.Format) + " (want 'csv' or 'json')"}
	}
	if c.OnError != "" && c.OnError != OnErrorSkip && c.OnError != OnErrorFail {
		return &OptionError{Option: "on_error", Msg: "invalid value " + quote(c.OnError) + " (want 'skip' or 'fail')"}
	}
	switch c.Delimiter {
	case '"', '\n', '\r':
		return &OptionError{Option: "delimiter", Msg: "a quote or line break cannot separate fields"}
	}
	if c.Delimiter >= 0x80 {
		return &OptionError{Option: "delimiter", Msg: "want one ASCII character"}
	}
	if c.BatchSize < 0 {
		return fmt.Errorf("file connector: batch size %d is negative", c.BatchSize)
	}
	if len(c.Columns) == 0 {
		return errors.New("file connector: a file stream needs at least one column")
	}
	for _, col := range c.Columns {
		if _, err := newColumn(col); err != nil {
			return err
		}
	}
	return nil
}

// Resolve returns the path the source opens: Path resolved against Root,
// symbolic links followed. A path outside the root or in the data
// directory is an *OptionError for the path option, wrapping the
// *fileroot.PathError.
func (c *Config) Resolve() (string, error) {
	path, err := c.Root.Resolve(c.Path)
	if err != nil {
		return "", &OptionError{Option: "path", Msg: err.Error(), Err: err}
	}
	return path, nil
}

// quote renders an option value as a SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
