package kafkastate

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/storage"
)

// TestCompactedChunks checks the record layout after compaction, with
// tombstones removed at once (delete.retention.ms 0): a value that shrank
// or was deleted leaves none of its chunks, and a chunked value keeps
// exactly its own.
func TestCompactedChunks(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, 1)
	zero := "0"
	resps, err := c.admin(t).AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "delete.retention.ms", Value: &zero}}, c.topic)
	if err == nil {
		_, err = resps.On(c.topic, nil)
	}
	must(t, err)
	s := c.open(t, 0)
	tbl := tableOf(t, s, "t")
	val := func(n int, b byte) []byte { return bytes.Repeat([]byte{b}, n) }
	must(t, tbl.Put([]byte("shrinks"), val(4*chunkSize, 1)))
	must(t, tbl.Put([]byte("deleted"), val(3*chunkSize, 2)))
	must(t, tbl.Put([]byte("stays"), val(3*chunkSize+1, 3)))
	must(t, s.Commit(ctx, 1))
	must(t, tbl.Put([]byte("shrinks"), val(2*chunkSize-1, 4)))
	must(t, tbl.Delete([]byte("deleted")))
	must(t, s.Commit(ctx, 2))
	must(t, s.Commit(ctx, 3)) // compaction keeps the last batch whole
	c.Compact()

	var keys []string
	for _, r := range committed(t, c, 0) {
		if r.Value == nil {
			t.Fatalf("a tombstone of key %q outlived compaction", r.Key)
		}
		keys = append(keys, describeKey(r.Key))
	}
	want := "C stays 1, C stays 2, C stays 3, V stays, C shrinks 1, V shrinks, E"
	if got := strings.Join(keys, ", "); got != want {
		t.Fatalf("after compaction the partition holds %s, want %s", got, want)
	}
	s = reopened(t, c, s)
	v, _, err := tableOf(t, s, "t").Get([]byte("shrinks"))
	must(t, err)
	if !bytes.Equal(v, val(2*chunkSize-1, 4)) {
		t.Fatalf("the shrunk value has %d bytes after compaction", len(v))
	}
	v, _, err = tableOf(t, s, "t").Get([]byte("stays"))
	must(t, err)
	if !bytes.Equal(v, val(3*chunkSize+1, 3)) {
		t.Fatalf("the kept value has %d bytes after compaction", len(v))
	}
}

// describeKey prints a record key of table "t" as "kind key [index]".
func describeKey(k []byte) string {
	pre := len(storage.AppendString(nil, "t"))
	switch k[0] {
	case kindValue:
		return "V " + string(k[1+pre:])
	case kindChunk:
		return fmt.Sprintf("C %s %d", k[1+pre:len(k)-4], k[len(k)-1])
	}
	return string(k[:1])
}

// TestCorruptRecords checks that Open fails with an error wrapping
// storage.ErrCorrupt that names the offset of a record that does not
// decode, and does not panic.
func TestCorruptRecords(t *testing.T) {
	full := append(storage.AppendString(nil, "t"), 'k')
	marker := &kgo.Record{Key: epochMarkerKey, Value: []byte{0, 0, 0, 0, 0, 0, 0, 1}}
	chunkHdr := func(n uint32, epoch, length uint64) []kgo.RecordHeader {
		h := binary.BigEndian.AppendUint32(nil, n)
		h = binary.BigEndian.AppendUint64(h, epoch)
		h = binary.BigEndian.AppendUint64(h, length)
		return []kgo.RecordHeader{{Key: chunkHeader, Value: h}}
	}
	for _, tc := range []struct {
		name string
		recs []*kgo.Record
		bad  int // the index of the record the error names
	}{
		{"NoKey", []*kgo.Record{{Value: []byte("v")}, marker}, 0},
		{"UnknownKind", []*kgo.Record{{Key: []byte("Xk"), Value: []byte("v")}, marker}, 0},
		{"ShortMarker", []*kgo.Record{{Key: epochMarkerKey, Value: []byte{1}}}, 0},
		{"AfterMarker", []*kgo.Record{marker, {Key: valueKey(full), Value: []byte("v")}}, 1},
		{"ShortChunkKey", []*kgo.Record{{Key: []byte("Cab"), Value: []byte("v")}, marker}, 0},
		{"ChunkWithoutEpoch", []*kgo.Record{{Key: chunkKey(full, 1), Value: []byte("v")}, marker}, 0},
		{"MissingChunk", []*kgo.Record{{Key: valueKey(full), Value: []byte("v"), Headers: chunkHdr(2, 1, 2)}, marker}, 0},
		{"WrongLength", []*kgo.Record{
			{Key: chunkKey(full, 1), Value: []byte("w"), Headers: []kgo.RecordHeader{{Key: chunkHeader, Value: make([]byte, 8)}}},
			{Key: valueKey(full), Value: []byte("v"), Headers: chunkHdr(2, 0, 5)}, marker}, 1},
		{"OneChunk", []*kgo.Record{{Key: valueKey(full), Value: []byte("v"), Headers: chunkHdr(1, 1, 1)}, marker}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, 1)
			kc, err := kgo.NewClient(kgo.SeedBrokers(c.brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
				kgo.DefaultProduceTopic(c.topic))
			must(t, err)
			defer kc.Close()
			results := kc.ProduceSync(context.Background(), tc.recs...)
			must(t, results.FirstErr())
			s, err := Open(context.Background(), c.config(0))
			if err == nil {
				s.Close()
				t.Fatal("Open read a damaged partition")
			}
			if !errors.Is(err, storage.ErrCorrupt) {
				t.Fatalf("Open = %v, want ErrCorrupt", err)
			}
			want := fmt.Sprintf("topic %q partition 0 offset %d", c.topic, results[tc.bad].Record.Offset)
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("Open = %v, want it to name %s", err, want)
			}
		})
	}
}
