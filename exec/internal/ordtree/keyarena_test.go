package ordtree

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec/internal/arena"
)

// TestSharedKeysAcrossPartitions runs 2,000 partitions of at most ten
// rows each through Partitions, as a bounded Top-N does — rows entering,
// the lowest leaving, partitions dropped now and then — and checks after
// every chunk that every tree holds its model's keys, that the shared
// arena's live bytes are the live keys (padded to 8 bytes), and that its
// dead bytes are compacted away before they are most of it; and that the
// arenas were written at most about two bytes per byte of key added: once
// when added, and at most once again in compactions, each after as many
// dead bytes as it copies.
func TestSharedKeysAcrossPartitions(t *testing.T) {
	const parts, live = 2000, 10
	r := rand.New(rand.NewPCG(7, 7))
	var ps Partitions
	model := map[string][]string{}
	pad := strings.Repeat("x", 140)
	added, compactions := 0, 0
	var retired int64 // the bytes written to the arenas compactions left behind
	for chunk := range 400 {
		ps.Begin()
		for range 500 {
			pk := fmt.Sprintf("p%04d", r.IntN(parts))
			p := ps.Touch([]byte(pk))
			key := fmt.Sprintf("%09d-%s", r.IntN(1_000_000_000), pad[:r.IntN(len(pad))])
			if slices.Contains(model[pk], key) {
				continue
			}
			if _, _, err := p.Tree.Add(KeyOf(key), 1, 0, 0, &ps.Gauge); err != nil {
				t.Fatal(err)
			}
			added += len(key)
			model[pk] = append(model[pk], key)
			slices.Sort(model[pk])
			if len(model[pk]) > live {
				low := model[pk][0]
				if _, _, err := p.Tree.Add(KeyOf(low), -1, 0, 0, &ps.Gauge); err != nil {
					t.Fatal(err)
				}
				model[pk] = model[pk][1:]
			}
		}
		arenaBefore := ps.keys
		ps.Finish()
		if ps.keys != arenaBefore && arenaBefore != nil {
			compactions++
			retired += arenaBefore.a.Used()
		}
		if chunk%50 == 49 {
			// A rescale drops the partitions of the groups it gave away.
			for range 100 {
				pk := fmt.Sprintf("p%04d", r.IntN(parts))
				ps.Drop(pk)
				delete(model, pk)
			}
		}
		var liveBytes int64
		for pk, keys := range model {
			p := ps.Get(pk)
			if p == nil {
				t.Fatalf("chunk %d: partition %s is gone", chunk, pk)
			}
			var got []string
			_ = p.Tree.Each(func(e *Entry) error { got = append(got, e.S); return nil })
			if !slices.Equal(got, keys) {
				t.Fatalf("chunk %d: partition %s holds %q, want %q", chunk, pk, got, keys)
			}
			if p.Tree.keys != ps.keys {
				t.Fatalf("chunk %d: partition %s keeps its keys apart from the shared arena", chunk, pk)
			}
			for _, k := range keys {
				liveBytes += ps.keys.span(len(k))
			}
		}
		ka := ps.keys
		if got := ka.a.Used() - ka.dead; got != liveBytes {
			t.Fatalf("chunk %d: the shared arena holds %d live bytes (%d used, %d dead), want %d", chunk, got, ka.a.Used(), ka.dead, liveBytes)
		}
		if ka.dead > sharedCompactMin && 2*ka.dead > ka.a.Used() {
			t.Fatalf("chunk %d: %d of the shared arena's %d bytes are dead after the chunk", chunk, ka.dead, ka.a.Used())
		}
		if held := ka.a.Bytes(); held > 2*liveBytes+2*sharedCompactMin+arena.BlockSize {
			t.Fatalf("chunk %d: the shared arena holds %d bytes for %d live", chunk, held, liveBytes)
		}
	}
	if compactions == 0 {
		t.Fatal("the shared arena was never compacted: the test shows nothing")
	}
	perByte := float64(retired+ps.keys.a.Used()) / float64(added)
	if perByte > 2.2 {
		t.Errorf("the arenas were written %.2f bytes per byte of key added, want at most 2.2", perByte)
	}
	t.Logf("%d bytes of keys added, %d compactions, %.2f bytes written per byte", added, compactions, perByte)
}
