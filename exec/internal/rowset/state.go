package rowset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
)

// Incremental snapshots of a Set: Changes reports the rows changed since
// its last call (a change costs the rows a chunk touched, not the rows
// held), and Load puts a snapshotted row back. A row's snapshot value is
// its count and its values (EncodeRow).

// Changes calls fn once for each row changed since the last call of
// Changes, in the order they first changed: with its current count and values, or
// with count 0 and nil values when the row is gone. key is the row's key
// in the set. The first call (before any
// Load) reports every row held, and starts the tracking of changes: a set
// never snapshotted keeps no list. Changes then forgets the changes; if fn
// fails they are kept, and the next call reports them again.
func (s *Set) Changes(fn func(key string, count int64, vals []types.Datum) error) error {
	if !s.track {
		for k, r := range s.rows {
			if err := fn(k, r.count, r.vals); err != nil {
				return err
			}
		}
		s.track = true
		return nil
	}
	for _, k := range s.changed {
		var err error
		if r, ok := s.rows[k]; ok {
			err = fn(k, r.count, r.vals)
		} else {
			err = fn(k, 0, nil)
		}
		if err != nil {
			return err
		}
	}
	for _, k := range s.changed {
		if r, ok := s.rows[k]; ok {
			r.changed = false
		}
	}
	s.changed = s.changed[:0]
	clear(s.gone)
	return nil
}

// Load puts a row back from a snapshot: key, as Changes reported it, held
// count times with values vals. It is not a change; the set tracks its
// changes from then on (the snapshot holds what it was loaded from).
func (s *Set) Load(key string, count int64, vals []types.Datum) error {
	s.track = true
	if count <= 0 {
		return fmt.Errorf("rowset: a snapshotted row held %d times", count)
	}
	if len(vals) != len(s.types) {
		return fmt.Errorf("rowset: a snapshotted row of %d values, want %d", len(vals), len(s.types))
	}
	if old, ok := s.rows[key]; ok {
		s.bytes -= rowOverhead + int64(len(key)) + datumsBytes(old.vals)
	}
	s.rows[key] = &row{vals: vals, count: count}
	s.bytes += rowOverhead + int64(len(key)) + datumsBytes(vals)
	return nil
}

// EncodeRow appends a row's count and values, of types ts, to buf.
func EncodeRow(buf []byte, ts []types.T, count int64, vals []types.Datum) []byte {
	buf = binary.AppendUvarint(buf, uint64(count))
	for i, t := range ts {
		d := vals[i]
		if d.Null {
			buf = append(buf, 0)
			continue
		}
		buf = append(buf, 1)
		switch t.Physical() {
		case types.PhysFloat64:
			buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(d.F))
		case types.PhysDecimal:
			buf = binary.BigEndian.AppendUint64(buf, uint64(d.D.HighBits()))
			buf = binary.BigEndian.AppendUint64(buf, d.D.LowBits())
		case types.PhysString:
			buf = binary.AppendUvarint(buf, uint64(len(d.S)))
			buf = append(buf, d.S...)
		default: // BOOLEAN, integers, DATE, TIMESTAMP, INTERVAL
			buf = binary.AppendVarint(buf, d.I)
		}
	}
	return buf
}

// errDamaged is the error of an encoded row that does not decode.
var errDamaged = errors.New("rowset: damaged row")

// DecodeRow reads a row of types ts that EncodeRow wrote.
func DecodeRow(b []byte, ts []types.T) (count int64, vals []types.Datum, err error) {
	c, n := binary.Uvarint(b)
	if n <= 0 || c == 0 || c > math.MaxInt64 {
		return 0, nil, errDamaged
	}
	b = b[n:]
	vals = make([]types.Datum, len(ts))
	for i, t := range ts {
		if len(b) == 0 {
			return 0, nil, errDamaged
		}
		tag := b[0]
		b = b[1:]
		switch {
		case tag == 0:
			vals[i] = types.NullDatum
			continue
		case tag != 1:
			return 0, nil, errDamaged
		}
		switch t.Physical() {
		case types.PhysFloat64:
			if len(b) < 8 {
				return 0, nil, errDamaged
			}
			vals[i].F = math.Float64frombits(binary.BigEndian.Uint64(b))
			b = b[8:]
		case types.PhysDecimal:
			if len(b) < 16 {
				return 0, nil, errDamaged
			}
			vals[i].D = decimal128.New(int64(binary.BigEndian.Uint64(b)), binary.BigEndian.Uint64(b[8:]))
			b = b[16:]
		case types.PhysString:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return 0, nil, errDamaged
			}
			vals[i].S = string(b[n : n+int(l)])
			b = b[n+int(l):]
		default:
			v, n := binary.Varint(b)
			if n <= 0 {
				return 0, nil, errDamaged
			}
			vals[i].I = v
			b = b[n:]
		}
	}
	if len(b) != 0 {
		return 0, nil, errDamaged
	}
	return int64(c), vals, nil
}
