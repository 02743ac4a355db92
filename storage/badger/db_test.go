package badger

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/storagetest"
)

// The KV must be usable as the catalog's store.
var _ catalog.Store = storage.KV(nil)

func TestSecondOpenFails(t *testing.T) {
	dir := t.TempDir()
	db := openDir(t, dir)
	done := make(chan error, 1)
	go func() {
		db2, err := Open(dir, Options{})
		if err == nil {
			db2.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, storage.ErrInUse) ||
			!strings.Contains(err.Error(), "data directory "+dir+" is in use by another eddy process") {
			t.Fatalf("second Open = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("second Open hangs")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openDir(t, dir) // free again after Close
	db.Close()
}

func TestCloseStopsGoroutines(t *testing.T) {
	// Open and close once first so that any process-wide goroutines the
	// libraries start lazily are already running.
	openDir(t, "").Close()
	before := runtime.NumGoroutine()
	for _, dir := range []string{t.TempDir(), ""} {
		db, err := Open(dir, Options{ValueLogGCInterval: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		b := storagetest.EventBatch(memory.DefaultAllocator, 0, 100)
		if _, err := db.Log().Append(1, b); err != nil {
			t.Fatal(err)
		}
		b.Release()
		s, err := db.State("job")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // let the collector run
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

func TestLoggerIsQuiet(t *testing.T) {
	var out bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	dir := t.TempDir()
	for range 2 { // the second open replays and reports more
		db, err := Open(dir, Options{Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.KV().Put([]byte("k"), []byte("v")); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	if out.Len() > 0 {
		t.Fatalf("Badger logged during a normal open and close:\n%s", out.String())
	}
}
