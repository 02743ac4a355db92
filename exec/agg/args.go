package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/exec/internal/vec"
)

// argCol is an aggregate's argument column in the current batch: its values
// in their Go representation and, per row, the weight the row contributes
// (the row's +1/−1, or 0 when the argument is NULL). Several aggregates over
// the same column share one argCol.
type argCol struct {
	ord  int // input column ordinal
	kind kind
	keys bool // doubles, decimals: also fill i (floatKey) or s (decKeys) with keys
	w    []int64
	values

	wbuf []int64
	ibuf []int64
	sbuf []string
	kbuf []byte
}

// load reads column arr of the batch, whose row weights are weights.
func (a *argCol) load(arr arrow.Array, weights []int64) error {
	n := arr.Len()
	switch a.kind {
	case kindInt:
		vals, buf, err := intValues(arr, a.ibuf)
		if err != nil {
			return err
		}
		a.i, a.ibuf = vals, buf
	case kindFloat:
		f, ok := arr.(*array.Float64)
		if !ok {
			return fmt.Errorf("hash aggregate: column %d: expected float64, got %s", a.ord, arr.DataType())
		}
		a.f = f.Float64Values()
		if a.keys {
			a.ibuf = vec.Resize(a.ibuf, n)
			for i, v := range a.f {
				a.ibuf[i] = floatKey(v)
			}
			a.i = a.ibuf
		}
	case kindDec:
		d, ok := arr.(*array.Decimal128)
		if !ok {
			return fmt.Errorf("hash aggregate: column %d: expected decimal128, got %s", a.ord, arr.DataType())
		}
		a.d = d.Values()
		if a.keys {
			var all string
			all, a.kbuf = decKeys(a.d, a.kbuf)
			a.sbuf = vec.Resize(a.sbuf, n)
			for i := range a.sbuf {
				a.sbuf[i] = all[16*i : 16*i+16]
			}
			a.s = a.sbuf
		}
	case kindStr:
		s, ok := arr.(*array.String)
		if !ok {
			return fmt.Errorf("hash aggregate: column %d: expected utf8, got %s", a.ord, arr.DataType())
		}
		a.sbuf = vec.Resize(a.sbuf, n)
		for i := range a.sbuf {
			a.sbuf[i] = s.Value(i)
		}
		a.s = a.sbuf
	}
	if arr.NullN() == 0 {
		a.w = weights
		return nil
	}
	a.wbuf = vec.Resize(a.wbuf, n)
	for i := range a.wbuf {
		if arr.IsNull(i) {
			a.wbuf[i] = 0
		} else {
			a.wbuf[i] = weights[i]
		}
	}
	a.w = a.wbuf
	return nil
}

// release drops the batch's values (strings point into its buffers).
func (a *argCol) release() {
	clear(a.sbuf)
	a.values = values{}
	a.w = nil
}

// intValues returns the values of an integer-like column (BOOLEAN, integers,
// DATE, TIMESTAMP, INTERVAL) as int64s: the array's own buffer for int64,
// else converted into buf (returned, possibly grown). NULL rows hold
// arbitrary values.
func intValues(arr arrow.Array, buf []int64) (vals, newBuf []int64, err error) {
	n := arr.Len()
	switch a := arr.(type) {
	case *array.Int64:
		return a.Int64Values(), buf, nil
	case *array.Date32:
		buf = vec.Resize(buf, n)
		for i, v := range a.Date32Values() {
			buf[i] = int64(v)
		}
	case *array.Timestamp:
		buf = vec.Resize(buf, n)
		for i, v := range a.TimestampValues() {
			buf[i] = int64(v)
		}
	case *array.Duration:
		buf = vec.Resize(buf, n)
		for i, v := range a.DurationValues() {
			buf[i] = int64(v)
		}
	case *array.Boolean:
		buf = vec.Resize(buf, n)
		for i := range buf {
			buf[i] = 0
			if a.Value(i) {
				buf[i] = 1
			}
		}
	default:
		return nil, buf, fmt.Errorf("hash aggregate: expected an integer-like column, got %s", arr.DataType())
	}
	return buf, buf, nil
}
