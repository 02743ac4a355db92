// Package builtin makes the registry of eddy's connectors (SQL.md,
// "Connectors"): the sources file, nexmark, datagen and kafka, the sinks
// file, print, blackhole and kafka, and any source SQL.md documents that
// is not implemented yet, which CREATE refuses as not supported yet. It
// is apart from package connector, which defines what a connector is,
// because every connector imports that package.
package builtin

import (
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/connector/datagen"
	"github.com/eddysql/eddy/exec/connector/file"
	"github.com/eddysql/eddy/exec/connector/kafka"
	"github.com/eddysql/eddy/exec/connector/nexmark"
	"github.com/eddysql/eddy/exec/connector/sink"
)

// planned are the source connectors SQL.md documents that eddy does not
// implement yet.
var planned []string

// New returns a registry of eddy's connectors. Each call makes a new one,
// which the caller may extend (the engine adds its own sink for
// continuous inserts).
func New() *connector.Registry {
	r := connector.NewRegistry()
	r.AddSource(file.Connector{})
	r.AddSource(nexmark.Connector{})
	r.AddSource(datagen.Connector{})
	r.AddSource(kafka.Connector{})
	for _, c := range sink.Connectors() {
		r.AddSink(c)
	}
	r.AddSink(kafka.SinkConnector{})
	for _, name := range planned {
		r.AddPlanned(name)
	}
	return r
}
