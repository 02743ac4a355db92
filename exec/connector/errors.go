package connector

import (
	"errors"
	"strings"
)

// OptionError is an error about one WITH option of a stream, table or
// sink: every connector's option errors implement it, and so do the
// registry's, so that the engine can point at the option's value.
type OptionError interface {
	error
	// OptionName names the option, in lower case.
	OptionName() string
}

// ErrorOption returns the option err is about, if it is (or wraps) an
// OptionError.
func ErrorOption(err error) (string, bool) {
	var oe OptionError
	if !errors.As(err, &oe) {
		return "", false
	}
	return oe.OptionName(), true
}

// UnknownError is a connector name the registry does not know, or a sink
// without a connector option.
type UnknownError struct {
	Sink  bool     // a sink connector was asked for
	Name  string   // the name as written; "" for a sink without one
	Known []string // the names the registry knows, in the order messages list them
}

// Error returns, for a source, "unknown connector 'x' (connectors: a, b)";
// for a sink, "sink: option connector: unknown sink connector 'x' (want
// 'a' or 'b')", or "... is required (want ...)" when Name is empty.
func (e *UnknownError) Error() string {
	if !e.Sink {
		return "unknown connector '" + e.Name + "' (connectors: " + strings.Join(e.Known, ", ") + ")"
	}
	want := "(want " + alternatives(e.Known) + ")"
	if e.Name == "" {
		return "sink: option connector: is required " + want
	}
	return "sink: option connector: unknown sink connector " + Quote(e.Name) + " " + want
}

// OptionName implements OptionError: the name is the connector option's.
func (e *UnknownError) OptionName() string { return "connector" }

// NotSupportedError is a connector SQL.md names that eddy does not
// implement yet.
type NotSupportedError struct {
	Name string // in lower case
}

// Feature returns what is not supported, "connector 'name'", as the
// engine's not-supported errors name features.
func (e *NotSupportedError) Feature() string { return "connector " + Quote(e.Name) }

// Error returns "not supported yet: connector 'name'".
func (e *NotSupportedError) Error() string { return "not supported yet: " + e.Feature() }

// OptionName implements OptionError: the name is the connector option's.
func (e *NotSupportedError) OptionName() string { return "connector" }

// Quote renders an option value as a SQL string literal.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// alternatives lists names as "'a', 'b' or 'c'".
func alternatives(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = Quote(n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
