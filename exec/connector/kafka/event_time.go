package kafka

import (
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// noEventTime is a partition's largest event time before it has returned
// a row with one.
const noEventTime = math.MinInt64

// eventTimes tracks, per partition a source reads, the largest event time
// among the rows it returned and when it last had input
// (exec.PartitionedEventTime): the watermark follows the slowest
// partition that is not idle.
type eventTimes struct {
	col   int           // the event-time column's ordinal; -1 when not tracked
	idle  time.Duration // a partition without input this long is idle; 0: never
	max   []int64       // per partition: the largest event time returned
	last  []time.Time   // per partition: when it last had input
	slots []int32       // per row of the batch being built: its partition's index
}

var _ exec.PartitionedEventTime = (*Source)(nil)

// TrackEventTime implements exec.PartitionedEventTime: the source tracks
// column col, which must be a TIMESTAMP.
func (s *Source) TrackEventTime(col int, idle time.Duration) bool {
	if s.rows == nil || col < 0 || col >= len(s.cfg.Columns) || s.cfg.Columns[col].Type.Kind != types.Timestamp {
		return false
	}
	s.et.col, s.et.idle = col, idle
	return true
}

// EventTimeBound implements exec.PartitionedEventTime.
func (s *Source) EventTimeBound(now time.Time) (int64, bool) {
	bound, any := int64(math.MaxInt64), false
	for i := range s.parts {
		if s.et.idle > 0 && now.Sub(s.et.last[i]) >= s.et.idle {
			continue
		}
		if s.et.max[i] == noEventTime {
			return 0, false
		}
		bound, any = min(bound, s.et.max[i]), true
	}
	return bound, any
}

// open sizes the tracking for n partitions, none of which has had input
// since now.
func (e *eventTimes) open(n int, now time.Time) {
	e.col = -1
	e.max, e.last = make([]int64, n), make([]time.Time, n)
	for i := range e.max {
		e.max[i], e.last[i] = noEventTime, now
	}
}

// row records that the batch's next row is of partition i, which had
// input at now.
func (e *eventTimes) row(i int, now time.Time) {
	e.last[i] = now
	if e.col >= 0 {
		e.slots = append(e.slots, int32(i))
	}
}

// batch takes the event times of rec, the batch the rows recorded since
// the last call make up.
func (e *eventTimes) batch(rec arrow.RecordBatch) {
	if e.col < 0 {
		return
	}
	if ts, ok := rec.Column(e.col).(*array.Timestamp); ok && ts.Len() == len(e.slots) {
		vals := ts.TimestampValues()
		nulls := ts.NullN() > 0
		for r, i := range e.slots {
			if nulls && ts.IsNull(r) {
				continue
			}
			e.max[i] = max(e.max[i], int64(vals[r]))
		}
	}
	e.slots = e.slots[:0]
}
