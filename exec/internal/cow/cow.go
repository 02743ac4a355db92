package cow

import (
	"encoding/binary"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/internal/kvlog"
)

// Entries are the saved puts and deletions of a pending snapshot, in the
// order saved, each key prefixed by its key group in a kvlog.Log. The
// zero value is empty.
type Entries struct {
	log  kvlog.Log
	next int32 // the writes before it were written
	pre  [2]byte
}

// Put saves a put of key, valued value, in key group group.
func (e *Entries) Put(group int, key, value []byte) { e.add(group, key, value, false) }

// Delete saves a deletion of key in key group group.
func (e *Entries) Delete(group int, key []byte) { e.add(group, key, nil, true) }

// add saves a write. Keys and values are an operator's encodings of one
// row or group, far below kvlog.MaxLen; the state writer refuses what the
// store cannot hold when the entry is written.
func (e *Entries) add(group int, key, value []byte, del bool) {
	binary.BigEndian.PutUint16(e.pre[:], uint16(group))
	e.log.Append(e.pre[:], key, value, del)
}

// Len returns the number of entries saved since the last Reset.
func (e *Entries) Len() int { return e.log.Len() }

// Done reports whether every entry saved was written.
func (e *Entries) Done() bool { return int(e.next) >= e.log.Len() }

// Write writes at most n of the entries not written yet to w, in the
// order saved, and returns how many it wrote.
func (e *Entries) Write(w exec.StateWriter, n int) (int, error) {
	k := 0
	for ; k < n && int(e.next) < e.log.Len(); k++ {
		key := e.log.Key(e.next)
		g, key := int(binary.BigEndian.Uint16(key)), key[len(e.pre):]
		var err error
		if v, ok := e.log.Val(e.next); ok {
			err = w.Put(g, key, v)
		} else {
			err = w.Delete(g, key)
		}
		if err != nil {
			return k, err
		}
		e.next++
	}
	return k, nil
}

// Reset empties the entries for the next snapshot.
func (e *Entries) Reset() {
	e.log.Reset()
	e.next = 0
}

// Bytes estimates the memory the entries hold.
func (e *Entries) Bytes() int64 { return e.log.Bytes() }
