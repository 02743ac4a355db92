package accum

import (
	"fmt"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/planner/plan"
)

// New returns the accumulator of aggregate a over an input of nInput
// columns, after checking a against features f (see Spec.Check).
func New(a Spec, nInput int, f Features, opts Options) (Accumulator, error) {
	if err := a.Check(nInput, f); err != nil {
		return nil, err
	}
	switch {
	case a.Func == plan.AggCountStar:
		return &countStarAgg{}, nil
	case a.Func == plan.AggCount && a.ArgType.Kind == types.Null:
		return &countNullAgg{}, nil // COUNT(NULL): every value is NULL
	}
	k, _ := KindOf(a.ArgType)
	var acc Accumulator
	switch a.Func {
	case plan.AggCount:
		acc = &countAgg{}
	case plan.AggApproxCountDistinct:
		if !opts.AppendOnly {
			// A sketch cannot forget a value: over an input that
			// retracts, the count is exact.
			return newDistinct(k, &countAgg{}), nil
		}
		acc = &approxAgg{kind: k}
	case plan.AggSum, plan.AggAvg:
		avg := a.Func == plan.AggAvg
		switch k {
		case KindInt:
			acc = &intSumAgg{avg: avg}
		case KindFloat:
			acc = &floatSumAgg{avg: avg}
		default:
			acc = &decSumAgg{avg: avg, scale: int32(a.ArgType.Scale)}
		}
	case plan.AggMin, plan.AggMax:
		return newMinMax(k, a.Func == plan.AggMax, opts), nil
	}
	if a.Distinct {
		acc = newDistinct(k, acc)
	}
	return acc, nil
}

// newMinMax returns the MIN or MAX accumulator for values of kind k.
func newMinMax(k Kind, max bool, opts Options) Accumulator {
	var acc Accumulator
	switch {
	case (k == KindInt || k == KindFloat) && opts.AppendOnly:
		acc = &intExtremeAgg{max: max}
	case k == KindInt || k == KindFloat:
		acc = &intMinMaxAgg{max: max}
	case opts.AppendOnly:
		acc = &strExtremeAgg{max: max, keyLen: decKeyLen(k)}
	default:
		acc = &minMaxAgg[string]{max: max, multisets: newMultisets[string](decKeyLen(k))}
	}
	if k != KindFloat && k != KindDec {
		return acc
	}
	keyed := keyedMinMax{Accumulator: acc, keys: Vector{Kind: KindInt}}
	if k == KindDec {
		keyed.keys.Kind = KindStr
	}
	if m, ok := acc.(Merger); ok {
		return &keyedMerger{keyed, m}
	}
	return &keyed
}

// newDistinct wraps inner in a DISTINCT filter for values of kind k
// (doubles and decimals are told apart by their keys).
func newDistinct(k Kind, inner Accumulator) Accumulator {
	if k == KindInt || k == KindFloat {
		return &distinctAgg[int64]{kind: k, countsets: newCountsets[int64](0), inner: inner}
	}
	return &distinctAgg[string]{kind: k, countsets: newCountsets[string](decKeyLen(k)), inner: inner}
}

// decKeyLen is the length of the string values of kind k kept in ordered
// state: 16 for decimals (their DecKeys), 0 (any) for strings.
func decKeyLen(k Kind) int {
	if k == KindDec {
		return 16
	}
	return 0
}

// NewAll returns the accumulators of specs (see New) and the arena they
// keep their words in, after the first header words of every row, which
// are the operator's.
func NewAll(specs []Spec, nInput int, f Features, opts Options, header int) ([]Accumulator, *aggstate.Arena, error) {
	accs := make([]Accumulator, len(specs))
	for _, g := range shareGroups(specs, opts) {
		inners := make([]Accumulator, len(g))
		for j, i := range g {
			if err := specs[i].Check(nInput, f); err != nil {
				return nil, nil, fmt.Errorf("aggregate %d: %w", i, err)
			}
			s := specs[i]
			s.Distinct = false // the shared sets are the DISTINCT
			inner, err := New(s, nInput, f, opts)
			if err != nil {
				return nil, nil, fmt.Errorf("aggregate %d: %w", i, err)
			}
			inners[j] = inner
		}
		k, _ := KindOf(specs[g[0]].ArgType)
		for j, m := range newShared(k, inners) {
			accs[g[j]] = m
		}
	}
	for i, s := range specs {
		if accs[i] != nil {
			continue
		}
		acc, err := New(s, nInput, f, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("aggregate %d: %w", i, err)
		}
		accs[i] = acc
	}
	words := header
	for _, acc := range accs {
		words += acc.Words()
	}
	arena := aggstate.NewArena(words)
	off := header
	for _, acc := range accs {
		acc.Bind(arena, off)
		off += acc.Words()
	}
	return accs, arena, nil
}

// shareGroups returns the DISTINCT aggregates of specs that keep their
// values in sharedDistinct's presence sets, as lists of their indexes, one
// list per set: over an input that never retracts (opts.AppendOnly),
// those of one Share over values of one kind together (at most
// aggstate.MaxPresence to a set), and each other alone. Over an input
// that retracts, none: each keeps counts (distinctAgg).
func shareGroups(specs []Spec, opts Options) [][]int {
	if !opts.AppendOnly {
		return nil
	}
	type key struct {
		share int
		kind  Kind
	}
	var groups [][]int
	at := map[key]int{} // the group of a share and kind
	for i, s := range specs {
		switch {
		case !s.Distinct || s.ArgType.Kind == types.Null:
			continue
		case s.Func != plan.AggCount && s.Func != plan.AggSum && s.Func != plan.AggAvg:
			continue
		}
		k, ok := KindOf(s.ArgType)
		if !ok {
			continue
		}
		kk := key{s.Share, k}
		if g, ok := at[kk]; ok && s.Share != 0 && len(groups[g]) < aggstate.MaxPresence {
			groups[g] = append(groups[g], i)
			continue
		}
		at[kk] = len(groups)
		groups = append(groups, []int{i})
	}
	return groups
}
