package connector_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
)

// fakeSource is a source connector that records nothing and is bounded
// when its options say so.
type fakeSource struct{ name string }

func (f fakeSource) Name() string                             { return f.name }
func (fakeSource) Check(connector.Spec, connector.Env) error  { return nil }
func (fakeSource) Columns(map[string]string) []catalog.Column { return nil }
func (fakeSource) Traits(s connector.Spec) catalog.SourceTraits {
	return catalog.SourceTraits{Bounded: s.Options["end"] != ""}
}
func (fakeSource) Open(connector.Spec, connector.Read, connector.Env) (exec.Source, error) {
	return nil, errors.New("fake")
}

type fakeSink struct{ name string }

func (f fakeSink) Name() string { return f.name }
func (fakeSink) Check(map[string]string, connector.Env) (connector.SinkTraits, error) {
	return connector.SinkTraits{}, nil
}
func (fakeSink) New(connector.SinkSpec, connector.Env) (exec.Operator, error) {
	return nil, errors.New("fake")
}

func newRegistry() *connector.Registry {
	r := connector.NewRegistry()
	r.AddSource(fakeSource{"gen"})
	r.AddSource(fakeSource{"file"})
	r.AddPlanned("queue")
	r.AddSink(fakeSink{"file"})
	r.AddSink(fakeSink{"null"})
	r.AddInternalSink(fakeSink{"log"})
	return r
}

func TestRegistryLookup(t *testing.T) {
	r := newRegistry()
	// Names match without regard to case or surrounding spaces.
	for name, want := range map[string]string{"gen": "gen", "GEN": "gen", " Gen ": "gen", "file": "file"} {
		if c, err := r.Source(name); err != nil || c.Name() != want {
			t.Errorf("source %q: %v, %v", name, c, err)
		}
	}
	for _, name := range []string{"file", "NULL", "log"} {
		if _, err := r.Sink(name); err != nil {
			t.Errorf("sink %q: %v", name, err)
		}
	}
	if _, err := r.Sink("gen"); err == nil {
		t.Error("a source is not a sink")
	}
	if got, want := r.SourceNames(), []string{"file", "gen", "queue"}; !slices.Equal(got, want) {
		t.Errorf("source names %v, want %v", got, want)
	}
	if got, want := r.SinkNames(), []string{"file", "null"}; !slices.Equal(got, want) {
		t.Errorf("sink names %v, want %v (internal sinks unlisted, in order added)", got, want)
	}
}

func TestRegistryErrors(t *testing.T) {
	r := newRegistry()
	for _, tt := range []struct {
		err  func() error
		want string
	}{
		{func() error { _, err := r.Source("ftp"); return err }, "unknown connector 'ftp' (connectors: file, gen, queue)"},
		{func() error { _, err := r.Source("Queue"); return err }, "not supported yet: connector 'queue'"},
		{func() error { _, err := r.Sink("ftp"); return err }, "sink: option connector: unknown sink connector 'ftp' (want 'file' or 'null')"},
		{func() error { _, err := r.Sink(""); return err }, "sink: option connector: is required (want 'file' or 'null')"},
	} {
		err := tt.err()
		if err == nil || err.Error() != tt.want {
			t.Errorf("got %v, want %q", err, tt.want)
			continue
		}
		// Every registry error is about the connector option.
		if name, ok := connector.ErrorOption(fmt.Errorf("wrapped: %w", err)); !ok || name != "connector" {
			t.Errorf("%v: option %q, %v", err, name, ok)
		}
	}
	var ns *connector.NotSupportedError
	if _, err := r.Source("queue"); !errors.As(err, &ns) || ns.Feature() != "connector 'queue'" {
		t.Errorf("not supported: %v", err)
	}
	var ue *connector.UnknownError
	if _, err := r.Source("ftp"); !errors.As(err, &ue) || ue.Sink || ue.Name != "ftp" {
		t.Errorf("unknown: %v", err)
	}
	if _, ok := connector.ErrorOption(errors.New("plain")); ok {
		t.Error("a plain error names no option")
	}
}

func TestRegistryRefusesDuplicates(t *testing.T) {
	for name, add := range map[string]func(r *connector.Registry){
		"source twice":          func(r *connector.Registry) { r.AddSource(fakeSource{"gen"}) },
		"planned and a source":  func(r *connector.Registry) { r.AddPlanned("gen") },
		"sink twice":            func(r *connector.Registry) { r.AddSink(fakeSink{"null"}) },
		"internal and a sink":   func(r *connector.Registry) { r.AddInternalSink(fakeSink{"file"}) },
		"a name not lower case": func(r *connector.Registry) { r.AddSource(fakeSource{"Big"}) },
		"an empty name":         func(r *connector.Registry) { r.AddSink(fakeSink{""}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			add(newRegistry())
		}()
	}
}

func TestRegistryTraits(t *testing.T) {
	r := newRegistry()
	cols := []catalog.Column{{Name: "a"}}
	for _, tt := range []struct {
		obj  *catalog.Object
		want catalog.SourceTraits
	}{
		{&catalog.Object{Kind: catalog.Stream, Columns: cols, Options: map[string]string{"connector": "GEN", "end": "1"}}, catalog.SourceTraits{Bounded: true}},
		{&catalog.Object{Kind: catalog.Table, Columns: cols, Options: map[string]string{"connector": "gen", "end": "1"}}, catalog.SourceTraits{Bounded: true}},
		{&catalog.Object{Kind: catalog.Stream, Columns: cols}, catalog.SourceTraits{}},                                                               // fed by INSERT
		{&catalog.Object{Kind: catalog.Stream, Columns: cols, Options: map[string]string{"connector": "queue"}}, catalog.SourceTraits{}},             // not supported
		{&catalog.Object{Kind: catalog.Stream, Columns: cols, Options: map[string]string{"connector": "gone"}}, catalog.SourceTraits{}},              // unknown
		{&catalog.Object{Kind: catalog.Sink, Query: "SELECT 1", Options: map[string]string{"connector": "gen", "end": "1"}}, catalog.SourceTraits{}}, // not a source
	} {
		if got := r.Traits(tt.obj); got != tt.want {
			t.Errorf("%+v: %+v, want %+v", tt.obj, got, tt.want)
		}
	}
}
