package proptest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Side is one of the two plans a case compares.
type Side struct {
	Name        string // "on" or "off": the object-name prefix and the optimizer setting
	Optimizer   bool
	Parallelism int
}

// Case is one generated test: sources, their data, a query, and the two
// plans to run it with. Everything in it follows from Seed.
type Case struct {
	Seed   uint64
	Schema *Schema
	Data   *Data
	Query  *Query
	// Sides are the optimized plan and the plan with every optional rule
	// disabled; one of them (chosen by the seed) runs at parallelism 2 or
	// 4 about two times in three, the other at 1.
	Sides [2]Side
}

// NewCase generates the case of a seed. Schema, data, query and
// parallelism come from separate random streams, so that a change to how
// one of them is generated leaves the others of a seed alone.
func NewCase(seed uint64) *Case {
	c := &Case{Seed: seed}
	c.Schema = GenSchema(newRand(seed, "schema"))
	c.Data = GenData(newRand(seed, "data"), c.Schema)
	c.Query = GenQuery(newRand(seed, "query"), c.Schema)
	r := newRand(seed, "run")
	c.Sides = [2]Side{{Name: "on", Optimizer: true, Parallelism: 1}, {Name: "off", Parallelism: 1}}
	c.Sides[r.IntN(2)].Parallelism = []int{1, 2, 4}[r.IntN(3)]
	return c
}

// newRand returns the random source of one part of a case.
func newRand(seed uint64, part string) *rand.Rand {
	var h uint64 = 14695981039346656037 // FNV-1a
	for i := 0; i < len(part); i++ {
		h = (h ^ uint64(part[i])) * 1099511628211
	}
	return rand.New(rand.NewPCG(seed, h))
}

// ViewName returns the name of the tested view of a side.
func (s Side) ViewName() string { return s.Name + "_v" }

// rename replaces the helper views' placeholders with the side's names.
func (s Side) rename(sql string) string {
	return strings.ReplaceAll(sql, viewMark, s.Name+"_h")
}

// Setup returns the statements that create a side's views: its settings,
// then its helper views and the tested view.
func (c *Case) Setup(s Side) []string {
	opt := "off"
	if s.Optimizer {
		opt = "on"
	}
	out := []string{
		"SET optimizer = " + opt + ";",
		fmt.Sprintf("SET parallelism = %d;", s.Parallelism),
	}
	for _, v := range c.Query.Views {
		out = append(out, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s%s;", s.rename(v.Name), s.rename(v.SQL), v.Emit))
	}
	return append(out, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s%s;", s.ViewName(), s.rename(c.Query.SQL), c.Query.Emit))
}

// Script returns the whole case as a script `eddy exec -f` runs: the
// sources, both sides' views, the rounds with their FLUSHes, and a SELECT
// of each side's view.
func (c *Case) Script() string {
	var b strings.Builder
	fmt.Fprintf(&b, "-- proptest case, seed %d (features: %s)\n", c.Seed, strings.Join(c.Query.Features.Names(), ", "))
	for _, src := range c.Schema.Sources {
		b.WriteString(src.DDL() + "\n")
	}
	for _, s := range c.Sides {
		for _, st := range c.Setup(s) {
			b.WriteString(st + "\n")
		}
	}
	for _, rd := range c.Data.Rounds {
		for _, st := range rd.Statements() {
			b.WriteString(st + "\n")
		}
	}
	for _, s := range c.Sides {
		b.WriteString("SELECT * FROM " + s.ViewName() + ";\n")
	}
	return b.String()
}
