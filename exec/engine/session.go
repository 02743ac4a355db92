package engine

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/connector"

	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/sql"
)

// Session is one user's connection: settings and statement execution.
type Session struct {
	eng              *Engine
	opts             SessionOptions
	parallelism      int
	noOptimize       bool   // SET optimizer = off
	joinDistribution string // SET join_distribution
	twoPhase         string // SET two_phase_agg
	shareViews       string // SET share_views
	// checkpoint is SET checkpoint_interval: how often the views the
	// session creates are checkpointed (nil: the engine's interval). It
	// is not stored with them: after a restart the engine's applies.
	checkpoint *time.Duration
	// stateTTL is SET state_ttl in milliseconds: the state TTL of the
	// continuous queries the session creates (0: none), stored with each.
	stateTTL int64
	// policy and latency are SET policy_interval (nil: the engine's) and
	// SET latency_interval (0: off), stored with the continuous queries
	// the session creates (rates.go).
	policy  *time.Duration
	latency time.Duration
	// alignment is SET watermark_alignment (nil: the engine's), stored
	// with the continuous queries the session creates; push queries take
	// it too.
	alignment *time.Duration
	// autoscale is SET autoscale ("ds2", "off", or "" when not set: the
	// engine's applies), stored with the queries the session creates.
	autoscale string
	// adaptiveJoin is SET adaptive_join ("off", or "": on) and
	// broadcastBudget SET broadcast_budget in bytes (0: the default),
	// stored with the queries the session creates (adaptive_join.go).
	adaptiveJoin    string
	broadcastBudget int64
	// notices is the session's position in the engine's notices.
	notices int
	// work follows the running statement's progress (nil between
	// statements); Progress reads it from other goroutines.
	work atomic.Pointer[tracker]
	// sets are the settings the session SET, by lower-case name, as
	// given: a cluster's command carries them to every member.
	sets map[string]string
	// applying marks a session applying the cluster's commands.
	applying bool
}

// NewSession returns a session.
func (e *Engine) NewSession(opts SessionOptions) *Session {
	return &Session{eng: e, opts: opts, parallelism: e.cfg.Parallelism, notices: e.notices.open()}
}

// InternalError is a broken invariant inside eddy, caught at the statement
// boundary so the session survives it.
type InternalError struct {
	Panic any
	Stack string
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("internal error: %v (please report this with the statement that caused it)", e.Panic)
}

// Execute runs one parsed statement. A panic inside eddy (a bug) is
// recovered here and returned as an InternalError.
func (s *Session) Execute(ctx context.Context, stmt sql.Stmt) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, &InternalError{Panic: p, Stack: string(debug.Stack())}
		}
	}()
	t := &tracker{what: statementWhat(stmt), start: time.Now()}
	s.work.Store(t)
	defer s.work.Store(nil)
	res, err = s.execute(withTracker(ctx, t), stmt)
	if res != nil {
		res.Notices = append(res.Notices, s.eng.notices.since(&s.notices)...)
	}
	return res, err
}

func (s *Session) execute(ctx context.Context, stmt sql.Stmt) (*Result, error) {
	if !s.applying && s.eng.cmds != nil { // applying sessions run while the log opens
		if err := clusterRefusal(stmt); err != nil {
			return nil, err
		}
		if replicated(stmt) {
			return s.submit(ctx, stmt)
		}
	}
	switch st := stmt.(type) {
	case *sql.CreateStream:
		return s.createStream(st)
	case *sql.CreateTable:
		return s.createTable(st)
	case *sql.CreateView:
		return s.createView(ctx, st)
	case *sql.CreateSink:
		return s.createSink(ctx, st)
	case *sql.Insert:
		return s.insert(ctx, st)
	case *sql.Select:
		return s.query(ctx, st)
	case *sql.Update:
		return s.update(ctx, st)
	case *sql.Delete:
		return s.deleteRows(ctx, st)
	case *sql.Explain:
		return s.explain(st)
	case *sql.Show:
		return s.show(st)
	case *sql.ShowCreate:
		return s.showCreate(st)
	case *sql.Describe:
		return s.describe(st)
	case *sql.Drop:
		return s.drop(st)
	case *sql.Alter:
		return s.alter(ctx, st)
	case *sql.Set:
		r, err := s.set(st)
		if err == nil {
			if s.sets == nil {
				s.sets = map[string]string{}
			}
			s.sets[strings.ToLower(st.Name.Name)] = st.Value
		}
		return r, err
	case *sql.Flush:
		return s.flush(ctx)
	case *sql.Analyze:
		return s.analyzeStats(ctx, st)
	}
	return nil, fmt.Errorf("not supported yet: %T", stmt)
}

func notSupported(p sql.Pos, feature string) error {
	return &planner.NotSupportedError{Feature: feature, Pos: p}
}

// checkpointInterval is how often the views this session creates are
// checkpointed: SET checkpoint_interval, or the engine's.
func (s *Session) checkpointInterval() time.Duration {
	if s.checkpoint != nil {
		return *s.checkpoint
	}
	return s.eng.cfg.CheckpointInterval
}

// settings are the session's planning settings.
func (s *Session) settings() planSettings {
	return planSettings{parallelism: s.parallelism, noOptimize: s.noOptimize, joinDistribution: s.joinDistribution,
		twoPhase: s.twoPhase, adaptiveJoin: s.adaptiveJoin, broadcastBudget: s.broadcastBudget, shareViews: s.shareViews}
}

// querySettings are the session's settings a continuous query keeps.
func (s *Session) querySettings() *catalog.QuerySettings {
	qs := &catalog.QuerySettings{Parallelism: s.parallelism, NoOptimize: s.noOptimize,
		JoinDistribution: s.joinDistribution, TwoPhaseAgg: s.twoPhase, ShareViews: s.shareViews}
	if s.checkpoint != nil {
		ms := s.checkpoint.Milliseconds()
		qs.CheckpointIntervalMs = &ms
	}
	if s.policy != nil {
		ms := s.policy.Milliseconds()
		qs.PolicyIntervalMs = &ms
	}
	qs.LatencyIntervalMs = s.latency.Milliseconds()
	if s.alignment != nil {
		ms := s.alignment.Milliseconds()
		qs.WatermarkAlignmentMs = &ms
	}
	qs.Autoscale = s.autoscale
	qs.AdaptiveJoin, qs.BroadcastBudget = s.adaptiveJoin, s.broadcastBudget
	return qs
}

// storedSettings returns the planning settings and the checkpoint
// interval obj's query was created with, the engine's where it kept
// none.
func (e *Engine) storedSettings(obj *catalog.Object) (planSettings, time.Duration) {
	ps, interval := planSettings{parallelism: e.cfg.Parallelism}, e.cfg.CheckpointInterval
	if st := obj.Settings; st != nil {
		if st.Parallelism > 0 {
			ps.parallelism = st.Parallelism
		}
		ps.noOptimize, ps.joinDistribution, ps.twoPhase, ps.shareViews = st.NoOptimize, st.JoinDistribution, st.TwoPhaseAgg, st.ShareViews
		ps.adaptiveJoin, ps.broadcastBudget, ps.joinSwitches = st.AdaptiveJoin, st.BroadcastBudget, st.JoinSwitches
		if st.CheckpointIntervalMs != nil {
			interval = time.Duration(*st.CheckpointIntervalMs) * time.Millisecond
		}
	}
	return ps, interval
}

// ok returns a result without rows.
func ok(tag string) *Result { return &Result{Kind: ResultOK, Tag: tag} }

// set changes a session setting.
func (s *Session) set(st *sql.Set) (*Result, error) {
	switch strings.ToLower(st.Name.Name) {
	case "optimizer":
		switch strings.ToLower(st.Value) {
		case "on", "true", "1":
			s.noOptimize = false
		case "off", "false", "0":
			s.noOptimize = true
		default:
			return nil, bindErr(st.ValuePos, st.Source(), "optimizer must be on or off, got '%s'", st.Value)
		}
		return ok("SET"), nil
	case "two_phase_agg":
		return setChoice(st, &s.twoPhase, "on", "off")
	case "join_distribution":
		return setChoice(st, &s.joinDistribution, "hash", "broadcast")
	case "share_views":
		return setChoice(st, &s.shareViews, "on", "off")
	case "checkpoint_interval":
		d, err := connector.ParseDuration(st.Value)
		if err != nil {
			return nil, bindErr(st.ValuePos, st.Source(), "checkpoint_interval must be a duration such as '10s', or '0' for none: %v", err)
		}
		s.checkpoint = &d
		return ok("SET"), nil
	case "state_ttl":
		return s.setStateTTL(st)
	case "watermark_alignment":
		d, err := connector.ParseDuration(st.Value)
		if err != nil || d < 0 || (d > 0 && d < time.Millisecond) {
			msg := "not a duration of 1ms or more"
			if err != nil {
				msg = err.Error()
			}
			return nil, bindErr(st.ValuePos, st.Source(), "watermark_alignment must be a duration such as '1s', or '0' for none: %s", msg)
		}
		s.alignment = &d
		return ok("SET"), nil
	case "policy_interval", "latency_interval":
		return s.setRateInterval(st)
	case "autoscale":
		return s.setAutoscale(st)
	case "adaptive_join":
		return s.setAdaptiveJoin(st)
	case "broadcast_budget":
		return s.setBroadcastBudget(st)
	case "parallelism":
		n, err := strconv.Atoi(st.Value)
		if err != nil || n < 1 || n > maxParallelism {
			return nil, bindErr(st.ValuePos, st.Source(), "parallelism must be an integer from 1 to %d, got '%s'", maxParallelism, st.Value)
		}
		s.parallelism = n
		return ok("SET"), nil
	}
	e := bindErr(st.Name.Pos, st.Source(), "unknown setting '%s'", st.Name.Name)
	e.Hint = "settings: " + strings.Join(settingNames, ", ")
	return nil, e
}

// settingNames are the settings set knows, in the order its error lists
// them.
var settingNames = []string{"parallelism", "checkpoint_interval", "state_ttl", "optimizer", "join_distribution", "two_phase_agg",
	"policy_interval", "latency_interval", "autoscale", "adaptive_join", "broadcast_budget", "share_views", "watermark_alignment"}

// SettingNames returns the names of the session settings SET changes.
func SettingNames() []string { return slices.Clone(settingNames) }

// setChoice sets *dst to the value of a setting that is auto or one of
// choices: "" for auto, otherwise the choice in lower case. Any other
// value is an error that lists them.
func setChoice(st *sql.Set, dst *string, choices ...string) (*Result, error) {
	v := strings.ToLower(st.Value)
	switch {
	case v == "auto":
		*dst = ""
	case slices.Contains(choices, v):
		*dst = v
	default:
		last := len(choices) - 1
		return nil, bindErr(st.ValuePos, st.Source(), "%s must be auto, %s or %s, got '%s'",
			strings.ToLower(st.Name.Name), strings.Join(choices[:last], ", "), choices[last], st.Value)
	}
	return ok("SET"), nil
}
