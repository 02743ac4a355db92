package nexmark

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
)

// message is one line a child process writes: a progress report, or its
// last line, the figures or the error of its query.
type message struct {
	Progress *Progress `json:"progress,omitempty"`
	Result   *Figures  `json:"result,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// ServeChild is the child's side of Run: it runs q with RunOne and writes
// to w, one JSON object per line, progress reports while q runs and then
// its figures or its error. It returns q's error (after reporting it on w)
// or the error of writing to w.
func ServeChild(ctx context.Context, c Config, q Query, w io.Writer) error {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	send := func(m message) error {
		mu.Lock()
		defer mu.Unlock()
		return enc.Encode(m)
	}
	fig, err := RunOne(ctx, c, q, func(p Progress) {
		_ = send(message{Progress: &p}) // a lost progress line only stalls the display
	})
	if err != nil {
		if werr := send(message{Error: err.Error()}); werr != nil {
			return fmt.Errorf("reporting %s: %w", q.Name, werr)
		}
		return err
	}
	if err := send(message{Result: &fig}); err != nil {
		return fmt.Errorf("reporting %s: %w", q.Name, err)
	}
	return nil
}

// stderrTail is how much of a child's standard error an error quotes: the
// end of a Go panic's trace or a crash message.
const stderrTail = 2048

// runChild runs cmd, a child process that reports with ServeChild, relays
// its progress to onProgress (may be nil), and returns the figures or the
// error it reported. A child that ends without reporting (it crashed, or
// was killed) is an error quoting the end of its standard error.
func runChild(cmd *exec.Cmd, onProgress func(Progress)) (Figures, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Figures{}, fmt.Errorf("starting the child process: %w", err)
	}
	var stderr tailBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return Figures{}, fmt.Errorf("starting the child process: %w", err)
	}
	var (
		result  *Figures
		qerr    string
		strange []string // lines that are not messages
	)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			if len(strange) < 3 {
				strange = append(strange, sc.Text())
			}
			continue
		}
		switch {
		case m.Progress != nil:
			if onProgress != nil {
				onProgress(*m.Progress)
			}
		case m.Result != nil:
			result = m.Result
		case m.Error != "":
			qerr = m.Error
		}
	}
	scanErr := sc.Err()
	_, _ = io.Copy(io.Discard, stdout) // let the child finish writing after a scan error
	waitErr := cmd.Wait()
	switch {
	case qerr != "":
		return Figures{}, errors.New(qerr)
	case result != nil && waitErr == nil:
		return *result, nil
	}
	why := "it reported nothing"
	switch {
	case waitErr != nil:
		why = waitErr.Error()
	case scanErr != nil:
		why = "reading its output: " + scanErr.Error()
	}
	msg := fmt.Sprintf("the child process failed: %s", why)
	if len(strange) > 0 {
		msg += "; it wrote " + strings.Join(strange, " | ")
	}
	if tail := strings.TrimSpace(stderr.String()); tail != "" {
		msg += "; its stderr ends with: " + tail
	}
	return Figures{}, errors.New(msg)
}

// tailBuffer keeps the last stderrTail bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write keeps the end of p, dropping what falls out of the tail.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if extra := t.buf.Len() - stderrTail; extra > 0 {
		t.buf.Next(extra)
	}
	return len(p), nil
}

// String returns the tail kept.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}
