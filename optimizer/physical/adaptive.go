package physical

// Adaptive joins. A join the optimizer could broadcast (chooseDistribution)
// is planned with its distribution, hash or broadcast, by the cost model
// and the sizes it estimates; once it runs, the sizes it observes may
// cross over (a table grows, or shrinks). With Options.AdaptiveJoins such
// a join is marked Adaptive: the engine compares its observed sizes with
// the crossover and, past it, plans the query again with the join's
// distribution forced (Options.JoinSwitches, by the join's Ordinal) and
// moves its state at a checkpoint (exec/join's Config.Relayout).
//
// A join is not adaptive when its output reaches a stateful operator
// without a shuffle in between (markAdaptive): that operator's instances
// receive the join's changes from the join instance of the same number,
// and after a switch a change would come from another instance than the
// row it retracts — the join no longer holds each row where it did.

// JoinSwitch is a distribution forced on a join by a switch at run time.
type JoinSwitch struct {
	// Join is the join's ordinal (HashJoin.Ordinal).
	Join int
	// Broadcast forces broadcasting the right side, else hash
	// partitioning.
	Broadcast bool
	// Why says when and why it switched, for EXPLAIN.
	Why string
}

// joinSwitch returns the switch that forces the join of the ordinal, if
// any.
func (b *builder) joinSwitch(ordinal int) *JoinSwitch {
	for i := range b.opts.JoinSwitches {
		if sw := &b.opts.JoinSwitches[i]; sw.Join == ordinal {
			return sw
		}
	}
	return nil
}

// markAdaptive clears Adaptive on the joins whose output reaches a
// stateful operator through forward exchanges and chained operators only
// (forwarded: n's output does). The left input of a join that broadcasts,
// or may switch to it, counts as forwarded whatever its exchange now.
func markAdaptive(n Node, forwarded bool) {
	h := n.Hdr()
	if j, ok := n.(*HashJoin); ok {
		if forwarded {
			j.Adaptive = false
		}
		if ex, ok := h.Inputs[0].(*Exchange); ok && (j.Adaptive || j.Broadcasts()) {
			markAdaptive(ex.Inputs[0], true)
			markAdaptive(h.Inputs[1], true)
			return
		}
	}
	below := forwarded
	switch x := n.(type) {
	case *Exchange:
		if x.Dist != Forward {
			below = false
		}
	default:
		if h.Est.Stateful {
			below = true
		}
	}
	for _, in := range h.Inputs {
		markAdaptive(in, below)
	}
}

// AdaptiveJoins returns the plan's adaptive joins, in the order of their
// ordinals.
func AdaptiveJoins(root Node) []*HashJoin {
	var out []*HashJoin
	var walk func(n Node)
	walk = func(n Node) {
		if j, ok := n.(*HashJoin); ok && j.Adaptive {
			out = append(out, j)
		}
		for _, in := range n.Hdr().Inputs {
			walk(in)
		}
	}
	walk(root)
	for i := 1; i < len(out); i++ {
		for k := i; k > 0 && out[k].Ordinal < out[k-1].Ordinal; k-- {
			out[k], out[k-1] = out[k-1], out[k]
		}
	}
	return out
}

// Broadcasts reports whether the join broadcasts its right side.
func (n *HashJoin) Broadcasts() bool {
	ex, ok := n.Inputs[1].(*Exchange)
	return ok && ex.Dist == Broadcast
}
