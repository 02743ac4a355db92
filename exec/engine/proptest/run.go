package proptest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/sql"
)

// Status is how a case ended.
type Status uint8

// The statuses.
const (
	// Agreed: both views hold the same rows.
	Agreed Status = iota + 1
	// Skipped: both plans refused the query with "not supported yet".
	Skipped
	// Differed: both views ran, and their rows differ.
	Differed
	// Failed: anything else — one plan refused the query and the other did
	// not, both refused it with another error, a query failed while
	// running, a statement panicked or timed out.
	Failed
)

func (s Status) String() string {
	return [...]string{"?", "agreed", "skipped", "differed", "failed"}[s]
}

// Outcome is the result of running a case.
type Outcome struct {
	Case   *Case
	Status Status
	// Reason says why a case was skipped or failed.
	Reason string
	// Diff is how the views differ (Differed only), and View the
	// placeholder name of the first helper view that differs ("" for the
	// tested view).
	Diff Diff
	View string
	// Rows counts the rows of the optimized view, to tell cases that
	// compared something from those whose views are empty.
	Rows int
}

// session runs statements on one engine, turning notices (a query that
// failed while running, rows a source skipped) into errors: every input of
// a case is valid and every query must keep running.
type session struct {
	sess *engine.Session
}

func (s *session) exec(ctx context.Context, text string) (*engine.Result, error) {
	st, err := sql.ParseOne(text, sql.Pos{Line: 1, Col: 1})
	if err != nil {
		return nil, err
	}
	res, err := s.sess.Execute(ctx, st)
	if err != nil {
		return nil, err
	}
	if len(res.Notices) > 0 {
		return nil, fmt.Errorf("notices after %.60q: %s", text, strings.Join(res.Notices, "; "))
	}
	return res, nil
}

// RunCase runs a case on a new in-memory engine: it creates the sources,
// both sides' views (so that both see every row as a change), feeds the
// rounds with a FLUSH after the tables' and after each stream's rows, and
// compares each helper view and the tested view with its twin.
func RunCase(ctx context.Context, c *Case) (out Outcome) {
	out = Outcome{Case: c}
	eng, err := engine.Open(ctx, engine.Config{Parallelism: 1})
	if err != nil {
		return fail(out, "opening the engine: %v", err)
	}
	defer eng.Close()
	s := &session{sess: eng.NewSession(engine.SessionOptions{})}
	for _, src := range c.Schema.Sources {
		if _, err := s.exec(ctx, src.DDL()); err != nil {
			return fail(out, "creating %s: %v", src.Name, err)
		}
	}
	var refused [2]error
	for i, side := range c.Sides {
		for _, st := range c.Setup(side) {
			if _, err := s.exec(ctx, st); err != nil {
				refused[i] = err
				break
			}
		}
	}
	if refused[0] != nil || refused[1] != nil {
		return classifyRefusal(out, refused)
	}
	for i, rd := range c.Data.Rounds {
		for _, st := range rd.Statements() {
			if _, err := s.exec(ctx, st); err != nil {
				return fail(out, "round %d: %v", i+1, err)
			}
		}
	}
	// The tested view last: a helper view that differs explains the
	// difference of the views over it.
	names := make([]string, 0, len(c.Query.Views)+1)
	for _, v := range c.Query.Views {
		names = append(names, v.Name)
	}
	names = append(names, "")
	out.Status = Agreed
	for _, name := range names {
		var res [2]*engine.Result
		for i, side := range c.Sides {
			view := side.ViewName()
			if name != "" {
				view = side.rename(name)
			}
			if res[i], err = s.exec(ctx, "SELECT * FROM "+view+";"); err != nil {
				return fail(out, "reading %s: %v", view, err)
			}
		}
		if name == "" {
			out.Rows = len(res[0].Rows)
		}
		if d := Compare(res[0].Columns, res[0].Rows, res[1].Columns, res[1].Rows); !d.Empty() && out.Status == Agreed {
			out.Status, out.Diff, out.View = Differed, d, name
		}
	}
	return out
}

// classifyRefusal judges a case that one or both plans refused. Both
// refusing with "not supported yet" skips the case; anything else fails it.
func classifyRefusal(out Outcome, refused [2]error) Outcome {
	on, off := refused[0], refused[1]
	switch {
	case on != nil && off != nil && notSupported(on) && notSupported(off):
		out.Status, out.Reason = Skipped, feature(on)
		return out
	case on == nil:
		return fail(out, "refused only with optimizer off: %v", off)
	case off == nil:
		return fail(out, "refused only with optimizer on: %v", on)
	case normalizeError(on) == normalizeError(off):
		return fail(out, "refused by both plans: %v", on)
	}
	return fail(out, "refused by both plans, differently: on: %v; off: %v", on, off)
}

// position matches a line:column position in an error message.
var position = regexp.MustCompile(`\d+:\d+`)

// normalizeError returns an error's message without what differs between
// the sides: positions (the sides' object names differ in length) and
// the names' prefixes.
func normalizeError(err error) string {
	msg := position.ReplaceAllString(err.Error(), "L:C")
	return strings.ReplaceAll(msg, "off_", "on_")
}

// notSupported reports whether err says a feature is not supported yet.
func notSupported(err error) bool {
	var ns *planner.NotSupportedError
	return errors.As(err, &ns) || strings.Contains(err.Error(), "not supported yet")
}

// feature returns the feature a "not supported yet" error names, without
// its position.
func feature(err error) string {
	var ns *planner.NotSupportedError
	if errors.As(err, &ns) {
		return ns.Feature
	}
	msg := err.Error()
	if i := strings.Index(msg, "not supported yet: "); i >= 0 {
		msg = msg[i+len("not supported yet: "):]
	}
	if i := strings.LastIndex(msg, " at "); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

func fail(out Outcome, format string, args ...any) Outcome {
	out.Status, out.Reason = Failed, fmt.Sprintf(format, args...)
	return out
}
