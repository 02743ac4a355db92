package nexmark

import (
	"context"
	"flag"
	"strings"
	"testing"
)

// Flags of BenchmarkNexmarkClass.
var (
	classEvents = flag.Int64("nexmark.events", 1_000_000,
		"the length of the event sequence each BenchmarkNexmarkClass query runs over")
	classParallelism = flag.Int("nexmark.parallelism", 0,
		"the parallelism of BenchmarkNexmarkClass queries (0: the number of CPUs)")
	classQueries = flag.String("nexmark.queries", "",
		"run these queries (q5,q20,...) instead of one per class: to profile any query")
)

// benchClasses are the queries BenchmarkNexmarkClass runs, one per class of
// NEXMARK.md §3.10, each named after its class and query: q1 (stateless:
// a projection with arithmetic), q5 (joins and windows: two HOP aggregates
// joined on the window), q18 (heavy stateful: de-duplication keeping the
// last bid per bidder and auction). q21 adds the string-heavy stateless
// query (REGEXP_EXTRACT, LOWER, CASE).
var benchClasses = []struct{ class, query string }{
	{"stateless", "q1"},
	{"stateless_regexp", "q21"},
	{"join_window", "q5"},
	{"stateful", "q18"},
}

// BenchmarkNexmarkClass runs one Nexmark query of each class in this
// process (RunOne: the generator, the query and a blackhole sink) over a
// bounded sequence of -nexmark.events events, to the end, and reports
// events/s (events per wall second) and events/s/core (events per CPU
// second of the whole process, which includes the testing framework's own
// small share). It exists to track regressions between commits; the
// figures to publish come from `eddy bench nexmark`, which runs each query
// in a process of its own. Run it with:
//
//	go test ./bench/nexmark -run '^$' -bench NexmarkClass -benchtime 1x
//	go test ./bench/nexmark -run '^$' -bench 'NexmarkClass/join_window' -benchtime 3x -nexmark.events 10000000
//
// Each iteration runs the whole query once; -benchtime Nx repeats it.
// Add -cpuprofile to profile a query in-process, and -nexmark.queries to
// choose which:
//
//	go test ./bench/nexmark -run '^$' -bench NexmarkClass -benchtime 1x -nexmark.queries q20 -cpuprofile q20.prof
func BenchmarkNexmarkClass(b *testing.B) {
	c := Config{Events: *classEvents, Parallelism: *classParallelism}
	classes := benchClasses
	if *classQueries != "" {
		classes = nil
		for _, q := range strings.Split(*classQueries, ",") {
			classes = append(classes, struct{ class, query string }{"query", q})
		}
	}
	for _, bc := range classes {
		b.Run(bc.class+"="+bc.query, func(b *testing.B) {
			qs, err := LoadQueries(c.Dir, bc.query)
			if err != nil {
				b.Fatal(err)
			}
			var wall, cpu float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f, err := RunOne(context.Background(), c, qs[0], nil)
				if err != nil {
					b.Fatal(err)
				}
				wall += f.WallS
				cpu += f.CPUS
			}
			events := float64(c.Events) * float64(b.N)
			if wall > 0 {
				b.ReportMetric(events/wall, "events/s")
			}
			if cpu > 0 {
				b.ReportMetric(events/cpu, "events/s/core")
			}
		})
	}
}
