package badger

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/storagetest"
)

// killWriterEnv names the data directory TestKilledWriterChild writes to.
const killWriterEnv = "EDDY_TEST_KILLED_WRITER_DIR"

// TestKilledWriterChild is the process TestKilledWriter kills: it writes
// log entries, catalog entries and state to the directory in its
// environment as fast as it can, printing the sequence number of each log
// entry once Append has returned, until it is killed.
func TestKilledWriterChild(t *testing.T) {
	dir := os.Getenv(killWriterEnv)
	if dir == "" {
		t.Skip("run by TestKilledWriter")
	}
	db, err := Open(dir, Options{ValueLogGCInterval: -1})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	s, err := db.State("job")
	must(t, err)
	epoch, err := s.Recover(context.Background())
	must(t, err)
	tbl, err := s.Table("t", storage.TableOptions{})
	must(t, err)
	for i := 0; ; i++ {
		rows := 10
		if i%3 == 0 {
			rows = 3000 // past the value threshold: the value log
		}
		b := storagetest.EventBatch(memory.DefaultAllocator, i, rows)
		seq, err := db.Log().Append(1, b)
		b.Release()
		must(t, err)
		fmt.Println(seq)
		must(t, db.KV().Put(fmt.Appendf(nil, "catalog/k%d", i%50), bytes.Repeat([]byte{byte(i)}, i%200)))
		must(t, tbl.Put(fmt.Appendf(nil, "k%d", i%20), bytes.Repeat([]byte{byte(i)}, (i%4)*30<<10)))
		epoch++
		must(t, s.Commit(context.Background(), epoch))
	}
}

// TestKilledWriter kills a process in the middle of writing, several
// times over one directory, and checks that each time the directory opens
// (what a killed process leaves is not damage) with every log entry whose
// Append returned.
func TestKilledWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	acked := -1
	for round := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterChild$")
		cmd.Env = append(os.Environ(), killWriterEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		deadline := time.After(time.Duration(150+rng.IntN(300)) * time.Millisecond)
	read:
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("round %d: the writer stopped", round)
				}
				seq, err := strconv.Atoi(line)
				if err != nil {
					t.Fatalf("round %d: the writer says %q", round, line)
				}
				acked = seq
			case <-deadline:
				break read
			}
		}
		must(t, cmd.Process.Kill())
		for range lines {
		}
		cmd.Wait()

		db, err := Open(dir, Options{ValueLogGCInterval: -1})
		if err != nil {
			t.Fatalf("round %d: opening what the killed writer left: %v", round, err)
		}
		n := 0
		_, err = db.Log().Read(context.Background(), 1, 0, math.MaxUint64, storagetest.EventSchema, memory.DefaultAllocator,
			func(seq uint64, b arrow.RecordBatch) error {
				n++
				return nil
			})
		must(t, err)
		if n <= acked {
			t.Fatalf("round %d: %d log entries, but %d were acknowledged", round, n, acked+1)
		}
		s, err := db.State("job")
		must(t, err)
		if _, err := s.Recover(context.Background()); err != nil {
			t.Fatalf("round %d: state: %v", round, err)
		}
		must(t, s.Close())
		must(t, db.Close())
		t.Logf("round %d: %d entries, %d acknowledged", round, n, acked+1)
	}
}
