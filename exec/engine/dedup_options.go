package engine

import (
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/sql"
)

// The WITH options of a source stream's de-duplication (exec/dedup): every
// source stream takes them, whatever feeds it, so the engine reads them
// and connectors never see them.
const (
	optDedupKey    = "dedup_key"
	optDedupWindow = "dedup_window"
	optDedupFPR    = "dedup_fpr"
)

// defaultDedupFPR is the false-positive rate of the Bloom filters in front
// of the exact set when dedup_fpr is not given: one row in a hundred that
// was never seen costs an exact lookup, for about 10 bits of filter per
// key remembered.
const defaultDedupFPR = 0.01

// isDedupOption reports whether key is one of the de-duplication options.
func isDedupOption(key string) bool {
	return key == optDedupKey || key == optDedupWindow || key == optDedupFPR
}

// dedupOf reads the de-duplication options of a source stream with
// columns cols (nil when it has none): dedup_key, one column or several
// separated by commas; dedup_window, a duration above zero
// (connector.ParseDuration); dedup_fpr, a rate between 0 and 1 exclusive.
// An error names the option and points at its value.
func dedupOf(opts []sql.Option, cols []catalog.Column, src *sql.Source) (*catalog.Dedup, error) {
	var key, window, fpr *sql.Option
	for i, o := range opts {
		switch o.Key {
		case optDedupKey:
			key = &opts[i]
		case optDedupWindow:
			window = &opts[i]
		case optDedupFPR:
			fpr = &opts[i]
		}
	}
	if key == nil && window == nil && fpr == nil {
		return nil, nil
	}
	if key == nil {
		first := window
		if first == nil {
			first = fpr
		}
		return nil, bindErr(first.KeyPos, src, "%s needs %s: the columns whose repeated values mark a row as a duplicate", first.Key, optDedupKey)
	}
	if window == nil {
		return nil, bindErr(key.KeyPos, src, "%s needs %s: how long a key is remembered (e.g. '1h')", optDedupKey, optDedupWindow)
	}
	d := &catalog.Dedup{FPR: defaultDedupFPR, Window: strings.TrimSpace(window.Value)}
	seen := map[int]bool{}
	for _, name := range strings.Split(key.Value, ",") {
		name = strings.TrimSpace(name)
		i := -1
		for j, c := range cols {
			if strings.EqualFold(c.Name, name) {
				i = j
			}
		}
		switch {
		case name == "":
			return nil, bindErr(key.ValuePos, src, "%s: empty column name in %s", optDedupKey, connector.Quote(key.Value))
		case i < 0:
			names := make([]string, len(cols))
			for j, c := range cols {
				names[j] = c.Name
			}
			return nil, bindErr(key.ValuePos, src, "%s: unknown column '%s' (columns: %s)", optDedupKey, name, strings.Join(names, ", "))
		case seen[i]:
			return nil, bindErr(key.ValuePos, src, "%s: column '%s' is named twice", optDedupKey, cols[i].Name)
		}
		seen[i] = true
		d.Keys = append(d.Keys, cols[i].Name)
	}
	w, err := connector.ParseDuration(window.Value)
	if err != nil {
		return nil, bindErr(window.ValuePos, src, "%s: %v", optDedupWindow, err)
	}
	if d.WindowMs = w.Milliseconds(); d.WindowMs <= 0 {
		return nil, bindErr(window.ValuePos, src, "%s: must be at least 1ms, found %s", optDedupWindow, connector.Quote(window.Value))
	}
	if fpr != nil {
		f, err := strconv.ParseFloat(strings.TrimSpace(fpr.Value), 64)
		if err != nil || !(f > 0 && f < 1) {
			return nil, bindErr(fpr.ValuePos, src, "%s: want a false-positive rate between 0 and 1 (exclusive), e.g. '0.01'; found %s", optDedupFPR, connector.Quote(fpr.Value))
		}
		d.FPR = f
	}
	return d, nil
}

// refuseDedup refuses the de-duplication options on an object whose rows
// can be retracted (a table): de-duplication keeps the first row of a key
// and cannot take back a row it let through.
func refuseDedup(opts []sql.Option, src *sql.Source) error {
	for _, o := range opts {
		if isDedupOption(o.Key) {
			return bindErr(o.KeyPos, src, "%s: a table's rows are updated and deleted by key; de-duplication applies to append-only streams (CREATE STREAM)", o.Key)
		}
	}
	return nil
}
