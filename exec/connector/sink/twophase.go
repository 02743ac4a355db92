package sink

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/eddysql/eddy/exec"
)

// Exactly-once file sinks. A file sink whose query is checkpointed
// (Config.TwoPhase, and a job that takes checkpoints: Env.Checkpointing)
// writes in two phases, as Flink's two-phase commit sinks do. Between
// checkpoints, a file's rows go to a hidden in-progress part beside it,
// .<name>.inprogress. When a checkpoint's barrier reaches the sink
// (Snapshot), each part written since the last one is fsynced and renamed
// .<name>.<epoch>.pending, and the checkpoint records it: its file, the
// length the file has before it and its own length (the pre-commit). When
// the epoch has committed (Commit), the parts are published: appended to
// their files in epoch order, which are fsynced, and removed. A reader of
// the file thus sees only committed output.
//
// After a crash, the query resumes from its last committed checkpoint
// (Restore): the parts that checkpoint recorded and that were not yet
// published are published (a part is appended at the length recorded
// for it, so publishing twice writes it once), every file is cut back to
// the length the checkpoint recorded for it (bytes a later epoch published
// go), and the in-progress and pending parts of later epochs are removed.
// The rows after the checkpoint are then computed again from the sources'
// recorded positions: the files end up as an uninterrupted run writes
// them, row for row.
//
// At the end of a bounded input the sink publishes everything it has
// written at once, committed or not, as no later checkpoint would: should
// eddy crash before its next checkpoint, the restore cuts the files back
// and the same rows are written again.

// stagedPart is a part a checkpoint recorded: target's bytes [before,
// before+length) as of epoch.
type stagedPart struct {
	target         string // relative to the stager's root
	epoch          uint64
	before, length int64
}

// stager is a two-phase sink's record of its parts: what snapshots staged
// and commits published, and what its next snapshot must write.
type stager struct {
	root  string // the directory targets are relative to
	group int    // the key group the sink's entries are in

	mu      sync.Mutex   // guards staged and done: Commit runs on another goroutine
	publish sync.Mutex   // held while parts are published
	staged  []stagedPart // recorded by a snapshot, not yet published, by epoch
	done    []stagedPart // published since the last snapshot: their entries go
	fresh   []stagedPart // staged since the last snapshot: their entries are written
	lengths map[string]int64
}

// Entry keys: partKey + epoch (8 bytes, big-endian) + target for a
// staged part, its value the uvarints before and length; lengthKey +
// target for a file's committed length, a uvarint.
const (
	partKey   = 's'
	lengthKey = 'c'
)

func partEntry(p stagedPart) []byte {
	k := binary.BigEndian.AppendUint64([]byte{partKey}, p.epoch)
	return append(k, p.target...)
}

// inProgressPath and pendingPath name the parts of the file target.
func inProgressPath(target string) string {
	return filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".inprogress")
}

func pendingPath(target string, epoch uint64) string {
	return filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+"."+strconv.FormatUint(epoch, 10)+".pending")
}

// isPart reports whether name is an in-progress or pending part of file.
func isPart(name, file string) bool {
	rest, ok := strings.CutPrefix(name, "."+file+".")
	return ok && (rest == "inprogress" || strings.HasSuffix(rest, ".pending"))
}

// stage records that target's in-progress part, of length bytes, was
// renamed the pending part of epoch; the file had before bytes.
func (st *stager) stage(target string, epoch uint64, before, length int64) {
	rel, err := filepath.Rel(st.root, target)
	if err != nil {
		rel = target
	}
	p := stagedPart{target: rel, epoch: epoch, before: before, length: length}
	st.mu.Lock()
	st.staged = append(st.staged, p)
	st.mu.Unlock()
	st.fresh = append(st.fresh, p)
	if st.lengths == nil {
		st.lengths = map[string]int64{}
	}
	st.lengths[rel] = before + length
}

// write writes the entries that changed since the last snapshot: the
// parts staged and the files' lengths (puts), the parts published
// (deletes).
func (st *stager) write(w exec.StateWriter) error {
	st.mu.Lock()
	done := st.done
	st.done = nil
	st.mu.Unlock()
	for _, p := range done {
		if err := w.Delete(st.group, partEntry(p)); err != nil {
			return err
		}
	}
	var val []byte
	for _, p := range st.fresh {
		val = binary.AppendUvarint(binary.AppendUvarint(val[:0], uint64(p.before)), uint64(p.length))
		if err := w.Put(st.group, partEntry(p), val); err != nil {
			return err
		}
	}
	st.fresh = st.fresh[:0]
	for target, n := range st.lengths {
		val = binary.AppendUvarint(val[:0], uint64(n))
		if err := w.Put(st.group, append([]byte{lengthKey}, target...), val); err != nil {
			return err
		}
	}
	clear(st.lengths)
	return nil
}

// commit publishes the parts staged for epochs up to epoch (all of them
// when all is set), in order.
func (st *stager) commit(epoch uint64, all bool) error {
	st.publish.Lock()
	defer st.publish.Unlock()
	st.mu.Lock()
	n := 0
	for n < len(st.staged) && (all || st.staged[n].epoch <= epoch) {
		n++
	}
	parts := append([]stagedPart(nil), st.staged[:n]...)
	st.mu.Unlock()
	for i, p := range parts {
		if err := publishPart(filepath.Join(st.root, p.target), pendingPath(filepath.Join(st.root, p.target), p.epoch), p); err != nil {
			st.forget(parts[:i])
			return err
		}
	}
	st.forget(parts)
	return nil
}

// forget moves the first len(parts) staged parts, published, to done.
func (st *stager) forget(parts []stagedPart) {
	st.mu.Lock()
	st.staged = append(st.staged[:0], st.staged[len(parts):]...)
	st.done = append(st.done, parts...)
	st.mu.Unlock()
}

// errChanged is wrapped by the error of a file whose length is not what
// a checkpoint recorded: something other than the sink changed it.
var errChanged = errors.New("it was changed outside eddy since the checkpoint")

// publishPart appends the part at path (p's bytes of target) to target at
// offset p.before, fsyncs target and removes the part. A part already
// published (its file gone, target long enough) is left as it is.
func publishPart(target, path string, p stagedPart) error {
	part, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		info, serr := os.Stat(target)
		if serr == nil && info.Size() >= p.before+p.length {
			return nil
		}
		return fmt.Errorf("publishing checkpoint %d's part of %s: the part is gone and the file is short: %w", p.epoch, target, errChanged)
	}
	if err != nil {
		return err
	}
	defer part.Close()
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	err = appendAt(f, part, p)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("publishing checkpoint %d's part of %s: %w", p.epoch, target, err)
	}
	return os.Remove(path)
}

// appendAt writes part's p.length bytes into f at p.before, cutting f
// there first, and fsyncs f.
func appendAt(f, part *os.File, p stagedPart) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.Size() < p.before {
		return fmt.Errorf("it has %d bytes, fewer than the %d before the part: %w", info.Size(), p.before, errChanged)
	}
	if err := f.Truncate(p.before); err != nil {
		return err
	}
	if _, err := f.Seek(p.before, io.SeekStart); err != nil {
		return err
	}
	n, err := io.Copy(f, part)
	if err != nil {
		return err
	}
	if n != p.length {
		return fmt.Errorf("the part has %d bytes, the checkpoint recorded %d", n, p.length)
	}
	return f.Sync()
}

// restore reads the sink's entries of the last checkpoint: it publishes
// the parts that were not, cuts every file back to its recorded length,
// and returns the files' lengths.
func (st *stager) restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	var parts []stagedPart
	lengths := map[string]int64{}
	err := r.Scan(ctx, groups, func(_ int, key, value []byte) error {
		if len(key) == 0 {
			return errors.New("an empty entry key")
		}
		switch key[0] {
		case partKey:
			if len(key) < 10 {
				return fmt.Errorf("bad part entry %q", key)
			}
			before, n := binary.Uvarint(value)
			length, m := uvarintAt(value, n)
			if n <= 0 || m <= 0 || n+m != len(value) || before > 1<<62 || length > 1<<62 {
				return fmt.Errorf("bad part entry value for %q", key[9:])
			}
			parts = append(parts, stagedPart{target: string(key[9:]), epoch: binary.BigEndian.Uint64(key[1:9]),
				before: int64(before), length: int64(length)})
		case lengthKey:
			n, k := binary.Uvarint(value)
			if k <= 0 || k != len(value) || n > 1<<62 || len(key) < 2 {
				return fmt.Errorf("bad length entry for %q", key[1:])
			}
			lengths[string(key[1:])] = int64(n)
		default:
			return fmt.Errorf("unknown entry key %q", key)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].epoch < parts[j].epoch })
	for _, p := range parts {
		if !filepath.IsLocal(p.target) {
			return fmt.Errorf("bad part entry: %q is outside the sink's path", p.target)
		}
		target := filepath.Join(st.root, p.target)
		if err := publishPart(target, pendingPath(target, p.epoch), p); err != nil {
			return err
		}
	}
	st.done = append(st.done, parts...)
	for rel, n := range lengths {
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("bad length entry: %q is outside the sink's path", rel)
		}
		if err := cutBack(filepath.Join(st.root, rel), n); err != nil {
			return err
		}
	}
	return nil
}

// uvarintAt decodes the uvarint at b[i:], returning its length 0 or less
// when there is none.
func uvarintAt(b []byte, i int) (uint64, int) {
	if i <= 0 || i > len(b) {
		return 0, 0
	}
	return binary.Uvarint(b[i:])
}

// cutBack truncates target to n bytes, the length a checkpoint recorded.
func cutBack(target string, n int64) error {
	info, err := os.Stat(target)
	if err != nil {
		return fmt.Errorf("%s: %w (%w)", target, err, errChanged)
	}
	switch {
	case info.Size() < n:
		return fmt.Errorf("%s has %d bytes, fewer than the %d its checkpoint recorded: %w", target, info.Size(), n, errChanged)
	case info.Size() > n:
		if err := os.Truncate(target, n); err != nil {
			return err
		}
	}
	return nil
}
