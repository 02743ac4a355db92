package connector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

// Registry holds connectors by name: the source connectors, the sink
// connectors, and the names of source connectors SQL.md documents that are
// not implemented yet. Names are matched without regard to case or
// surrounding spaces. A Registry is filled when it is made (package
// builtin makes eddy's) and only read afterwards, so it is safe for
// concurrent use once filled.
type Registry struct {
	sources   map[string]Source
	sinks     map[string]Sink
	planned   map[string]bool
	sinkOrder []string // the listed sinks' names in the order they were added, for messages
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{sources: map[string]Source{}, sinks: map[string]Sink{}, planned: map[string]bool{}}
}

// AddSource registers a source connector under its name. Adding a name
// twice is a programming error and panics.
func (r *Registry) AddSource(c Source) {
	name := r.claim(c.Name(), false)
	r.sources[name] = c
}

// AddSink registers a sink connector under its name. Adding a name twice
// is a programming error and panics.
func (r *Registry) AddSink(c Sink) {
	name := r.claim(c.Name(), true)
	r.sinks[name] = c
	r.sinkOrder = append(r.sinkOrder, name)
}

// AddInternalSink registers a sink connector that messages do not list:
// the engine's own, which it names itself and CREATE SINK cannot. Adding
// a name twice is a programming error and panics.
func (r *Registry) AddInternalSink(c Sink) {
	name := r.claim(c.Name(), true)
	r.sinks[name] = c
}

// AddPlanned registers the name of a source connector that is known but
// not supported yet: asking for it is a *NotSupportedError.
func (r *Registry) AddPlanned(name string) {
	r.planned[r.claim(name, false)] = true
}

// claim checks that name is a connector's name in lower case and not yet
// taken for a source (or, with sink, a sink), and returns it.
func (r *Registry) claim(name string, sink bool) string {
	if name == "" || name != normalize(name) {
		panic(fmt.Sprintf("connector: name %q is not a lower-case name", name))
	}
	_, src := r.sources[name]
	_, snk := r.sinks[name]
	if sink && snk || !sink && (src || r.planned[name]) {
		panic(fmt.Sprintf("connector: %q is registered twice", name))
	}
	return name
}

// Source returns the source connector named name: an *UnknownError
// listing the known source connectors when there is none, a
// *NotSupportedError when it is known but not implemented yet.
func (r *Registry) Source(name string) (Source, error) {
	n := normalize(name)
	if c, ok := r.sources[n]; ok {
		return c, nil
	}
	if r.planned[n] {
		return nil, &NotSupportedError{Name: n}
	}
	return nil, &UnknownError{Name: name, Known: r.SourceNames()}
}

// Sink returns the sink connector named name, or an *UnknownError listing
// the sink connectors (name "" is a sink without a connector option).
func (r *Registry) Sink(name string) (Sink, error) {
	if c, ok := r.sinks[normalize(name)]; ok {
		return c, nil
	}
	return nil, &UnknownError{Sink: true, Name: name, Known: r.SinkNames()}
}

// SourceNames returns the names of the source connectors, those not
// supported yet included, sorted.
func (r *Registry) SourceNames() []string {
	var out []string
	for n := range r.sources {
		out = append(out, n)
	}
	for n := range r.planned {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// SinkNames returns the names of the sink connectors, but for internal
// ones, in the order they were added.
func (r *Registry) SinkNames() []string { return slices.Clone(r.sinkOrder) }

// Traits returns what a source object's connector says its options mean
// for planning (catalog.Describer): the zero traits for an object that is
// not a source or has no connector (fed by INSERT), or whose connector
// this registry does not implement.
func (r *Registry) Traits(o *catalog.Object) catalog.SourceTraits {
	return r.TraitsIn(o, Env{})
}

// TraitsIn is Traits for sources under env: a bounded source whose
// connector estimates its rows where it reads (RowEstimator, a file's
// size) has its estimate.
func (r *Registry) TraitsIn(o *catalog.Object, env Env) catalog.SourceTraits {
	if !o.IsSource() || o.Connector() == "" {
		return catalog.SourceTraits{}
	}
	c, err := r.Source(o.Connector())
	if err != nil {
		return catalog.SourceTraits{}
	}
	spec := Spec{Object: o.Name, Options: o.Options, Columns: o.Columns}
	t := c.Traits(spec)
	if est, ok := c.(RowEstimator); ok && t.Bounded && t.Rows == 0 && env.Root != (fileroot.Root{}) {
		t.Rows = est.EstimateRows(spec, env)
	}
	return t
}

// RowEstimator is a source connector that estimates a bounded source's
// rows from what it reads under an Env (a file's size), which Traits
// cannot see.
type RowEstimator interface {
	EstimateRows(spec Spec, env Env) float64
}

// normalize is the form names are registered and looked up in.
func normalize(name string) string { return strings.ToLower(strings.TrimSpace(name)) }
