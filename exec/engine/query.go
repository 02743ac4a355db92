package engine

import (
	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/optimizer"
	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/optimizer/rules"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
	"time"
)

// Query modes, as the planner defines them.
const (
	continuous = planner.Continuous
	snapshot   = planner.Snapshot
)

// compiledQuery is a query through every planning stage.
type compiledQuery struct {
	bound *planner.Query
	// own is the bound plan before views were shared (bound.Root is
	// after), and reuses are the views it reads in place of its own
	// sub-plans (share.go).
	own     plan.Node
	reuses  []viewReuse
	logical plan.Node // after the rule phases
	trace   *optimizer.Trace
	phys    physical.Node
}

// decisions returns the cost-based decisions taken for the query.
func (c *compiledQuery) decisions() []cost.Decision {
	var out []cost.Decision
	if c.trace != nil {
		out = append(out, c.trace.Decisions...)
	}
	return append(out, physical.Decisions(c.phys)...)
}

// names returns the result column names.
func (c *compiledQuery) names() []string { return c.bound.Names }

// types returns the result column types.
func (c *compiledQuery) types() []types.T { return c.bound.Types() }

// fold evaluates a constant expression with the runtime's kernels, so that
// plan-time folding never disagrees with execution.
func fold(e plan.Expr) (types.Datum, error) { return expr.EvalConst(e) }

// newBuilder returns a planner for one statement.
func (e *Engine) newBuilder(src *sql.Source, start sql.Pos) *planner.Builder {
	b := planner.NewBuilder(e.cat, src, start)
	b.Fold = fold
	b.Now = time.Now() // NOW() in a one-shot statement: its start
	return b
}

// statistics gives the cost model what the catalog knows of an object
// (ANALYZE and running queries collect it); without statistics the cost
// model's defaults apply.
func (e *Engine) statistics(o *catalog.Object) (cost.TableStats, bool) {
	s, ok := e.cat.Stats(o.Name)
	if !ok {
		return cost.TableStats{}, false
	}
	t := cost.TableStats{Rows: float64(s.Rows), RowsPerSec: s.RowsPerSec, RowBytes: s.RowBytes,
		Distinct: map[string]float64{}, NullFrac: map[string]float64{}}
	for name, c := range s.Columns {
		t.Distinct[name], t.NullFrac[name] = c.Distinct, c.NullFrac
	}
	return t, true
}

// planSettings are the session settings planning follows.
type planSettings struct {
	parallelism int
	// noOptimize disables every optional rewrite rule (SET optimizer =
	// off), for comparing plans and results.
	noOptimize bool
	// joinDistribution forces joins that could be broadcast to "hash" or
	// "broadcast" ("": the cost model decides).
	joinDistribution string
	// twoPhase forces two-phase aggregation "on" or "off" ("": the cost
	// model decides).
	twoPhase string
	// stateTTL is the state TTL of a continuous query (0: none).
	stateTTL time.Duration
	// adaptiveJoin is SET adaptive_join ("off", or "": on); a continuous
	// query's plan with it on marks the joins that may switch
	// distribution at run time (adaptiveJoins), and joinSwitches are the
	// switches made (adaptive_join.go).
	adaptiveJoin  string
	adaptiveJoins bool
	joinSwitches  []catalog.JoinSwitch
	// broadcastBudget is SET broadcast_budget in bytes (0: the default).
	broadcastBudget int64
	// shareViews is SET share_views ("off", or "": on): a view's query
	// reads a running view's rows in place of a sub-plan of its own
	// that computes them (share.go).
	shareViews string
	// noShare plans each place that uses a sub-plan its own copy of it
	// (a cluster, whose fragments each feed one exchange); with the
	// optimizer on, a query otherwise computes such a sub-plan once
	// (physical.ShareSubplans).
	noShare bool
	// parallelRoot runs the query's sink at the parallelism of the plan's
	// root, not gathered into one instance: a sink that discards its rows
	// (blackhole), as Flink runs one chained to the operator before it.
	parallelRoot bool
}

// planQuery binds, optimizes and physically plans a query.
func (e *Engine) planQuery(q *sql.Query, src *sql.Source, start sql.Pos, mode planner.Mode, ps planSettings) (*compiledQuery, error) {
	bound, err := e.newBuilder(src, start).BuildQuery(q, mode)
	if err != nil {
		return nil, err
	}
	return e.optimize(bound, ps)
}

// optimize runs the rule phases and physical planning over a bound query.
func (e *Engine) optimize(bound *planner.Query, ps planSettings) (*compiledQuery, error) {
	rc := &rules.Context{Md: bound.Md, Fold: fold, Cost: &cost.Estimator{Md: bound.Md, Stats: e.statistics}}
	var opts optimizer.Options
	if ps.noOptimize {
		opts.Disabled = optimizer.OptionalRules()
	}
	logical, trace, err := optimizer.Normalize(rc, bound.Root, opts)
	if err != nil {
		return nil, err
	}
	phys, err := physical.Build(bound.Md, logical, physical.Options{Parallelism: ps.parallelism, Cost: rc.Cost,
		JoinDistribution: ps.joinDistribution, TwoPhase: ps.twoPhase, StateTTL: ps.stateTTL,
		BroadcastBudget: float64(ps.broadcastBudget), AdaptiveJoins: ps.adaptiveJoins, JoinSwitches: physicalSwitches(ps.joinSwitches),
		ShareSubplans: !ps.noOptimize && !ps.noShare, ParallelRoot: ps.parallelRoot})
	if err != nil {
		return nil, err
	}
	return &compiledQuery{bound: bound, own: bound.Root, logical: logical, trace: trace, phys: phys}, nil
}

// resultKey returns the ordinals of a unique key of the query's result, if
// the plan knows one.
func resultKey(logical plan.Node) []int {
	props := logical.Props()
	if len(props.Keys) == 0 {
		return nil
	}
	out := logical.Output()
	var key []int
	for _, id := range props.Keys[0].Ordered() {
		i := out.Find(id)
		if i < 0 {
			return nil
		}
		key = append(key, i)
	}
	if len(key) == 0 {
		return nil // a global aggregate: one row, no key columns
	}
	return key
}
