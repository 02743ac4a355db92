package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/cluster"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/sql"
)

// Cluster mode (Config.Cluster). The engine is one member of a cluster
// whose members share their catalog and their continuous queries' work
// on Kafka, as ksqlDB's servers do: DDL travels on the cluster's command
// topic, and every member applies every command in the topic's order
// (applyCommand), so all run the same catalog; a member keeps nothing on
// its disk and replays the topic when it starts. The continuous query of
// a materialized view runs as fragments of tasks spread over the members
// (package cluster), and every member keeps a replica of the view's rows,
// so a pull query on any member reads the whole view.

// clusterPlanParallelism is the parallelism a cluster's queries are
// planned at: above one, so that every exchange their results depend on
// (hash, gather) is in the plan, where the cluster cuts it into
// fragments. Tasks run each stage as one instance.
const clusterPlanParallelism = 2

// commandTopic names the cluster's command topic.
func commandTopic(name string) string { return "_eddy-" + name + "-commands" }

// joinCluster makes the engine a member of cfg.Cluster: it connects, and
// replays the command topic — creating the cluster's objects and starting
// its share of their queries — before it returns.
func (e *Engine) joinCluster(ctx context.Context) error {
	cc := *e.cfg.Cluster
	m, err := cluster.NewMember(cc)
	if err != nil {
		return err
	}
	e.member = m
	cmds, err := cluster.OpenCommandLog(ctx, cluster.CommandLogConfig{Brokers: cc.Brokers, Topic: commandTopic(cc.Name), Member: cc.Member,
		OnError: func(offset int64, err error) {
			e.notices.add(fmt.Sprintf("cluster command %d skipped: %v", offset, err))
		}}, e.applyCommand)
	if err != nil {
		return err
	}
	e.cmds = cmds
	return cmds.Ready(ctx)
}

// applyCommand applies one command of the cluster's topic: the
// statement, with the settings of the session that issued it.
func (e *Engine) applyCommand(ctx context.Context, offset int64, cmd cluster.Command) (any, error) {
	stmts, err := sql.Parse(cmd.SQL)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, fmt.Errorf("cluster command %d holds %d statements", offset, len(stmts))
	}
	s := e.NewSession(SessionOptions{})
	s.applying = true
	for _, name := range slices.Sorted(maps.Keys(cmd.Settings)) {
		set, err := sql.Parse(fmt.Sprintf("SET %s = '%s'", name, strings.ReplaceAll(cmd.Settings[name], "'", "''")))
		if err != nil {
			return nil, fmt.Errorf("cluster command %d: setting %s: %w", offset, name, err)
		}
		if _, err := s.Execute(ctx, set[0]); err != nil {
			return nil, fmt.Errorf("cluster command %d: setting %s: %w", offset, name, err)
		}
	}
	return s.Execute(ctx, stmts[0])
}

// replicated reports whether stmt changes the catalog, and so goes
// through the cluster's command topic.
func replicated(stmt sql.Stmt) bool {
	switch stmt.(type) {
	case *sql.CreateStream, *sql.CreateTable, *sql.CreateView, *sql.CreateSink, *sql.Drop:
		return true
	}
	return false
}

// submit runs a catalog statement on the cluster: it appends it to the
// command topic and returns what applying it here returned.
func (s *Session) submit(ctx context.Context, stmt sql.Stmt) (*Result, error) {
	res, err := s.eng.cmds.Submit(ctx, stmt.Source().Text(), maps.Clone(s.sets))
	if err != nil {
		return nil, err
	}
	r, ok := res.(*Result)
	if !ok {
		return nil, fmt.Errorf("cluster: the command returned %T", res)
	}
	return r, nil
}

// clusterRefusal returns the error of a statement cluster mode does not
// run, or nil.
func clusterRefusal(stmt sql.Stmt) error {
	switch st := stmt.(type) {
	case *sql.Insert, *sql.Update, *sql.Delete:
		return notSupported(st.Source().Start(), "writing rows in cluster mode (a cluster's streams are Kafka topics: produce to them)")
	case *sql.Flush:
		return notSupported(st.Source().Start(), "FLUSH in cluster mode (a cluster's views follow their topics as their tasks checkpoint)")
	case *sql.Analyze:
		return notSupported(st.Source().Start(), "ANALYZE in cluster mode (every member must plan a query alike)")
	case *sql.Alter:
		return notSupported(st.Source().Start(), "ALTER in cluster mode (a cluster's views spread over its members: add members to scale out)")
	}
	return nil
}

// startClusterQuery starts the member's share of obj's query cq.
func (e *Engine) startClusterQuery(obj *catalog.Object, cq *compiledQuery) error {
	_, insert := e.insertTarget(obj)
	switch {
	case obj.Kind == catalog.Stream || insert:
		return notSupported(sql.Pos{}, fmt.Sprintf("%s in cluster mode (a cluster runs materialized views and sinks)", e.queryKind(obj)))
	case obj.Kind == catalog.Sink:
		conn, err := e.conns.Sink(obj.Connector())
		if err != nil {
			return err
		}
		traits, err := conn.Check(obj.Options, e.connEnv())
		if err != nil {
			return err
		}
		if !traits.Shared && !traits.Discards {
			return notSupported(sql.Pos{}, fmt.Sprintf("a '%s' sink in cluster mode (a cluster's sinks write to Kafka: a member's task writes its share wherever it runs)", conn.Name()))
		}
	}
	qg, err := e.queryGraph(obj, cq, true, viewKeep{})
	if err != nil {
		return err
	}
	out, err := rowSchema(cq.names(), cq.types())
	if err != nil {
		return err
	}
	interval := e.cfg.CheckpointInterval
	if st := obj.Settings; st != nil && st.CheckpointIntervalMs != nil && *st.CheckpointIntervalMs > 0 {
		interval = time.Duration(*st.CheckpointIntervalMs) * time.Millisecond
	}
	spec := cluster.QuerySpec{ID: obj.ID, Name: obj.Name, Graph: qg.graph, Output: out, View: obj.Kind == catalog.View,
		SchemaOf: func(id int) (*arrow.Schema, error) { return exchangeSchema(cq.phys, id) }, Options: qg.options,
		CheckpointInterval: interval}
	if !spec.View {
		spec.SinkFor = e.clusterSink(obj, cq)
	}
	q, err := e.member.Start(e.ctx, spec)
	var ns *cluster.NotSupportedError
	switch {
	case errors.As(err, &ns):
		return err
	case err != nil:
		// The brokers failed us, which they may not have the others:
		// the view is created all the same, so that every member's
		// catalog stays the same, and its share here starts once the
		// brokers answer.
		e.mu.Lock()
		e.broken[lower(obj.Name)] = err
		e.mu.Unlock()
		e.notices.add(fmt.Sprintf("materialized view %s: this member's share does not run yet, and is retried: %v", obj.Name, err))
		e.recovery.wg.Add(1)
		go func() {
			defer e.recovery.wg.Done()
			e.retryClusterQuery(obj, qg, cq, spec)
		}()
		return nil
	}
	e.register(&runningQuery{obj: obj, job: q.Replica(), mv: qg.mv, plan: cq.phys, graph: qg.graph, cluster: q})
	return nil
}

// retryClusterQuery starts the member's share of obj's query, which
// failed to start, until it starts, obj is dropped, or the engine closes.
func (e *Engine) retryClusterQuery(obj *catalog.Object, qg queryGraph, cq *compiledQuery, spec cluster.QuerySpec) {
	for backoff := time.Second; ; backoff = min(2*backoff, 30*time.Second) {
		select {
		case <-e.ctx.Done():
			return
		case <-time.After(backoff):
		}
		q, err := e.member.Start(e.ctx, spec)
		e.mu.Lock()
		if cur, ok := e.cat.Get(obj.Name); !ok || cur.ID != obj.ID || e.ctx.Err() != nil {
			e.mu.Unlock()
			if q != nil {
				q.Stop()
			}
			return // dropped, replaced or closing meanwhile
		}
		if err != nil {
			e.broken[lower(obj.Name)] = err
			e.mu.Unlock()
			continue
		}
		delete(e.broken, lower(obj.Name))
		e.mu.Unlock()
		e.register(&runningQuery{obj: obj, job: q.Replica(), mv: qg.mv, plan: cq.phys, graph: qg.graph, cluster: q})
		if cur, ok := e.cat.Get(obj.Name); !ok || cur.ID != obj.ID { // dropped while it started
			e.mu.Lock()
			if rq := e.queries[lower(obj.Name)]; rq != nil && rq.cluster == q {
				delete(e.queries, lower(obj.Name))
			}
			e.mu.Unlock()
			q.Stop()
			return
		}
		e.notices.add(fmt.Sprintf("materialized view %s: this member's share runs", obj.Name))
		return
	}
}

// clusterSink returns the maker of the sink operator of each task of
// obj's query, named after the task (connector.SinkSpec.Task): a Kafka
// sink's transactional ids are then the task's, so that every task
// publishes its share in transactions of its own, and the task that
// takes a share over fences the one before it.
func (e *Engine) clusterSink(obj *catalog.Object, cq *compiledQuery) func(task string) (dataflow.OpSpec, error) {
	return func(task string) (dataflow.OpSpec, error) {
		conn, err := e.conns.Sink(obj.Connector())
		if err != nil {
			return dataflow.OpSpec{}, err
		}
		spec := connector.SinkSpec{Object: obj.Name, Options: obj.Options, Names: cq.names(), Types: cq.types(),
			AppendOnly: cq.logical.Props().AppendOnly, Checkpointed: true, Task: task}
		env := e.connEnv()
		return dataflow.OpSpec{Name: "Sink " + obj.Name + " (" + conn.Name() + ")",
			New: func(int) (exec.Operator, error) { return conn.New(spec, env) }}, nil
	}
}

// exchangeSchema returns the schema of the rows through the plan node of
// id in root.
func exchangeSchema(root physical.Node, id int) (*arrow.Schema, error) {
	var found physical.Node
	var walk func(n physical.Node)
	walk = func(n physical.Node) {
		if found != nil {
			return
		}
		h := n.Hdr()
		if h.ID == id {
			found = n
			return
		}
		for _, in := range h.Inputs {
			walk(in)
		}
	}
	walk(root)
	if found == nil {
		return nil, fmt.Errorf("cluster: no plan node %d", id)
	}
	return rowSchema(found.Hdr().Names(), found.Hdr().Types())
}

// rowSchema returns the Arrow schema of rows with columns names of types
// ts.
func rowSchema(names []string, ts []types.T) (*arrow.Schema, error) {
	if len(names) != len(ts) {
		return nil, errors.New("cluster: names and types differ in number")
	}
	fields := make([]arrow.Field, len(names))
	for i := range names {
		fields[i] = types.Field(names[i], ts[i], true)
	}
	return arrow.NewSchema(fields, nil), nil
}

// showClusterTimeout bounds how long SHOW CLUSTER waits on the brokers.
const showClusterTimeout = 10 * time.Second

// showCluster lists, for every view and sink the cluster runs, its
// fragments and which member runs which of their tasks, as the
// fragments' consumer groups say: a row per fragment and member, with
// this member's tasks of the fragment that failed and wait to restart.
func (s *Session) showCluster() (*Result, error) {
	e := s.eng
	if e.member == nil {
		return nil, errors.New("SHOW CLUSTER: this eddy is not a member of a cluster (eddy serve --cluster NAME --brokers ...)")
	}
	cols := []Column{{Name: "view", Type: types.VarcharT}, {Name: "fragment", Type: types.BigIntT}, {Name: "reads", Type: types.VarcharT},
		{Name: "writes", Type: types.VarcharT}, {Name: "tasks", Type: types.BigIntT}, {Name: "member", Type: types.VarcharT},
		{Name: "member_tasks", Type: types.VarcharT}, {Name: "group_state", Type: types.VarcharT},
		{Name: "failing_here", Type: types.VarcharT}}
	ctx, cancel := context.WithTimeout(e.ctx, showClusterTimeout)
	defer cancel()
	var rows [][]types.Datum
	for _, obj := range e.continuousObjects() {
		e.mu.Lock()
		q, broken := e.queries[lower(obj.Name)], e.broken[lower(obj.Name)]
		e.mu.Unlock()
		if broken != nil && obj.Kind == catalog.View {
			rows = append(rows, []types.Datum{types.StringDatum(obj.Name), types.NullDatum, types.NullDatum, types.NullDatum,
				types.NullDatum, types.StringDatum(e.member.Config().Member), types.NullDatum, types.NullDatum,
				types.StringDatum("not running on this member yet: " + broken.Error())})
			continue
		}
		if q == nil || q.cluster == nil {
			continue
		}
		frags, err := q.cluster.Describe(ctx)
		if err != nil {
			return nil, err
		}
		for _, f := range frags {
			failing := types.NullDatum
			if len(f.Failing) > 0 {
				failing = types.StringDatum(strings.Join(f.Failing, "; "))
			}
			row := func(member, tasks types.Datum) []types.Datum {
				return []types.Datum{types.StringDatum(obj.Name), types.IntDatum(int64(f.Index)), types.StringDatum(f.Reads),
					types.StringDatum(f.Writes), types.IntDatum(int64(f.Tasks)), member, tasks, types.StringDatum(f.State), failing}
			}
			if len(f.Members) == 0 {
				rows = append(rows, row(types.NullDatum, types.NullDatum))
			}
			for _, m := range f.Members {
				ts := make([]string, len(m.Tasks))
				for i, p := range m.Tasks {
					ts[i] = fmt.Sprint(p)
				}
				rows = append(rows, row(types.StringDatum(m.Member), types.StringDatum(strings.Join(ts, ","))))
			}
		}
	}
	return rowsResult("SHOW", cols, rows), nil
}
