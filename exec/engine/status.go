package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/dataflow"
)

// queryStatus is the state of the continuous query behind a view, a sink,
// a derived stream or a continuous insert, as SHOW MATERIALIZED VIEWS,
// SHOW SINKS and SHOW QUERIES list it and FLUSH reports it.
type queryStatus struct {
	state dataflow.JobState // 0: no query runs (nothing started it)
	err   error             // why, when state is exec.JobFailed
}

// String returns the status as SHOW lists it: running, finished, or
// failed: <error>.
func (st queryStatus) String() string {
	switch st.state {
	case dataflow.JobFailed:
		return "failed: " + st.err.Error()
	case 0:
		return "stopped"
	}
	return st.state.String()
}

// failed reports whether the query failed (or could not resume).
func (st queryStatus) failed() bool { return st.state == dataflow.JobFailed }

// status returns the status of the continuous query behind the object
// named name. A query that could not resume when the engine opened is
// failed, with why.
func (e *Engine) status(name string) queryStatus {
	e.mu.Lock()
	q, broken := e.queries[lower(name)], e.broken[lower(name)]
	e.mu.Unlock()
	switch {
	case broken != nil:
		return queryStatus{state: dataflow.JobFailed, err: fmt.Errorf("could not resume: %w", broken)}
	case q == nil:
		return queryStatus{}
	}
	if q.job == nil { // a cluster's sink: its tasks restart on their own
		return queryStatus{state: dataflow.JobRunning}
	}
	state, err := q.job.State()
	return queryStatus{state: state, err: err}
}

// continuousObjects returns the objects that run a continuous query —
// views, sinks (continuous inserts among them) and derived streams — by
// name.
func (e *Engine) continuousObjects() []*catalog.Object {
	var objs []*catalog.Object
	for _, k := range []catalog.Kind{catalog.View, catalog.Sink, catalog.Stream} {
		for _, o := range e.cat.List(k) {
			if o.Query != "" {
				objs = append(objs, o)
			}
		}
	}
	sort.Slice(objs, func(i, j int) bool { return lower(objs[i].Name) < lower(objs[j].Name) })
	return objs
}

// failedQueries returns the continuous queries that failed, by name.
func (e *Engine) failedQueries() []QueryFailure {
	var out []QueryFailure
	for _, o := range e.continuousObjects() {
		if st := e.status(o.Name); st.failed() {
			out = append(out, QueryFailure{Kind: o.Kind.String(), Name: o.Name, Err: st.err})
		}
	}
	return out
}

// QueryFailure is one failed continuous query: its object's kind and name
// and the error that stopped it.
type QueryFailure struct {
	Kind string // "materialized view", "sink" or "stream"
	Name string
	Err  error
}

// QueriesFailedError is the error of FLUSH when continuous queries have
// failed. A failed query stays failed, and every FLUSH reports it, until
// it is dropped: a script cannot run past a query that stopped.
type QueriesFailedError struct {
	Failures []QueryFailure // by name
}

// Error names each failed query with its error and how to remove it.
func (e *QueriesFailedError) Error() string {
	var b strings.Builder
	if len(e.Failures) == 1 {
		f := e.Failures[0]
		fmt.Fprintf(&b, "%s %s failed: %v (DROP %s %s removes it)", f.Kind, f.Name, f.Err, strings.ToUpper(f.Kind), f.Name)
		return b.String()
	}
	fmt.Fprintf(&b, "%d continuous queries failed (DROP them to remove them):", len(e.Failures))
	for _, f := range e.Failures {
		fmt.Fprintf(&b, "\n  %s %s: %v", f.Kind, f.Name, f.Err)
	}
	return b.String()
}

// Unwrap returns the failures' errors, for errors.Is and errors.As.
func (e *QueriesFailedError) Unwrap() []error {
	errs := make([]error, len(e.Failures))
	for i, f := range e.Failures {
		errs[i] = f.Err
	}
	return errs
}
