package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
)

// TestPushQueryProgress checks that a push query's stream reports the
// watermark its rows have passed, and none before the stream has one.
func TestPushQueryProgress(t *testing.T) {
	e := openEngine(t, Config{Parallelism: 1})
	t.Cleanup(func() { e.Close() })
	s := e.NewSession(SessionOptions{Interactive: true})
	run(t, s, "CREATE STREAM bid (a BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);")
	res, err := execOne(t, s, "SELECT a FROM bid EMIT CHANGES;")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Stream.Close()
	if p, ok := res.Stream.Progress(); !ok || p.HasWatermark {
		t.Fatalf("progress before any row: %+v, %v", p, ok)
	}
	run(t, e.NewSession(SessionOptions{}), "INSERT INTO bid VALUES (1, '2024-01-01 00:00:05'), (2, '2024-01-01 00:00:09');")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := res.Stream.Next(ctx); err != nil {
		t.Fatal(err)
	}
	want, _ := types.ParseTimestamp("2024-01-01 00:00:08")
	for {
		p, _ := res.Stream.Progress()
		if p.HasWatermark && p.Watermark == want {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the watermark never reached 00:00:08: %+v", p)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSettingNames checks that SET knows every name SettingNames lists
// (a bad value is an error about the value, not an unknown setting) and
// that its error for an unknown one lists them all.
func TestSettingNames(t *testing.T) {
	s := newSession(t, Config{})
	for _, name := range SettingNames() {
		_, err := execOne(t, s, "SET "+name+" = 'no such value'")
		if err == nil || strings.Contains(err.Error(), "unknown setting") {
			t.Errorf("SET %s = 'no such value': %v", name, err)
		}
	}
	_, err := execOne(t, s, "SET nope = 1")
	if err == nil || !strings.Contains(err.Error(), strings.Join(SettingNames(), ", ")) {
		t.Errorf("SET nope: %v", err)
	}
}
