package runs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/bits"

	"github.com/eddysql/eddy/storage"
)

// BlockSize is the size a block is cut at: the first entry that takes a
// block past it ends the block (so an entry larger than BlockSize gets a
// block of its own).
const BlockSize = 128 << 10

// A block is a sequence of entries, each a flags byte (flagDelete for a
// deletion), the length of the prefix the key shares with the previous
// key of the block, the length and bytes of the rest of the key and, for
// a put, the length and bytes of the value (lengths as uvarints); then the
// CRC-32C, little-endian, of the owner's salt, the run's id and the
// block's number (4, 8 and 4 bytes, big-endian) followed by the entries,
// so a block found under another owner, run or position is detected as
// damage. The salt names the runs' owner (a hash of a job's name), since
// run ids are only unique within it.
const flagDelete = 1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Salt returns the salt of an owner's runs, from its name.
func Salt(owner string) uint32 { return crc32.Checksum([]byte(owner), castagnoli) }

// seal returns the checksum of body as block no of run id of the owner
// salt names (no is indexSeal for the run's index).
func seal(salt uint32, id uint64, no uint32, body []byte) uint32 {
	var head [16]byte
	binary.BigEndian.PutUint32(head[:4], salt)
	binary.BigEndian.PutUint64(head[4:12], id)
	binary.BigEndian.PutUint32(head[12:], no)
	return crc32.Update(crc32.Checksum(head[:], castagnoli), castagnoli, body)
}

// indexSeal is the block number an index is sealed under.
const indexSeal = ^uint32(0)

// Builder builds a run from entries added in strictly increasing key
// order. Each block, once full, goes to the emit function given to
// NewBuilder, which owns it from then on (unless ReuseBlocks says
// otherwise).
type Builder struct {
	reuse   bool // emit keeps no block: the next is built in its memory
	salt    uint32
	id      uint64
	emit    func(no uint32, block []byte) error
	cur     []byte
	n       int // entries in cur
	index   Index
	lastKey []byte
	err     error
}

// NewBuilder returns a builder of run id of the owner salt names, which
// hands each finished block to emit.
func NewBuilder(salt uint32, id uint64, emit func(no uint32, block []byte) error) *Builder {
	return &Builder{salt: salt, id: id, emit: emit}
}

// ReuseBlocks tells the builder that emit keeps no block once it
// returns (it writes the block out), so the next block is built in the
// same memory.
func (b *Builder) ReuseBlocks() { b.reuse = true }

// Add appends an entry: key set to val, or deleted when del is set. Keys
// must ascend strictly.
func (b *Builder) Add(key, val []byte, del bool) error {
	if b.err != nil {
		return b.err
	}
	// The prefix key shares with the last key, and the first byte after
	// it, say both whether key comes after it and how much of it the
	// block's entry leaves out.
	shared := commonPrefix(b.lastKey, key)
	if b.index.Entries > 0 && (shared == len(key) || shared < len(b.lastKey) && key[shared] < b.lastKey[shared]) {
		b.err = fmt.Errorf("runs: key %q added after %q", key, b.lastKey)
		return b.err
	}
	if b.n == 0 {
		b.index.First = append(b.index.First, bytes.Clone(key))
		b.index.Counts = append(b.index.Counts, 0)
		if b.cur == nil {
			b.cur = make([]byte, 0, BlockSize+BlockSize/8)
		}
		shared = 0 // a block's first key is whole
	}
	var flags byte
	if del {
		flags = flagDelete
	}
	b.cur = append(b.cur, flags)
	b.cur = binary.AppendUvarint(b.cur, uint64(shared))
	b.cur = binary.AppendUvarint(b.cur, uint64(len(key)-shared))
	b.cur = append(b.cur, key[shared:]...)
	size := int64(len(key))
	if !del {
		b.cur = binary.AppendUvarint(b.cur, uint64(len(val)))
		b.cur = append(b.cur, val...)
		size += int64(len(val))
	}
	b.lastKey = append(b.lastKey[:0], key...)
	b.n++
	b.index.Counts[len(b.index.Counts)-1]++
	b.index.Entries++
	b.index.Bytes += size
	if len(b.cur) >= BlockSize {
		b.err = b.flush()
	}
	return b.err
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// flush seals the current block and hands it to emit.
func (b *Builder) flush() error {
	if b.n == 0 {
		return nil
	}
	no := uint32(len(b.index.First) - 1)
	block := binary.LittleEndian.AppendUint32(b.cur, seal(b.salt, b.id, no, b.cur))
	b.cur, b.n = nil, 0
	err := b.emit(no, block)
	if b.reuse {
		b.cur = block[:0]
	}
	return err
}

// Finish emits the last block and returns the run's index.
func (b *Builder) Finish() (*Index, error) {
	if b.err != nil {
		return nil, b.err
	}
	if err := b.flush(); err != nil {
		b.err = err
		return nil, err
	}
	b.err = errors.New("runs: builder finished")
	return &b.index, nil
}

// DecodeBlock checks block no of run id of the owner salt names and calls
// fn for each of its entries in order. key is valid only until fn
// returns; val aliases block. An error from fn is returned as is.
func DecodeBlock(salt uint32, id uint64, no uint32, block []byte, fn func(key, val []byte, del bool) error) error {
	if len(block) < crc32.Size {
		return damaged(id, no, "it is shorter than its checksum")
	}
	body := block[:len(block)-crc32.Size]
	if want := binary.LittleEndian.Uint32(block[len(body):]); seal(salt, id, no, body) != want {
		return damaged(id, no, "it fails its checksum")
	}
	var key []byte
	for len(body) > 0 {
		flags := body[0]
		body = body[1:]
		shared, n1 := binary.Uvarint(body)
		if n1 <= 0 || shared > uint64(len(key)) || flags&^flagDelete != 0 {
			return damaged(id, no, "an entry's header is malformed")
		}
		body = body[n1:]
		rest, ok := take(&body)
		if !ok {
			return damaged(id, no, "an entry's key is malformed")
		}
		key = append(key[:shared], rest...)
		var val []byte
		del := flags&flagDelete != 0
		if !del {
			if val, ok = take(&body); !ok {
				return damaged(id, no, "an entry's value is malformed")
			}
		}
		if err := fn(key, val, del); err != nil {
			return err
		}
	}
	return nil
}

// take cuts a uvarint length and that many bytes off the front of *b.
func take(b *[]byte) ([]byte, bool) {
	n, k := binary.Uvarint(*b)
	if k <= 0 || n > uint64(len(*b)-k) {
		return nil, false
	}
	v := (*b)[k : k+int(n) : k+int(n)]
	*b = (*b)[k+int(n):]
	return v, true
}

func damaged(id uint64, no uint32, what string) error {
	if no == indexSeal {
		return fmt.Errorf("%w: the index of run %d: %s", storage.ErrCorrupt, id, what)
	}
	return fmt.Errorf("%w: block %d of run %d: %s", storage.ErrCorrupt, no, id, what)
}
