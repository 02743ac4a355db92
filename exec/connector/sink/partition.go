package sink

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// NullPartition is the directory value of a NULL partition column:
// col=__NULL__. A string equal to it is written with its first underscore
// escaped (col=%5F_NULL__), so the two stay apart.
const NullPartition = "__NULL__"

// maxColumnName is the most characters a partition_by column name may
// have: sql.MaxIdentLen, the longest identifier a query may write.
const maxColumnName = 256

// parsePartitionBy splits the value of the partition_by option into its
// column names: comma-separated, blanks around them ignored. An empty
// list, an empty name, a name longer than an identifier may be or a name
// given twice (without regard to case) is an error.
func parsePartitionBy(v string) ([]string, error) {
	var cols []string
	for _, f := range strings.Split(v, ",") {
		name := strings.TrimSpace(f)
		if name == "" {
			return nil, fmt.Errorf("invalid value %s (want column names separated by commas)", quote(v))
		}
		if n := utf8.RuneCountInString(name); n > maxColumnName {
			return nil, fmt.Errorf("a column name has at most %d characters, found one of %d", maxColumnName, n)
		}
		for _, c := range cols {
			if strings.EqualFold(c, name) {
				return nil, fmt.Errorf("column %s is named twice", name)
			}
		}
		cols = append(cols, name)
	}
	return cols, nil
}

// partitionColumns returns the indexes in Names of the PartitionBy
// columns, in PartitionBy's order. A name that is no column of the query
// is an *OptionError naming the option and the column.
func (c *Config) partitionColumns() ([]int, error) {
	idx := make([]int, len(c.PartitionBy))
	for k, name := range c.PartitionBy {
		idx[k] = -1
		for j, col := range c.Names {
			if strings.EqualFold(col, name) {
				idx[k] = j
				break
			}
		}
		if idx[k] < 0 {
			return nil, c.optErr("partition_by", fmt.Sprintf("unknown column %s (the query's columns: %s)",
				name, strings.Join(c.Names, ", ")))
		}
	}
	return idx, nil
}

// escapePartition escapes a value (or a column name) for a directory name
// as Hive and Flink's filesystem connector do: the bytes below 0x20, DEL
// and " # % ' * / : = ? \ [ ] ^ { become %XX (upper-case hex); everything
// else, multi-byte UTF-8 included, stays. A string equal to NullPartition
// gets its first underscore escaped.
func escapePartition(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	if s == NullPartition {
		return append(dst, "%5F"+NullPartition[1:]...)
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b < 0x20 || b == 0x7f || strings.IndexByte(`"#%'*/:=?\[]^{`, b) >= 0 {
			dst = append(dst, '%', hex[b>>4], hex[b&0xf])
			continue
		}
		dst = append(dst, b)
	}
	return dst
}

// partitioned writes a file sink's rows into one file per partition,
// Hive-style: root/col1=v1/col2=v2/part-<instance>.<ext>. It keeps at most
// maxOpen files open, closing the least recently written one beyond that;
// a file closed that way is reopened for appending, one created by an
// earlier run of the query is truncated the first time this run writes
// it (and removed at Open if this run never does).
type partitioned struct {
	s       *Sink
	root    string   // the resolved Path: the partitions' root directory (set by openRoot)
	cols    []int    // the partition columns, as indexes of the row
	names   []string // their escaped names, as directory prefixes
	file    string   // the file name in each partition: part-<instance>.<ext>
	maxOpen int
	header  []byte // CSV: the header each new file starts with

	parts map[string]*partition // by key (see key)
	key   []byte                // scratch for a row's key
	dir   []byte                // scratch for a partition's directory
	out   []byte                // scratch for a partition's lines
	chunk []*partition          // the partitions with rows in the chunk being written
	open  int                   // how many files are open
	// head and tail are the most and least recently written open files.
	head, tail *partition
	free       []*bufio.Writer // the buffers of closed files, for reuse

	// single makes the writer write one file, the sink's path, as an
	// unpartitioned two-phase sink does.
	single bool
	// stage, when set, makes the writer two-phase (twophase.go): rows go
	// to each file's in-progress part, staged at every checkpoint.
	stage   *stager
	touched []*partition // the partitions written since the last staging
}

// partition is one partition's file.
type partition struct {
	path    string
	f       *os.File
	w       *bufio.Writer
	regular bool    // f is a regular file, which fsync applies to
	dirty   bool    // bytes were written to f since its last fsync
	created bool    // this run created (truncated) the file: reopen it to append
	rows    []int32 // the rows of the chunk being written that go here

	prev, next *partition // the list of open files, most recent first

	// Two-phase: the bytes written to the in-progress part since it was
	// last staged, the length of the file with the parts staged so far
	// (known once the file was first written in this run), and whether
	// the partition is in touched.
	pending          int64
	length           int64
	known, inTouched bool
}

// newPartitioned returns the partitioned writer of s, whose Config is
// valid and has PartitionBy.
func newPartitioned(s *Sink) (*partitioned, error) {
	cols, err := s.cfg.partitionColumns()
	if err != nil {
		return nil, err
	}
	p := &partitioned{s: s, cols: cols, maxOpen: s.cfg.MaxOpenFiles,
		parts: map[string]*partition{}}
	if p.maxOpen == 0 {
		p.maxOpen = DefaultMaxOpenFiles
	}
	for _, j := range cols {
		p.names = append(p.names, string(escapePartition(nil, s.cfg.Names[j]))+"=")
	}
	return p, nil
}

// extension returns the file extension of a format's partition files.
func extension(format string) string {
	if format == FormatJSON {
		return "jsonl"
	}
	return format
}

// openRoot prepares the root directory for the sink's instance: it
// creates it when missing and removes the files this instance wrote in an
// earlier run (the query is recomputed from its inputs' beginning, so its
// output is written again from the start), and the partition directories
// that leaves empty. Nothing else under the root is touched.
//
// A two-phase writer resuming from a checkpoint leaves the files as they
// are: the restore puts them back as the checkpoint had them. One that
// starts afresh removes this instance's parts too. A single file is
// created or truncated, and gets the header (in its first part).
func (p *partitioned) openRoot(instance int, header []byte, resuming bool) error {
	p.root = p.s.path
	p.file = "part-" + strconv.Itoa(instance) + "." + extension(p.s.cfg.Format)
	if p.single {
		p.root, p.file = filepath.Dir(p.s.path), filepath.Base(p.s.path)
	}
	p.header = header
	if p.stage != nil {
		p.stage.root = p.root
	}
	if resuming {
		return nil
	}
	if p.single {
		if err := p.removeParts(p.root); err != nil {
			return err
		}
		f, _, err := p.s.openFile("create", p.s.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
		if err != nil {
			return err
		}
		f.Close()
		pt := p.lookup(exec.Chunk{}, nil, 0)
		return p.ensureOpen(pt)
	}
	if err := os.MkdirAll(p.root, 0o755); err != nil {
		return p.s.pathErr("create", p.root, err)
	}
	return p.removeStale(p.root, 0, true)
}

// removeParts removes the in-progress and pending parts of this
// instance's file in dir.
func (p *partitioned) removeParts(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return p.s.pathErr("read", dir, err)
	}
	for _, e := range entries {
		if !e.IsDir() && isPart(e.Name(), p.file) {
			path := filepath.Join(dir, e.Name())
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return p.s.pathErr("remove", path, err)
			}
		}
	}
	return nil
}

// removeStale removes this instance's parts from the partition
// directories under dir, which is at depth depth (the root is 0), and,
// if files, its files.
func (p *partitioned) removeStale(dir string, depth int, files bool) error {
	if p.single {
		return p.removeParts(dir)
	}
	if depth == len(p.cols) {
		if err := p.removeParts(dir); err != nil {
			return err
		}
		if !files {
			return nil
		}
		path := filepath.Join(dir, p.file)
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return p.s.pathErr("remove", path, err)
		}
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return p.s.pathErr("read", dir, err)
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), p.names[depth]) {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if err := p.removeStale(sub, depth+1, files); err != nil {
			return err
		}
		if files {
			os.Remove(sub) // only succeeds when empty: other files stay
		}
	}
	return nil
}

// write writes the rows of c, whose columns the encoder has encoded, each
// to its partition's file: the rows are grouped by partition first, so
// each partition's file is written (and, if closed, opened) once per
// chunk, however its rows interleave with others'.
func (p *partitioned) write(c exec.Chunk, enc *encoder) error {
	n := c.NumRows()
	var cur *partition
	for i := 0; i < n; i++ {
		if cur == nil || !p.sameKey(enc, i) {
			cur = p.lookup(c, enc, i)
		}
		if len(cur.rows) == 0 {
			p.chunk = append(p.chunk, cur)
		}
		cur.rows = append(cur.rows, int32(i))
	}
	var err error
	for _, pt := range p.chunk {
		if err == nil {
			out := p.out[:0]
			for _, i := range pt.rows {
				out = enc.appendRow(out, c.Op(int(i)), int(i))
			}
			p.out = out
			err = p.writeTo(pt, out)
		}
		pt.rows = pt.rows[:0]
	}
	p.chunk = p.chunk[:0]
	return err
}

// sameKey reports whether row i (i > 0) has the partition values of row
// i-1, comparing their encoded text.
func (p *partitioned) sameKey(enc *encoder, i int) bool {
	for _, j := range p.cols {
		if !bytes.Equal(enc.value(j, i), enc.value(j, i-1)) {
			return false
		}
	}
	return true
}

// lookup returns the partition of row i, adding it when new. Its key is
// the encoded text of the partition values, each preceded by its length:
// the encoding tells every value (NULL too) from every other, so equal
// keys mean equal partitions.
func (p *partitioned) lookup(c exec.Chunk, enc *encoder, i int) *partition {
	key := p.key[:0]
	for _, j := range p.cols {
		v := enc.value(j, i)
		key = binary.AppendUvarint(key, uint64(len(v)))
		key = append(key, v...)
	}
	p.key = key
	if pt, ok := p.parts[string(key)]; ok {
		return pt
	}
	if p.single {
		pt := &partition{path: p.s.path}
		p.parts[string(key)] = pt
		return pt
	}
	dir := p.dir[:0]
	for k, j := range p.cols {
		if k > 0 {
			dir = append(dir, filepath.Separator)
		}
		dir = append(dir, p.names[k]...)
		d := types.DatumAt(c.Batch.Column(j), i, p.s.cfg.Types[j])
		if d.Null {
			dir = append(dir, NullPartition...)
		} else {
			dir = escapePartition(dir, types.Format(d, p.s.cfg.Types[j]))
		}
	}
	p.dir = dir
	pt := &partition{path: filepath.Join(p.root, string(dir), p.file)}
	p.parts[string(key)] = pt
	return pt
}

// writeTo writes b to pt's file, opening it first if needed.
func (p *partitioned) writeTo(pt *partition, b []byte) error {
	if err := p.ensureOpen(pt); err != nil {
		return err
	}
	if _, err := pt.w.Write(b); err != nil {
		return p.s.pathErr("write", pt.path, err)
	}
	pt.dirty = true
	p.wrote(pt, len(b))
	return nil
}

// wrote records, for a two-phase writer, that n bytes went to pt's
// in-progress part.
func (p *partitioned) wrote(pt *partition, n int) {
	if p.stage == nil || n == 0 {
		return
	}
	pt.pending += int64(n)
	if !pt.inTouched {
		pt.inTouched = true
		p.touched = append(p.touched, pt)
	}
}

// ensureOpen makes pt's file open and the most recently used. Opening a
// file beyond maxOpen first closes the least recently used one. A file
// first opened in this run is created or truncated, and gets the header;
// a file reopened is appended to.
func (p *partitioned) ensureOpen(pt *partition) error {
	if pt.f != nil {
		p.unlink(pt)
		p.pushFront(pt)
		return nil
	}
	for p.open >= p.maxOpen && p.tail != nil {
		if err := p.closeFile(p.tail); err != nil {
			return err
		}
	}
	// A partition directory may have been replaced by a link since the
	// root was checked: check the file's path too.
	if _, err := p.s.cfg.Root.Resolve(pt.path); err != nil {
		return &OptionError{Connector: p.s.cfg.Connector, Option: "path", Msg: err.Error(), Err: err}
	}
	flags := os.O_WRONLY | os.O_APPEND
	if !pt.created {
		if err := os.MkdirAll(filepath.Dir(pt.path), 0o755); err != nil {
			return p.s.pathErr("create", filepath.Dir(pt.path), err)
		}
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	path := pt.path
	if p.stage != nil {
		// Two-phase: the rows go to the in-progress part, and the file
		// keeps what was published.
		if !pt.known {
			info, err := os.Stat(pt.path)
			switch {
			case err == nil:
				pt.length = info.Size()
			case !errors.Is(err, fs.ErrNotExist):
				return p.s.pathErr("stat", pt.path, err)
			}
			pt.known = true
		}
		path = inProgressPath(pt.path)
	}
	f, regular, err := p.s.openFile("open", path, flags)
	if err != nil {
		return err
	}
	pt.f, pt.regular = f, regular
	if k := len(p.free); k > 0 {
		pt.w, p.free = p.free[k-1], p.free[:k-1]
		pt.w.Reset(f)
	} else {
		pt.w = bufio.NewWriterSize(f, bufferSize)
	}
	p.open++
	p.pushFront(pt)
	if !pt.created {
		pt.created = true
		if p.header != nil && pt.length == 0 && pt.pending == 0 {
			if _, err := pt.w.Write(p.header); err != nil {
				return p.s.pathErr("write", pt.path, err)
			}
			pt.dirty = true
			p.wrote(pt, len(p.header))
		}
	}
	return nil
}

// syncFile flushes pt's buffer and fsyncs its file when written since the
// last fsync.
func (p *partitioned) syncFile(pt *partition) error {
	if err := pt.w.Flush(); err != nil {
		return p.s.pathErr("write", pt.path, err)
	}
	if pt.dirty && pt.regular {
		if err := pt.f.Sync(); err != nil {
			return p.s.pathErr("sync", pt.path, err)
		}
	}
	pt.dirty = false
	return nil
}

// closeFile syncs and closes pt's file, keeping its buffer for reuse. The
// file is durable once closed, so sync need not reopen it.
func (p *partitioned) closeFile(pt *partition) error {
	err := p.syncFile(pt)
	if cerr := pt.f.Close(); cerr != nil && err == nil {
		err = p.s.pathErr("close", pt.path, cerr)
	}
	p.unlink(pt)
	p.open--
	p.free = append(p.free, pt.w)
	pt.f, pt.w = nil, nil
	return err
}

// writeOut writes what the open files' buffers hold, without fsync.
func (p *partitioned) writeOut() error {
	for pt := p.head; pt != nil; pt = pt.next {
		if err := pt.w.Flush(); err != nil {
			return p.s.pathErr("write", pt.path, err)
		}
	}
	return nil
}

// sync makes every row written so far durable: the open files are
// flushed and fsynced (the closed ones were when they were closed).
func (p *partitioned) sync() error {
	for pt := p.head; pt != nil; pt = pt.next {
		if err := p.syncFile(pt); err != nil {
			return err
		}
	}
	return nil
}

// close syncs and closes every open file, returning the first error.
func (p *partitioned) close(flush bool) error {
	var err error
	for p.head != nil {
		pt := p.head
		if flush {
			if e := p.closeFile(pt); e != nil && err == nil {
				err = e
			}
			continue
		}
		pt.f.Close()
		p.unlink(pt)
		p.open--
		pt.f, pt.w = nil, nil
	}
	return err
}

// pushFront puts pt, not in the list, at its front.
func (p *partitioned) pushFront(pt *partition) {
	pt.prev, pt.next = nil, p.head
	if p.head != nil {
		p.head.prev = pt
	}
	p.head = pt
	if p.tail == nil {
		p.tail = pt
	}
}

// unlink takes pt out of the list.
func (p *partitioned) unlink(pt *partition) {
	if pt.prev != nil {
		pt.prev.next = pt.next
	} else {
		p.head = pt.next
	}
	if pt.next != nil {
		pt.next.prev = pt.prev
	} else {
		p.tail = pt.prev
	}
	pt.prev, pt.next = nil, nil
}
