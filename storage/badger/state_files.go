package badger

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/eddysql/eddy/storage/internal/runs"
)

// Run files. On disk, the blocks of a job's runs are kept in files of
// their own (runs.FileWriter's format), one per run, under
// <data dir>/runs/<job dir>/<run id>.run, rather than as values in Badger:
// a checkpoint then writes its run with a few large write calls from one
// block of memory, where Badger copies each block into its value log
// through a memory map (the difference is a factor of five or more for a
// checkpoint of hundreds of megabytes), and a restore reads blocks with
// plain reads. The run's index and the manifests stay in Badger, so a
// commit is still one Badger transaction: the file is written and synced,
// its directory entry too, before the manifest that names it.
//
// A file no manifest names (a commit's that a crash interrupted, a run
// compaction replaced) is deleted as Badger keys of runs are: at once
// when the store knows, or when the job's state is opened next. An
// in-memory database keeps blocks in Badger, as the layout before run
// files did everywhere; a manifest says, per run, where its blocks are.

// runsDir is the directory of run files within a data directory.
const runsDir = "runs"

// jobDirFile names the file in a job's run directory that holds the job's
// name (the directory's name is a hash of it).
const jobDirFile = "JOB"

// runFiles are the run files of one job, and those open for reading.
type runFiles struct {
	dir string // the job's run directory

	mu   sync.Mutex // guards the fields below
	made bool       // dir exists
	open map[uint64]*openRun
}

// openRun is a run file open for reading, kept open between reads. refs
// counts the reads using it; once its run is removed, the last of them
// closes it.
type openRun struct {
	f       *runs.File
	refs    int
	removed bool
}

// jobRunDir returns the run directory of job in the data directory dir:
// named by a hash of the job's name, which may hold any character.
func jobRunDir(dir, job string) string {
	sum := sha256.Sum256([]byte(job))
	return filepath.Join(dir, runsDir, hex.EncodeToString(sum[:16]))
}

func newRunFiles(dir, job string) *runFiles {
	return &runFiles{dir: jobRunDir(dir, job), open: map[uint64]*openRun{}}
}

// path returns the path of run id's file.
func (r *runFiles) path(id uint64) string {
	return filepath.Join(r.dir, fmt.Sprintf("%016x.run", id))
}

// ensureDir creates the job's run directory (and runs/) durably, the
// first time, with the file naming the job.
func (r *runFiles) ensureDir(job string) error {
	r.mu.Lock()
	made := r.made
	r.mu.Unlock()
	if made {
		return nil
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return fmt.Errorf("storage: creating the run directory of job %q: %w", job, err)
	}
	name := filepath.Join(r.dir, jobDirFile)
	if _, err := os.Stat(name); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(name, []byte(job), 0o644); err != nil {
			return fmt.Errorf("storage: creating the run directory of job %q: %w", job, err)
		}
	}
	for _, d := range []string{r.dir, filepath.Dir(r.dir), filepath.Dir(filepath.Dir(r.dir))} {
		if err := syncDir(d); err != nil {
			return fmt.Errorf("storage: syncing directory %s: %w", d, err)
		}
	}
	r.mu.Lock()
	r.made = true
	r.mu.Unlock()
	return nil
}

// write writes run id from the entries feed adds (in key order) into its
// file, synced with its directory entry, and returns its index. A run
// with no entries gets no file.
func (r *runFiles) write(job string, salt uint32, id uint64, feed func(add func(k, v []byte, del bool) error) error) (*runs.Index, error) {
	if err := r.ensureDir(job); err != nil {
		return nil, err
	}
	fw, err := runs.CreateFile(r.path(id))
	if err != nil {
		return nil, err
	}
	bl := runs.NewBuilder(salt, id, fw.WriteBlock)
	bl.ReuseBlocks()
	idx, err := func() (*runs.Index, error) {
		if err := feed(bl.Add); err != nil {
			return nil, err
		}
		return bl.Finish()
	}()
	if err != nil || idx.Entries == 0 {
		fw.Abort()
		return idx, err
	}
	if err := fw.Finish(); err != nil {
		os.Remove(r.path(id))
		return nil, err
	}
	if err := syncDir(r.dir); err != nil {
		return nil, fmt.Errorf("storage: syncing directory %s: %w", r.dir, err)
	}
	return idx, nil
}

// acquire returns run id's file open for reading, to be released.
func (r *runFiles) acquire(id uint64) (*openRun, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.open[id]
	if o == nil {
		f, err := runs.OpenFile(r.path(id), id)
		if err != nil {
			return nil, err
		}
		o = &openRun{f: f}
		r.open[id] = o
	}
	o.refs++
	return o, nil
}

// release ends a read that acquire began.
func (r *runFiles) release(o *openRun) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o.refs--; o.refs == 0 && o.removed {
		o.f.Close()
	}
}

// remove deletes the files of the runs ids (those that have one). A file
// being read stays open until its readers release it.
func (r *runFiles) remove(ids []uint64) error {
	var first error
	for _, id := range ids {
		r.mu.Lock()
		if o := r.open[id]; o != nil {
			delete(r.open, id)
			if o.removed = true; o.refs == 0 {
				o.f.Close()
			}
		}
		r.mu.Unlock()
		if err := os.Remove(r.path(id)); err != nil && !errors.Is(err, os.ErrNotExist) && first == nil {
			first = fmt.Errorf("storage: deleting run file: %w", err)
		}
	}
	return first
}

// list returns the ids of the runs that have a file.
func (r *runFiles) list() ([]uint64, error) {
	ents, err := os.ReadDir(r.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("storage: reading run directory: %w", err)
	}
	var ids []uint64
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".run")
		if !ok {
			continue
		}
		if id, err := strconv.ParseUint(name, 16, 64); err == nil {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// close closes the files open for reading. The store is closed: no read
// is in flight.
func (r *runFiles) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, o := range r.open {
		o.f.Close()
		delete(r.open, id)
	}
}
