package sink

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// bidNames and bidTypes are a small row type for print tests.
var (
	bidNames = []string{"id", "channel", "date_time"}
	bidTypes = []types.T{types.BigIntT, types.VarcharT, types.TimestampT(3)}
)

func bidRows(t testing.TB) [][]types.Datum {
	return [][]types.Datum{
		{types.IntDatum(7), types.StringDatum("web"), ts(t, "2024-01-01 00:00:01")},
		{types.IntDatum(8), types.NullDatum, ts(t, "2024-01-01 00:00:02.5")},
	}
}

func TestPrintSink(t *testing.T) {
	alloc := newAlloc(t)
	ops := []exec.Op{exec.Insert, exec.UpdateBefore}
	tests := []struct {
		name   string
		cfg    Config
		ops    []exec.Op
		header bool
		want   string
	}{
		{"text append-only", Config{Format: FormatText, AppendOnly: true}, nil, false,
			lines("7 web 2024-01-01 00:00:01.000", "8 NULL 2024-01-01 00:00:02.500")},
		{"text updating", Config{Format: FormatText}, ops, false,
			lines("+I 7 web 2024-01-01 00:00:01.000", "-U 8 NULL 2024-01-01 00:00:02.500")},
		{"default format", Config{}, ops, false,
			lines("+I 7 web 2024-01-01 00:00:01.000", "-U 8 NULL 2024-01-01 00:00:02.500")},
		{"json updating", Config{Format: FormatJSON}, ops, false, lines(
			`{"op":"+I","id":7,"channel":"web","date_time":"2024-01-01 00:00:01.000"}`,
			`{"op":"-U","id":8,"channel":null,"date_time":"2024-01-01 00:00:02.500"}`)},
		{"csv header", Config{Format: FormatCSV, Header: true, AppendOnly: true}, nil, true, lines(
			"id,channel,date_time", "7,web,2024-01-01 00:00:01.000", "8,,2024-01-01 00:00:02.500")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			cfg := tt.cfg
			cfg.Connector, cfg.Names, cfg.Types, cfg.Stdout = ConnectorPrint, bidNames, bidTypes, &out
			s := mustNew(t, cfg)
			open(t, s)
			if tt.header && out.String() != "id,channel,date_time\n" {
				t.Errorf("after Open: %q, want the header", out.String())
			}
			process(t, s, makeChunk(t, alloc, bidNames, bidTypes, bidRows(t), tt.ops))
			control(t, s, exec.Flush)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("printed\n%s\nwant\n%s", out.String(), tt.want)
			}
		})
	}
}

// TestPrintSinkFlushesBufferedStdout checks that a Stdout with a buffer of
// its own is flushed on the controls that make output durable.
func TestPrintSinkFlushesBufferedStdout(t *testing.T) {
	alloc := newAlloc(t)
	for _, k := range []exec.ControlKind{exec.Flush, exec.Barrier, exec.EndOfInput} {
		var out strings.Builder
		w := bufio.NewWriter(&out)
		s := mustNew(t, Config{Connector: ConnectorPrint, AppendOnly: true, Names: bidNames, Types: bidTypes, Stdout: w})
		open(t, s)
		process(t, s, makeChunk(t, alloc, bidNames, bidTypes, bidRows(t)[:1], nil))
		if out.Len() != 0 {
			t.Fatalf("the buffered writer was flushed early")
		}
		control(t, s, k)
		if got := out.String(); got != "7 web 2024-01-01 00:00:01.000\n" {
			t.Errorf("after %v: %q", exec.Control{Kind: k}, got)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// unsafeWriter records what is written without any locking of its own, so
// the race detector reports writes that the sinks do not serialize.
type unsafeWriter struct {
	b      []byte
	writes int
}

func (w *unsafeWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	w.writes++
	return len(p), nil
}

func TestPrintSinksShareStdout(t *testing.T) {
	const sinks, chunks, rowsPer = 8, 40, 25
	alloc := newAlloc(t)
	var w unsafeWriter
	want := map[string]int{}
	var wg sync.WaitGroup
	for k := range sinks {
		// Each sink prints its own rows; a line of sink k is "k s<k> <i>".
		rows := make([][]types.Datum, rowsPer)
		for i := range rows {
			rows[i] = []types.Datum{types.IntDatum(int64(k)), types.StringDatum(fmt.Sprintf("s%d", k)), types.IntDatum(int64(i))}
			want[fmt.Sprintf("%d s%d %d", k, k, i)] = chunks
		}
		ts := []types.T{types.BigIntT, types.VarcharT, types.BigIntT}
		names := []string{"k", "name", "i"}
		c := makeChunk(t, alloc, names, ts, rows, nil)
		s := mustNew(t, Config{Connector: ConnectorPrint, AppendOnly: true, Names: names, Types: ts, Stdout: &w})
		open(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range chunks {
				if err := s.Process(context.Background(), 0, c, nil); err != nil {
					t.Error(err)
					return
				}
			}
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if w.writes != sinks*chunks {
		t.Errorf("%d writes, want one per chunk (%d)", w.writes, sinks*chunks)
	}
	got := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(string(w.b), "\n"), "\n") {
		got[line]++
	}
	if len(got) != len(want) {
		t.Fatalf("%d distinct lines, want %d", len(got), len(want))
	}
	for line, n := range want {
		if got[line] != n {
			t.Errorf("line %q printed %d times, want %d", line, got[line], n)
		}
	}
}

func TestBlackholeCounts(t *testing.T) {
	alloc := newAlloc(t)
	s := mustNew(t, Config{Connector: ConnectorBlackhole, Names: allNames, Types: allTypes})
	open(t, s)
	c := makeChunk(t, alloc, allNames, allTypes, allRows(t), allOps)
	var seen atomic.Int64
	done := make(chan struct{})
	go func() { // Rows is read while the sink runs, as a benchmark does
		defer close(done)
		for seen.Load() < 400 {
			seen.Store(s.Rows())
		}
	}()
	for range 100 {
		process(t, s, c)
		control(t, s, exec.Barrier)
	}
	<-done
	control(t, s, exec.EndOfInput)
	closeWrote(t, s, 400)
}

// TestSinkProcessZeroAllocs checks that writing a chunk allocates nothing
// once the sink's buffers have grown.
func TestSinkProcessZeroAllocs(t *testing.T) {
	c := makeChunk(t, newAlloc(t), allNames, allTypes, allRows(t), allOps)
	cfgs := []Config{
		{Connector: ConnectorPrint, Format: FormatJSON, Stdout: io.Discard},
		{Connector: ConnectorPrint, Format: FormatText, Stdout: io.Discard},
		{Connector: ConnectorBlackhole},
		fileConfig(t, "out.csv"),
	}
	for _, cfg := range cfgs {
		cfg.Names, cfg.Types = allNames, allTypes
		s := mustNew(t, cfg)
		open(t, s)
		process(t, s, c)
		allocs := testing.AllocsPerRun(50, func() { process(t, s, c) })
		if allocs != 0 {
			t.Errorf("%s %s: %v allocations per chunk, want 0", cfg.Connector, cfg.Format, allocs)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
