package physical

import (
	"fmt"

	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// chooseFusion decides where a Calc runs. Fused into its input's stage it
// costs no exchange, but runs on the input's instances only; a source of
// an INSERT-fed stream or a file has one. When the Calc is costly enough
// that this one instance would be the bottleneck, it runs instead in a
// stage of its own at the query's parallelism, fed batch by batch in
// turn (round-robin) — allowed for an append-only input, whose rows may
// be processed anywhere. With per-row costs src (the input's own work)
// and calc, p_in input instances and p Calc instances, the slowest stage
// sets the throughput:
//
//	fused    = (src + calc) / p_in
//	separate = max((src + exchange) / p_in, calc / p)
//
// It returns the Calc's input (an exchange when separate) and the
// decision, or in unchanged and nil when there is nothing to choose.
func (b *builder) chooseFusion(input plan.Node, in Node, pred plan.Expr, items []plan.ProjItem) (Node, *cost.Decision) {
	pIn, p := in.Hdr().Parallelism, b.opts.Parallelism
	if pIn >= p || !input.Props().AppendOnly {
		return in, nil
	}
	calc := cost.ExprCost(pred)
	keep := b.opts.Cost.Selectivity(pred)
	for _, it := range items {
		calc += keep * cost.ExprCost(it.Expr)
	}
	src := cost.SourceRow
	fused := (src + calc) / float64(pIn)
	separate := max((src+cost.ForwardRow)/float64(pIn), calc/float64(p))
	d := &cost.Decision{What: fmt.Sprintf("fusion of a Calc of %s cost units a row into a stage of %d instance(s)", Human(calc), pIn)}
	d.Alternatives = []cost.Alternative{
		{Desc: fmt.Sprintf("fused into its input's stage, at parallelism %d", pIn), Cost: fused},
		{Desc: fmt.Sprintf("a stage of its own at parallelism %d, fed round-robin", p), Cost: separate},
	}
	if separate < fused*0.8 {
		d.Chosen, d.Why = 1, "the Calc would make its input's stage the bottleneck: spread it over more instances"
		return b.exchange(in, RoundRobin, nil, p), d
	}
	d.Chosen, d.Why = 0, "the input's stage keeps up: an exchange would only add work"
	if separate < fused {
		d.Why = "a stage of its own would gain less than 20%: not worth an exchange"
	}
	return in, d
}
