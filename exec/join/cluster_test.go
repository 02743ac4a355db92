package join

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// cluster runs a join as p instances, each owning the key groups
// exec.KeyGroupsOf gives it, and routes every input row as the exchanges
// exec/build puts in front of the join would: hashed on the row's key
// columns into its key group's instance, all to instance 0 without keys,
// and for a broadcast join the right rows to every instance and each left
// row to the instance its whole row hashes to (a forward from an upstream
// partitioned some other way). Every instance emits into one emitter.
type cluster struct {
	t     *testing.T
	cfg   Config
	alloc memory.Allocator
	js    []*HashJoin
	envs  []*exec.Env
	out   exec.Emitter
	// pending is, by instance, whether a snapshot begun is not all
	// written (snapshot_test.go).
	pending []bool
}

// newCluster opens p instances of a join of cfg; the test closes them.
// A cfg with Relayout restores as the runtime has it restore a checkpoint
// of another placement (exec.Env.Relayout).
// Each of envs, if any, changes every instance's environment before Open.
func newCluster(t *testing.T, cfg Config, p int, alloc memory.Allocator, out exec.Emitter, envs ...func(*exec.Env)) *cluster {
	c := &cluster{t: t, cfg: cfg, alloc: alloc, out: out}
	for i := range p {
		env := exectest.InstanceEnv(alloc, i, p, nil)
		env.Relayout = cfg.Relayout
		for _, f := range envs {
			f(env)
		}
		j := NewHashJoin(cfg)
		exectest.Open(t, j, env)
		c.js, c.envs = append(c.js, j), append(c.envs, env)
	}
	return c
}

// names returns n column names.
func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%d", i)
	}
	return out
}

// send feeds rows with ops (nil: inserts) to input in of the instances
// they are routed to.
func (c *cluster) send(in int, rows [][]types.Datum, ops []exec.Op) error {
	ts, keys := c.cfg.Left, c.cfg.LeftKeys
	if in == 1 {
		ts, keys = c.cfg.Right, c.cfg.RightKeys
	}
	b := types.BuildRecord(c.alloc, names(len(ts)), ts, rows)
	defer b.Release()
	p := len(c.js)
	var hashCols []arrow.Array
	for _, k := range keys {
		hashCols = append(hashCols, b.Column(k))
	}
	broadcast := c.cfg.Broadcast && in == 1
	if c.cfg.Broadcast && in == 0 {
		hashCols = b.Columns()
	}
	hs := make([]uint64, len(rows))
	if err := exec.HashRows(hashCols, hs); err != nil {
		return err
	}
	for i, j := range c.js {
		var mine [][]types.Datum
		var myOps []exec.Op
		for r, row := range rows {
			to := 0
			if len(keys) > 0 {
				to = exec.InstanceForKeyGroup(exec.KeyGroup(hs[r]), p)
			}
			if !broadcast && to != i {
				continue
			}
			mine = append(mine, row)
			if ops != nil {
				myOps = append(myOps, ops[r])
			}
		}
		if len(mine) == 0 {
			continue
		}
		ch := exec.Chunk{Batch: types.BuildRecord(c.alloc, names(len(ts)), ts, mine), Ops: myOps}
		err := j.Process(context.Background(), in, ch, c.out)
		ch.Batch.Release()
		if err != nil {
			return fmt.Errorf("instance %d: %w", i, err)
		}
	}
	return nil
}

// control sends m to every instance.
func (c *cluster) control(m exec.Control) error {
	for i, j := range c.js {
		if err := j.OnControl(context.Background(), m, c.out); err != nil {
			return fmt.Errorf("instance %d: %w", i, err)
		}
	}
	return nil
}

// forward sends left rows (inserts) to instance i alone, as a forward
// exchange from the upstream instance matched with it does.
func (c *cluster) forward(i int, rows [][]types.Datum) error {
	ch := exec.Chunk{Batch: types.BuildRecord(c.alloc, names(len(c.cfg.Left)), c.cfg.Left, rows)}
	defer ch.Batch.Release()
	if err := c.js[i].Process(context.Background(), 0, ch, c.out); err != nil {
		return fmt.Errorf("instance %d: %w", i, err)
	}
	return nil
}

// watermarks sends instance i the watermark wms[i].
func (c *cluster) watermarks(wms []int64) error {
	for i, j := range c.js {
		m := exec.Control{Kind: exec.Watermark, Watermark: wms[i]}
		if err := j.OnControl(context.Background(), m, c.out); err != nil {
			return fmt.Errorf("instance %d: %w", i, err)
		}
	}
	return nil
}

// snapshot has every instance snapshot into st, as the runtime's one
// state table per operator, and returns the bytes they put.
func (c *cluster) snapshot(st *exectest.State, epoch uint64) int {
	c.t.Helper()
	st.Reset()
	for i, j := range c.js {
		if err := j.Snapshot(context.Background(), epoch, st); err != nil {
			c.t.Fatalf("instance %d: snapshot %d: %v", i, epoch, err)
		}
	}
	return st.Bytes
}

// restore has every instance restore its key groups from st.
func (c *cluster) restore(st *exectest.State) error {
	for i, j := range c.js {
		if err := j.Restore(context.Background(), st, c.envs[i].KeyGroups); err != nil {
			return fmt.Errorf("instance %d: %w", i, err)
		}
	}
	return nil
}

// held is the number of rows the instances hold, by their state gauges.
func (c *cluster) held() int64 {
	var n int64
	for _, env := range c.envs {
		n += env.Metrics.StateKeys.Load()
	}
	return n
}
