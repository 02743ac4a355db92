package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"
)

// The values of Stats.Source.
const (
	StatsAnalyze  = "analyze"  // collected by ANALYZE over the whole input
	StatsObserved = "observed" // updated from the metrics of running queries
)

// Stats are what eddy knows about a stream's or table's rows: how many
// there are, how fast they arrive, how wide they are, and per column how
// many distinct values and NULLs it holds. A zero field is unknown.
//
// Two things produce them. ANALYZE <name> reads a bounded input (an
// INSERT-fed stream's log, a table's latest rows, a file, a nexmark
// generator with a number of events) once and replaces the row count,
// width and column figures (Source "analyze"). Running continuous queries
// report the input rate of the objects they read (Source "observed"),
// keeping the column figures an ANALYZE left. Statistics are persisted
// under "catalog/stats/<object id>", so they survive a restart, and are
// deleted with their object.
//
// Where nothing is known the cost model (optimizer/cost) falls back to
// documented defaults:
//
//   - an unbounded stream without a rate arrives at 1,000 rows/s
//     (cost.DefaultStreamRate);
//   - a bounded input without a row count holds 10,000 rows
//     (cost.DefaultSnapshotRows);
//   - a column without a distinct count has 1,000 distinct values
//     (cost.DefaultDistinct); predicates without figures take the
//     selectivities of optimizer/cost (IS NULL: 0.1);
//   - a row without a measured width is as wide as its types suggest
//     (cost.RowWidth: 8 bytes a number, 24 a string, 16 a decimal).
type Stats struct {
	// Rows is the number of rows seen: a bounded input's total after
	// ANALYZE, or the rows running queries have read from a stream.
	Rows int64 `json:"rows"`
	// RowsPerSec is the observed input rate; 0 when unknown (ANALYZE of a
	// bounded source leaves it 0).
	RowsPerSec float64 `json:"rows_per_sec,omitempty"`
	// RowBytes is the average row width in bytes: what the row's values
	// take in Arrow's layout — the fixed-width values, a string's 4-byte
	// offset and its bytes, a validity bit per nullable column.
	RowBytes float64 `json:"row_bytes,omitempty"`
	// Columns holds per-column figures by lower-case column name.
	Columns map[string]ColumnStats `json:"columns,omitempty"`
	// Source says what produced the figures: StatsAnalyze or StatsObserved.
	Source  string    `json:"source"`
	Updated time.Time `json:"updated"`
}

// ColumnStats are what eddy knows about one column's values.
type ColumnStats struct {
	// Distinct is the estimated number of distinct non-NULL values.
	Distinct float64 `json:"distinct"`
	// NullFrac is the fraction of rows where the column is NULL.
	NullFrac float64 `json:"null_frac"`
	// Sketch is a serialized HyperLogLog of the column's values
	// (github.com/axiomhq/hyperloglog), so that later observations can be
	// merged into it. Treat it as read-only: it may be shared.
	Sketch []byte `json:"sketch,omitempty"`
}

// Column returns the figures of the named column (case-insensitive).
func (s Stats) Column(name string) (ColumnStats, bool) {
	c, ok := s.Columns[strings.ToLower(name)]
	return c, ok
}

// clone returns s with its own Columns map (sketch bytes stay shared: they
// are never modified in place).
func (s Stats) clone() Stats {
	s.Columns = maps.Clone(s.Columns)
	return s
}

const statsPrefix = "catalog/stats/"

func statsKey(id uint64) []byte {
	return []byte(statsPrefix + strconv.FormatUint(id, 16))
}

// Stats returns the statistics of the object named name (case-insensitive),
// and whether there are any.
func (c *Catalog) Stats(name string) (Stats, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	o, ok := c.objects[strings.ToLower(name)]
	if !ok {
		return Stats{}, false
	}
	s, ok := c.stats[o.ID]
	if !ok {
		return Stats{}, false
	}
	return s.clone(), true
}

// SetStats replaces the statistics of the stream or table named name and
// persists them.
func (c *Catalog) SetStats(name string, s Stats) error {
	return c.UpdateStats(name, 0, func(Stats, bool) Stats { return s })
}

// UpdateStats replaces the statistics of the stream or table named name with
// what fn makes of the current ones (ok is false when there are none), as
// one step: concurrent updates do not lose each other's figures. A non-zero
// id must be the object's ID, so that figures collected from an object that
// has since been dropped and re-created under its name are not attached to
// the new one.
func (c *Catalog) UpdateStats(name string, id uint64, fn func(old Stats, ok bool) Stats) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.objects[strings.ToLower(name)]
	if !ok || (id != 0 && o.ID != id) {
		return &Error{Code: ErrNotFound, Name: name, Msg: fmt.Sprintf("unknown stream or table '%s'", name)}
	}
	if o.Kind != Stream && o.Kind != Table {
		return &Error{Code: ErrWrongKind, Name: name, Msg: fmt.Sprintf("'%s' is a %s: statistics are kept for streams and tables", o.Name, o.Kind)}
	}
	old, had := c.stats[o.ID]
	s := fn(old.clone(), had).clone()
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("catalog: encoding statistics of %s: %w", o.Name, err)
	}
	if err := c.store.Put(statsKey(o.ID), seal(b)); err != nil {
		return fmt.Errorf("catalog: persisting statistics of %s: %w", o.Name, err)
	}
	if c.stats == nil {
		c.stats = map[uint64]Stats{}
	}
	c.stats[o.ID] = s
	return nil
}

// loadStats reads the persisted statistics of every object. Statistics
// whose object no longer exists (a drop interrupted between its two
// deletes) are deleted.
func (c *Catalog) loadStats() error {
	c.stats = map[uint64]Stats{}
	ids := map[uint64]bool{}
	for _, o := range c.objects {
		ids[o.ID] = true
	}
	var orphans []uint64
	err := c.store.Scan([]byte(statsPrefix), func(k, v []byte) error {
		id, err := strconv.ParseUint(strings.TrimPrefix(string(k), statsPrefix), 16, 64)
		if err != nil {
			return corruptEntry(k, fmt.Errorf("its key names no object ID: %w", err))
		}
		b, err := unseal(k, v, legacyJSON)
		if err != nil {
			return err
		}
		if !ids[id] {
			orphans = append(orphans, id)
			return nil
		}
		var s Stats
		if err := json.Unmarshal(b, &s); err != nil {
			return corruptEntry(k, fmt.Errorf("it does not decode: %w", err))
		}
		c.stats[id] = s
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range orphans {
		if err := c.store.Delete(statsKey(id)); err != nil {
			return fmt.Errorf("catalog: deleting stale statistics: %w", err)
		}
	}
	return nil
}

// dropStatsLocked deletes the statistics of the object with the given ID.
// The caller holds c.mu.
func (c *Catalog) dropStatsLocked(id uint64) error {
	if err := c.store.Delete(statsKey(id)); err != nil {
		return fmt.Errorf("catalog: dropping statistics: %w", err)
	}
	delete(c.stats, id)
	return nil
}
