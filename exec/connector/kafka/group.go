package kafka

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// groupCommitTimeout bounds one report of offsets to the consumer group.
const groupCommitTimeout = 10 * time.Second

// groupReporter reports a source's offsets to a consumer group, for the
// tools that watch a group's lag: eddy never reads them back (a query
// resumes from its checkpoints), so a report is made in the background,
// at most one at a time, and one that fails is only counted.
type groupReporter struct {
	group    string
	busy     atomic.Bool
	failures *atomic.Int64 // the operator's own counter, group_commit_failures
}

// report commits offs (the next offset per partition of topic) to the
// group in the background, unless a report is still under way.
func (g *groupReporter) report(adm *kadm.Client, topic string, parts []int32, next []int64) {
	if !g.busy.CompareAndSwap(false, true) {
		return
	}
	var offs kadm.Offsets
	for i, p := range parts {
		offs.AddOffset(topic, p, next[i], -1)
	}
	go func() {
		defer g.busy.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), groupCommitTimeout)
		defer cancel()
		rs, err := adm.CommitOffsets(ctx, g.group, offs)
		if err == nil {
			err = rs.Error()
		}
		if err != nil {
			g.failures.Add(1)
		}
	}()
}
