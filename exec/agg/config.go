package agg

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/planner/plan"
)

// HashConfig configures a HashAgg.
type HashConfig struct {
	// Input are the input column types.
	Input []types.T
	// GroupKeys are the input ordinals of the GROUP BY columns; empty for a
	// global aggregate.
	GroupKeys []int
	// PartKeys, when set, are the indexes in GroupKeys of the keys the
	// input was hashed on, in the order it was: some of them (an exchange
	// below a window assignment), or the keys of a join the aggregate
	// follows. A group's key group is theirs. Nil: every group key.
	PartKeys []int
	Aggs     []accum.Spec
	// Names are the output column names: the group columns, then the
	// aggregates.
	Names []string
	// AppendOnly is set when the planner guarantees that the input never
	// retracts; MIN and MAX then keep only the extreme value per group.
	AppendOnly bool
	// Close, when set, makes the aggregate windowed (see WindowClose).
	Close *WindowClose
	// StateTTL, when positive, bounds the state of an aggregate with group
	// keys and no Close: a group no row has reached for StateTTL (in
	// processing time, exec.Env.Now) is evicted without output (see
	// ttl.go).
	StateTTL time.Duration
}

// schema validates cfg and returns the output schema.
func (cfg *HashConfig) schema() (*arrow.Schema, error) {
	if len(cfg.Names) != len(cfg.GroupKeys)+len(cfg.Aggs) {
		return nil, fmt.Errorf("hash aggregate: %d names for %d group keys and %d aggregates",
			len(cfg.Names), len(cfg.GroupKeys), len(cfg.Aggs))
	}
	for _, k := range cfg.PartKeys {
		if k < 0 || k >= len(cfg.GroupKeys) {
			return nil, fmt.Errorf("hash aggregate: partition key %d is not one of its %d group keys", k, len(cfg.GroupKeys))
		}
	}
	fields := make([]arrow.Field, 0, len(cfg.Names))
	for i, ord := range cfg.GroupKeys {
		if ord < 0 || ord >= len(cfg.Input) {
			return nil, fmt.Errorf("hash aggregate: group key ordinal %d out of range", ord)
		}
		if _, ok := accum.KindOf(cfg.Input[ord]); !ok {
			return nil, fmt.Errorf("hash aggregate: cannot group by a column of type %s: %w", cfg.Input[ord], accum.ErrNotSupported)
		}
		fields = append(fields, types.Field(cfg.Names[i], cfg.Input[ord], true))
	}
	for i, a := range cfg.Aggs {
		fields = append(fields, types.Field(cfg.Names[len(cfg.GroupKeys)+i], a.Type, plan.AggNullable(a.Func)))
	}
	return arrow.NewSchema(fields, nil), nil
}
