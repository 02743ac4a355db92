package expr

import (
	"math/rand/v2"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// The volatile functions: their value is computed when a batch is
// evaluated and differs between evaluations (plan.Builtin.Volatile). The
// compiler never folds them (isConstant) and a Program never shares them
// (shareSubexpressions), so two calls are two values.

// procTimeKernel is PROCTIME() (and NOW() where it is evaluated as it
// runs): the wall-clock time, in milliseconds, when the batch is
// evaluated — the same for every row of a batch — cut to the precision of
// its type.
func procTimeKernel(e *plan.Func) (kernel, error) {
	unit := FspUnit(int(e.Typ.Fsp))
	return func(in []*vector, n int, out *result) error {
		now := time.Now().UnixMilli()
		now -= now % unit
		r := out.int64s(n)
		for i := range r {
			r[i] = now
		}
		return nil
	}, nil
}

// FspUnit returns the milliseconds a TIMESTAMP(fsp) value is a multiple
// of: 1000 for fsp 0, 100 for 1, 10 for 2, 1 from 3 on.
func FspUnit(fsp int) int64 {
	unit := int64(1)
	for f := fsp; f < types.MaxFsp; f++ {
		unit *= 10
	}
	return unit
}

// buildRand compiles RAND() and RAND(seed). RAND() draws every row's
// value from the process's random source. RAND(seed) follows MySQL: a
// constant seed starts a sequence once, which goes on from batch to batch
// (the same values, in the same order, as MySQL's for the same seed); a
// seed that varies by row seeds each row's value alone. A NULL seed is 0.
func buildRand(c *compiler, e *plan.Func) (node, error) {
	r := &randNode{}
	if len(e.Args) == 1 {
		seed, err := c.compile(e.Args[0])
		if err != nil {
			return nil, err
		}
		if err := argsOf(e, types.PhysInt64); err != nil {
			return nil, err
		}
		r.seed = seed
	}
	return r, nil
}

type randNode struct {
	seed   node // nil: RAND()
	seeded bool // a constant seed started seq
	seq    mysqlRand
	out    result
}

func (r *randNode) eval(c *evalCtx) (*vector, error) {
	n := c.n
	r.out.reset()
	f := r.out.float64s(n)
	if r.seed == nil {
		for i := range f {
			f[i] = rand.Float64()
		}
		return &r.out.vector, nil
	}
	v, err := r.seed.eval(c)
	if err != nil {
		return nil, err
	}
	seedAt := func(i int) int64 {
		if !v.isValid(i) {
			return 0
		}
		return v.int64At(i)
	}
	if v.konst {
		if !r.seeded {
			r.seq.seed(seedAt(0))
			r.seeded = true
		}
		for i := range f {
			f[i] = r.seq.next()
		}
		return &r.out.vector, nil
	}
	for i := range f {
		r.seq.seed(seedAt(i))
		f[i] = r.seq.next()
	}
	return &r.out.vector, nil
}

// mysqlRand is MySQL's RAND(seed) generator (randominit and my_rnd in
// mysys), so a seeded RAND gives MySQL's values.
type mysqlRand struct{ s1, s2 uint64 }

const mysqlRandMax = 0x3FFFFFFF

func (m *mysqlRand) seed(n int64) {
	t := uint64(uint32(n))
	m.s1 = uint64(uint32(t*0x10001+55555555)) % mysqlRandMax
	m.s2 = uint64(uint32(t*0x10000001)) % mysqlRandMax
}

func (m *mysqlRand) next() float64 {
	m.s1 = (m.s1*3 + m.s2) % mysqlRandMax
	m.s2 = (m.s1 + m.s2 + 33) % mysqlRandMax
	return float64(m.s1) / float64(mysqlRandMax)
}

// buildUUID compiles UUID(): a random (version 4) UUID per row, as its
// 36-character text.
func buildUUID(*compiler, *plan.Func) (node, error) { return &uuidNode{}, nil }

type uuidNode struct{ out result }

func (u *uuidNode) eval(c *evalCtx) (*vector, error) {
	n := c.n
	u.out.reset()
	u.out.strings(n, 36*n)
	var text [36]byte
	for range n {
		formatUUID(&text, rand.Uint64(), rand.Uint64())
		u.out.appendBytes(text[:])
	}
	u.out.finishStrings()
	return &u.out.vector, nil
}

// formatUUID writes the version 4, variant 1 UUID of the random bits hi
// and lo as xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx.
func formatUUID(dst *[36]byte, hi, lo uint64) {
	const hex = "0123456789abcdef"
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // variant 10xx
	var b [16]byte
	for i := range 8 {
		b[i] = byte(hi >> (56 - 8*i))
		b[8+i] = byte(lo >> (56 - 8*i))
	}
	j := 0
	for i, x := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst[j] = '-'
			j++
		}
		dst[j], dst[j+1] = hex[x>>4], hex[x&0xf]
		j += 2
	}
}
