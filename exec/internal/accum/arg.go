package accum

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/vec"
	"github.com/eddysql/eddy/planner/plan"
)

// Arg is an aggregate's argument column in the current batch: its values
// in their Go representation and, per row, the weight the row contributes
// (the row's +1/−1, 0 for a row the batch does not count, or 0 when the
// argument is NULL). Several aggregates over the same column share one Arg.
type Arg struct {
	Ord  int // the input column ordinal
	Kind Kind
	// Keys is set when an aggregate reads doubles or decimals as
	// order-preserving keys: Load then also fills I (FloatKey) or S
	// (DecKeys) with them.
	Keys bool
	// W is each row's weight.
	W []int64
	// Ones is set when every row weighs 1 in W (a batch of inserts, none
	// of them NULL), for the accumulators' loops without weights. An
	// accumulator that passes the Arg on with other weights (DISTINCT)
	// clears it meanwhile.
	Ones bool
	Values

	wbuf []int64
	ibuf []int64
	sbuf []string
	kbuf []byte
}

// NeedsKeys reports whether aggregate a reads its double or decimal
// argument as order-preserving keys (see Arg.Keys).
func NeedsKeys(a Spec) bool {
	switch a.ArgType.Physical() {
	case types.PhysFloat64, types.PhysDecimal:
		return a.Distinct || a.Func == plan.AggMin || a.Func == plan.AggMax || a.Func == plan.AggApproxCountDistinct
	}
	return false
}

// Load reads column arr of the batch, whose row weights are weights, all
// 1 if ones is set.
func (a *Arg) Load(arr arrow.Array, weights []int64, ones bool) error {
	n := arr.Len()
	if err := CheckArrow(a.Kind, arr); err != nil {
		return fmt.Errorf("argument column %d: %w", a.Ord, err)
	}
	switch a.Kind {
	case KindInt:
		vals, buf, err := IntValues(arr, a.ibuf)
		if err != nil {
			return fmt.Errorf("argument column %d: %w", a.Ord, err)
		}
		a.I, a.ibuf = vals, buf
	case KindFloat:
		a.F = arr.(*array.Float64).Float64Values()
		if a.Keys {
			a.ibuf = vec.Resize(a.ibuf, n)
			for i, v := range a.F {
				a.ibuf[i] = FloatKey(v)
			}
			a.I = a.ibuf
		}
	case KindDec:
		a.D = arr.(*array.Decimal128).Values()
		if a.Keys {
			var all string
			all, a.kbuf = DecKeys(a.D, a.kbuf)
			a.sbuf = vec.Resize(a.sbuf, n)
			for i := range a.sbuf {
				a.sbuf[i] = all[16*i : 16*i+16]
			}
			a.S = a.sbuf
		}
	case KindStr:
		s := arr.(*array.String)
		a.sbuf = vec.Resize(a.sbuf, n)
		for i := range a.sbuf {
			a.sbuf[i] = s.Value(i)
		}
		a.S = a.sbuf
	}
	a.Ones = ones && arr.NullN() == 0
	if arr.NullN() == 0 {
		a.W = weights
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
	a.W = a.wbuf
	return nil
}

// Release drops the batch's values (strings point into its buffers).
func (a *Arg) Release() {
	clear(a.sbuf)
	a.Values = Values{}
	a.W = nil
}

// CheckArrow returns an error unless arr is the Arrow array that holds
// columns of kind k: *array.Float64 for KindFloat, *array.Decimal128 for
// KindDec, *array.String for KindStr. The integer-like kind has several,
// which IntValues checks.
func CheckArrow(k Kind, arr arrow.Array) error {
	var ok bool
	var want string
	switch k {
	case KindFloat:
		ok, want = is[*array.Float64](arr), "float64"
	case KindDec:
		ok, want = is[*array.Decimal128](arr), "decimal128"
	case KindStr:
		ok, want = is[*array.String](arr), "utf8"
	default:
		return nil
	}
	if !ok {
		return fmt.Errorf("expected %s, got %s", want, arr.DataType())
	}
	return nil
}

// is reports whether arr is an A.
func is[A arrow.Array](arr arrow.Array) bool {
	_, ok := arr.(A)
	return ok
}

// IntValues returns the values of an integer-like column (BOOLEAN, integers,
// DATE, TIMESTAMP, INTERVAL) as int64s: the array's own buffer for int64,
// else converted into buf (returned, possibly grown). NULL rows hold
// arbitrary values.
func IntValues(arr arrow.Array, buf []int64) (vals, newBuf []int64, err error) {
	switch a := arr.(type) {
	case *array.Int64:
		return a.Int64Values(), buf, nil
	case *array.Date32:
		buf = widen(buf, a.Date32Values())
	case *array.Timestamp:
		buf = widen(buf, a.TimestampValues())
	case *array.Duration:
		buf = widen(buf, a.DurationValues())
	case *array.Boolean:
		buf = vec.Resize(buf, arr.Len())
		for i := range buf {
			buf[i] = 0
			if a.Value(i) {
				buf[i] = 1
			}
		}
	default:
		return nil, buf, fmt.Errorf("expected an integer-like column, got %s", arr.DataType())
	}
	return buf, buf, nil
}

// widen returns vs as int64s in buf, resized.
func widen[T ~int32 | ~int64](buf []int64, vs []T) []int64 {
	buf = vec.Resize(buf, len(vs))
	for i, v := range vs {
		buf[i] = int64(v)
	}
	return buf
}

// Args are the argument columns of an operator's aggregates, read once per
// batch: aggregates over the same column share one Arg.
type Args struct {
	cols []*Arg
	of   []int // per aggregate: its index in cols, or -1
}

// NewArgs returns the argument columns of specs, which New accepted.
func NewArgs(specs []Spec) Args {
	var a Args
	a.of = make([]int, len(specs))
	for i, s := range specs {
		a.of[i] = a.index(s)
	}
	return a
}

// index returns the index in a.cols of s's argument column, adding it; -1
// for an aggregate without one.
func (a *Args) index(s Spec) int {
	if s.Arg < 0 || s.Func == plan.AggCountStar || s.ArgType.Kind == types.Null {
		return -1
	}
	for i, c := range a.cols {
		if c.Ord == s.Arg {
			c.Keys = c.Keys || NeedsKeys(s)
			return i
		}
	}
	k, _ := KindOf(s.ArgType)
	a.cols = append(a.cols, &Arg{Ord: s.Arg, Kind: k, Keys: NeedsKeys(s)})
	return len(a.cols) - 1
}

// Load reads every argument column of rec, whose rows weigh weights (all
// 1 if ones is set).
func (a *Args) Load(rec arrow.RecordBatch, weights []int64, ones bool) error {
	for _, c := range a.cols {
		if err := c.Load(rec.Column(c.Ord), weights, ones); err != nil {
			return err
		}
	}
	return nil
}

// Of returns aggregate i's argument and the weights of its rows (weights
// itself, the rows', for an aggregate without an argument).
func (a *Args) Of(i int, weights []int64) (*Arg, []int64) {
	if k := a.of[i]; k >= 0 {
		return a.cols[k], a.cols[k].W
	}
	return nil, weights
}

// Release drops the batch's values.
func (a *Args) Release() {
	for _, c := range a.cols {
		c.Release()
	}
}
