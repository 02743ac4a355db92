package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/sql"
)

// A continuous query's state TTL: the keys of its regular joins and of its
// aggregates that no watermark frees are evicted once no row has reached
// them for that long, in processing time (exec/agg, exec/join). A view or
// sink takes it as its WITH option state_ttl; otherwise the query takes the
// session's SET state_ttl when it is created. It is stored with the query
// (catalog.Object.StateTTLMs), so it holds after a restart.

// optStateTTL is the WITH option of a view or sink that sets its query's
// state TTL.
const optStateTTL = "state_ttl"

// parseStateTTL reads a state TTL: a duration such as '1h', '30m' or
// '500ms' (connector.ParseDuration), or '0' for none. It returns
// milliseconds.
func parseStateTTL(v string) (int64, error) {
	d, err := connector.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("state_ttl must be a duration such as '1h' or '30m', or '0' for none; found %s", connector.Quote(v))
	}
	if d > 0 && d.Milliseconds() == 0 {
		return 0, fmt.Errorf("state_ttl must be at least 1ms, or '0' for none; found %s", connector.Quote(v))
	}
	return d.Milliseconds(), nil
}

// stateTTLOption takes state_ttl out of a view's or sink's options: its
// value (the session's when it is not given) and the other options.
func (s *Session) stateTTLOption(opts []sql.Option, src *sql.Source) (int64, []sql.Option, error) {
	ms, rest := s.stateTTL, opts[:0:0]
	for _, o := range opts {
		if o.Key != optStateTTL {
			rest = append(rest, o)
			continue
		}
		v, err := parseStateTTL(o.Value)
		if err != nil {
			return 0, nil, bindErr(o.ValuePos, src, "%v", err)
		}
		ms = v
	}
	return ms, rest, nil
}

// viewObject is the catalog object of a CREATE MATERIALIZED VIEW (not yet
// stored): its WITH options are the query's (state_ttl).
func (s *Session) viewObject(st *sql.CreateView) (*catalog.Object, error) {
	src := st.Source()
	ttl, rest, err := s.stateTTLOption(st.With, src)
	if err != nil {
		return nil, err
	}
	shed, rest, err := shedOptions(rest, src)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		names := make([]string, len(rest))
		for i, o := range rest {
			names[i] = o.Key
		}
		sort.Strings(names)
		return nil, bindErr(rest[0].KeyPos, src, "unknown option%s %s for a materialized view (it takes %s, %s, %s)",
			plural(len(names)), strings.Join(names, ", "), optStateTTL, optMaxLatency, optShed)
	}
	return &catalog.Object{Name: st.Name.Name, Kind: catalog.View, Query: st.Query.Text, StateTTLMs: ttl, Shed: shed}, nil
}

// derivedObject is the catalog object of a CREATE STREAM ... AS query (not
// yet stored): its only WITH option is its query's state_ttl, as its rows
// come from its query and not from a connector.
func (s *Session) derivedObject(st *sql.CreateStream) (*catalog.Object, error) {
	ttl, rest, err := s.stateTTLOption(st.With, st.Source())
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, bindErr(rest[0].KeyPos, st.Source(), "a derived stream takes no WITH options but %s: its rows come from its query", optStateTTL)
	}
	return &catalog.Object{Name: st.Name.Name, Kind: catalog.Stream, Query: st.Query.Text, StateTTLMs: ttl}, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// setStateTTL is SET state_ttl: the state TTL of the continuous queries the
// session creates from now on ('0': none).
func (s *Session) setStateTTL(st *sql.Set) (*Result, error) {
	ms, err := parseStateTTL(st.Value)
	if err != nil {
		return nil, bindErr(st.ValuePos, st.Source(), "%v", err)
	}
	s.stateTTL = ms
	return ok("SET"), nil
}
