package basic

import (
	"context"
	"errors"
	"hash/fnv"
	"math"

	"github.com/eddysql/eddy/exec/internal/position"
)

// valuesTag is the kind tag of a ValuesSource's positions.
const valuesTag = "values"

// Position implements exec.Positioned: the rows emitted, of how many,
// and the hash of the columns and rows.
func (v *ValuesSource) Position() ([]byte, error) {
	v.hashRows()
	w := position.NewWriter(valuesTag)
	w.Uint(v.hash)
	w.Uint(uint64(v.emitted + len(v.Rows)))
	w.Uint(uint64(v.emitted))
	return w.Bytes(), nil
}

// Seek implements exec.Positioned: the source goes on after the rows the
// position says were emitted. A position of other rows or columns, or
// past the last row, is refused with a *position.Error.
func (v *ValuesSource) Seek(ctx context.Context, pos []byte) error {
	if v.started {
		return errors.New("values source: Seek after Next")
	}
	v.hashRows()
	const src = "values source"
	r := position.NewReader(pos, valuesTag, src)
	hash, total, emitted := r.Uint(), r.Uint(), r.Uint()
	if err := r.Done(); err != nil {
		return err
	}
	switch {
	case total != uint64(v.emitted+len(v.Rows)):
		return position.Errorf(src, "the position is of %d rows, not %d", total, v.emitted+len(v.Rows))
	case hash != v.hash:
		return position.Errorf(src, "the position is of other rows or columns")
	case emitted > total:
		return position.Errorf(src, "row %d is past the last row (%d)", emitted, total)
	}
	if v.all == nil {
		v.all = v.Rows
	}
	v.Rows, v.emitted = v.all[emitted:], int(emitted)
	return nil
}

// Exhausted implements exec.Exhausted: every row was emitted.
func (v *ValuesSource) Exhausted() bool { return len(v.Rows) == 0 }

// hashRows computes, once, the hash of the columns and of every row, the
// emitted ones included.
func (v *ValuesSource) hashRows() {
	if v.hashed {
		return
	}
	h := fnv.New64a()
	var b []byte
	for i, name := range v.Names {
		b = append(b, name...)
		b = append(b, 0)
		if i < len(v.Types) {
			b = append(b, v.Types[i].String()...)
		}
		b = append(b, 0)
	}
	h.Write(b)
	rows := v.all
	if rows == nil {
		rows = v.Rows
	}
	for _, row := range rows {
		b = b[:0]
		for _, d := range row {
			if d.Null {
				b = append(b, 0)
				continue
			}
			b = append(b, 1)
			b = appendUint(b, uint64(d.I))
			b = appendUint(b, math.Float64bits(d.F))
			b = appendUint(b, uint64(d.D.HighBits()))
			b = appendUint(b, d.D.LowBits())
			b = appendUint(b, uint64(len(d.S)))
			b = append(b, d.S...)
		}
		h.Write(b)
	}
	v.hash, v.hashed = h.Sum64(), true
}

// appendUint appends x's 8 bytes.
func appendUint(b []byte, x uint64) []byte {
	for range 8 {
		b = append(b, byte(x))
		x >>= 8
	}
	return b
}
