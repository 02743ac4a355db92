package file

import (
	"bytes"
	"io"
	"os"

	"github.com/eddysql/eddy/exec/connector"
)

// estimateChunk is how much of a file EstimateRows reads at each of
// estimateChunks places spread over it to learn how long its rows are.
const (
	estimateChunk  = 16 << 10
	estimateChunks = 4
)

// EstimateRows estimates the rows of a bounded file stream for the
// optimizer (catalog.SourceTraits.Rows): the file's size times the line
// breaks per byte of four 16 KiB samples spread over it (less a CSV
// header); a file that small is counted whole. It is a snapshot of the
// file when the stream is created or the engine opens, and 0 when the
// file cannot be read (the source reports that when it runs).
func (Connector) EstimateRows(spec connector.Spec, env connector.Env) float64 {
	cfg, err := FromOptions(spec.Options, spec.Columns, env.Root)
	if err != nil || cfg.Follow {
		return 0
	}
	path, err := cfg.Resolve()
	if err != nil {
		return 0
	}
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return 0
	}
	size := st.Size()
	var rows float64
	if size <= estimateChunk*estimateChunks {
		buf := make([]byte, size)
		if _, err := io.ReadFull(f, buf); err != nil {
			return 0
		}
		rows = float64(bytes.Count(buf, []byte{'\n'}))
		if buf[len(buf)-1] != '\n' {
			rows++ // the last line, without a line break
		}
	} else {
		buf := make([]byte, estimateChunk)
		breaks := 0
		for k := range int64(estimateChunks) {
			if _, err := f.ReadAt(buf, k*(size-estimateChunk)/(estimateChunks-1)); err != nil {
				return 0
			}
			breaks += bytes.Count(buf, []byte{'\n'})
		}
		rows = float64(size) * float64(max(breaks, 1)) / float64(estimateChunk*estimateChunks)
	}
	if cfg.Header {
		rows--
	}
	return max(rows, 0)
}
