package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/storage/kafkastate"
)

// A fragment's tasks are spread over the members by Kafka's consumer-group
// protocol: every member joins the fragment's group, subscribed to the
// topic whose partitions are the tasks (the fragment's Kafka source, or
// the first edge into it), and runs task p while the group assigns it
// partition p. The member never fetches through the group: the tasks read
// for themselves, from the positions of their checkpoints. When a member
// leaves or dies, the group gives its partitions to the others, whose new
// tasks fence the old ones' transactional producers and resume from the
// last checkpoint in the fragment's state topic: nothing is lost, and
// nothing a fenced task wrote after its last checkpoint is ever committed.

// fragRunner runs a member's tasks of one fragment.
type fragRunner struct {
	q     *Query
	fi    int
	topic string // the topic whose partitions are the tasks
	cl    *kgo.Client

	mu     sync.Mutex
	tasks  map[int32]*task
	closed bool
	wg     sync.WaitGroup
}

// task is one running task.
type task struct {
	p      int32
	cancel context.CancelFunc
	done   chan struct{}

	mu  sync.Mutex
	job *dataflow.Job
	err error // the last failure
}

// runFragment joins fragment fi's consumer group.
func (q *Query) runFragment(fi int) (*fragRunner, error) {
	f := q.split.Fragments[fi]
	r := &fragRunner{q: q, fi: fi, tasks: map[int32]*task{}}
	if f.Source >= 0 {
		src, err := f.Stages[f.Source].Source(0)
		if err != nil {
			return nil, err
		}
		ps, ok := kafkaOf(src)
		src.Close()
		if !ok {
			return nil, fmt.Errorf("cluster: %s is not a Kafka source", f.Stages[f.Source].SourceName)
		}
		r.topic = ps.Topic()
	} else {
		r.topic = q.split.Edges[f.Readers[0]].Topic
	}
	m := q.m
	cl, err := kgo.NewClient(kgo.SeedBrokers(m.cfg.Brokers...),
		kgo.ConsumerGroup(q.group(fi)), kgo.ConsumeTopics(r.topic), kgo.ClientID(m.clientID()),
		kgo.Balancers(kgo.CooperativeStickyBalancer()), kgo.DisableAutoCommit(),
		kgo.SessionTimeout(m.cfg.SessionTimeout), kgo.HeartbeatInterval(m.cfg.SessionTimeout/5),
		// A rebalance waits this long for the members to rejoin: a member
		// that died during one holds every fragment's tasks up until
		// then (kgo's default is a minute). Members rejoin as soon as
		// they have stopped their revoked tasks, which takes little.
		kgo.RebalanceTimeout(m.cfg.SessionTimeout),
		kgo.OnPartitionsAssigned(r.assigned), kgo.OnPartitionsRevoked(r.revoked), kgo.OnPartitionsLost(r.revoked))
	if err != nil {
		return nil, fmt.Errorf("cluster: joining the group of fragment %d of %s: %w", fi, q.spec.Name, err)
	}
	cl.PauseFetchTopics(r.topic)
	r.cl = cl
	return r, nil
}

// assigned starts the tasks of the partitions the group gave the member.
// The group gives a member only partitions it did not have, so a task
// the member still runs for one is stale (another member ran it since,
// and fenced it): it is stopped, and the task starts afresh from the
// last checkpoint.
func (r *fragRunner) assigned(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
	r.mu.Lock()
	var stale []*task
	for _, p := range parts[r.topic] {
		if t, ok := r.tasks[p]; ok {
			delete(r.tasks, p)
			t.cancel()
			stale = append(stale, t)
		}
	}
	r.mu.Unlock()
	for _, t := range stale {
		<-t.done
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	for _, p := range parts[r.topic] {
		r.q.m.log.Info("task assigned", "query", r.q.spec.Name, "task", r.q.taskName(r.fi, p))
		ctx, cancel := context.WithCancel(r.q.ctx)
		t := &task{p: p, cancel: cancel, done: make(chan struct{})}
		r.tasks[p] = t
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer close(t.done)
			r.run(ctx, t)
		}()
	}
}

// revoked stops the tasks of the partitions the group took away, before
// the group gives them to another member.
func (r *fragRunner) revoked(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
	r.mu.Lock()
	var stopping []*task
	for _, p := range parts[r.topic] {
		if t, ok := r.tasks[p]; ok {
			r.q.m.log.Info("task revoked", "query", r.q.spec.Name, "task", r.q.taskName(r.fi, p))
			delete(r.tasks, p)
			t.cancel()
			stopping = append(stopping, t)
		}
	}
	r.mu.Unlock()
	for _, t := range stopping {
		<-t.done
	}
}

// run runs task t until ctx is done: a task that fails starts again from
// its last checkpoint, after a pause that grows with repeated failures;
// a task fenced by another member's is over.
func (r *fragRunner) run(ctx context.Context, t *task) {
	log := r.q.m.log.With("query", r.q.spec.Name, "task", r.q.taskName(r.fi, t.p))
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := r.runOnce(ctx, t)
		if ctx.Err() != nil {
			return
		}
		t.mu.Lock()
		t.err = err
		t.mu.Unlock()
		if errors.Is(err, kafkastate.ErrFenced) {
			// Another member runs it now; if the group gives it back,
			// assigned starts it again.
			log.Info("task moved to another member", "err", err)
			r.mu.Lock()
			if r.tasks[t.p] == t {
				delete(r.tasks, t.p)
			}
			r.mu.Unlock()
			return
		}
		log.Warn("task failed; restarting it from its last checkpoint", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 10*time.Second)
	}
}

// openTimeout bounds how long a task may take to open its state and
// restore its checkpoint before it is failed and started again: a task
// that hangs there (on a broker that does not answer) must not hold its
// partition silently.
func (m *Member) openTimeout() time.Duration { return max(30*time.Second, 3*m.cfg.SessionTimeout) }

// runOnce opens task t's state, which fences whoever ran it before,
// restores its last checkpoint and runs it until it fails or ctx is done.
func (r *fragRunner) runOnce(ctx context.Context, t *task) error {
	q := r.q
	name := q.taskName(r.fi, t.p)
	octx, cancel := context.WithTimeout(ctx, q.m.openTimeout())
	defer cancel()
	store, err := kafkastate.Open(octx, kafkastate.Config{Brokers: q.m.cfg.Brokers, Topic: q.stateTopic(r.fi), Partition: t.p,
		TransactionalID: name + "-state"})
	if err != nil {
		return fmt.Errorf("opening the state of %s: %w", name, err)
	}
	defer store.Close()
	epoch, err := store.Recover(octx)
	if err != nil {
		return err
	}
	g, err := q.taskGraph(r.fi, t.p)
	if err != nil {
		return err
	}
	opts := q.spec.Options
	opts.Name, opts.State, opts.Restore, opts.CheckpointInterval = name, store, epoch > 0, q.spec.CheckpointInterval
	job, err := dataflow.StartJob(ctx, g, opts)
	if err != nil {
		return err
	}
	if err := job.WaitOpened(octx); err != nil && ctx.Err() == nil {
		job.Stop()
		return fmt.Errorf("%s did not restore its checkpoint %d within %s", name, epoch, q.m.openTimeout())
	}
	t.mu.Lock()
	t.job, t.err = job, nil
	t.mu.Unlock()
	q.m.log.Info("task started", "query", q.spec.Name, "task", name, "epoch", epoch)
	// A job whose checkpoints are fenced (another member opened the
	// task's state) goes on failing them while it has no input to fail
	// on: it is stopped at the first.
	tick := time.NewTicker(q.spec.CheckpointInterval)
	defer tick.Stop()
	var fenced error
wait:
	for {
		select {
		case <-job.Done():
			break wait
		case <-ctx.Done():
			job.Stop()
			break wait
		case <-tick.C:
			if cs := job.Checkpoints(); len(cs) > 0 && errors.Is(cs[len(cs)-1].Err, kafkastate.ErrFenced) {
				fenced = cs[len(cs)-1].Err
				job.Stop()
				break wait
			}
		}
	}
	t.mu.Lock()
	t.job = nil
	t.mu.Unlock()
	if fenced != nil {
		return fenced
	}
	_, jerr := job.State()
	return jerr
}

// stop leaves the group and stops the member's tasks.
func (r *fragRunner) stop() {
	r.mu.Lock()
	r.closed = true
	tasks := r.tasks
	r.tasks = map[int32]*task{}
	r.mu.Unlock()
	for _, t := range tasks {
		t.cancel()
	}
	r.wg.Wait()
	r.cl.Close() // leaves the group: the others take the tasks over
}

// failing returns the member's tasks of the fragment that failed and
// wait to start again, with why.
func (r *fragRunner) failing() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for p, t := range r.tasks {
		t.mu.Lock()
		if t.job == nil && t.err != nil {
			out = append(out, fmt.Sprintf("task %d: %v", p, t.err))
		}
		t.mu.Unlock()
	}
	slices.Sort(out)
	return out
}

// owned returns the partitions of the tasks the member runs.
func (r *fragRunner) owned() []int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	ps := make([]int32, 0, len(r.tasks))
	for p := range r.tasks {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// Tasks returns, by fragment, the partitions of the tasks the member
// runs.
func (q *Query) Tasks() [][]int32 {
	out := make([][]int32, len(q.frags))
	for i, r := range q.frags {
		if r != nil {
			out[i] = r.owned()
		}
	}
	return out
}
