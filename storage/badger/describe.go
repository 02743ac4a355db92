package badger

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/eddysql/eddy/storage"
)

// keySummary collects what a set of keys, or key ranges, belongs to, so
// that an error about a damaged file can say what the file held: the
// catalog, the logs of which streams, the state of which jobs.
type keySummary struct {
	catalog  bool
	internal bool // Badger's own keys (!badger!...)
	unknown  bool // keys of no known space

	streams  []uint64 // exact streams, when keys were added one by one
	rangeLo  uint64   // a range of streams, when a key range was added
	rangeHi  uint64
	inRange  bool
	openLo   bool // the range starts before the first stream
	openHi   bool // the range goes past the last stream
	jobs     []string
	anyState bool // a range covers state of jobs not named
}

// add records one user key (without Badger's version suffix).
func (s *keySummary) add(key []byte) {
	if len(key) == 0 {
		s.unknown = true
		return
	}
	switch key[0] {
	case spaceKV:
		s.catalog = true
	case spaceLog:
		if len(key) < 9 {
			s.unknown = true
			return
		}
		id := binary.BigEndian.Uint64(key[1:9])
		if i, found := slices.BinarySearch(s.streams, id); !found {
			s.streams = slices.Insert(s.streams, i, id)
		}
	case spaceState:
		job, _, err := storage.DecodeString(key[1:])
		if err != nil {
			s.anyState = true
			return
		}
		if !slices.Contains(s.jobs, job) {
			s.jobs = append(s.jobs, job)
		}
	case '!':
		s.internal = true
	default:
		s.unknown = true
	}
}

// addRange records every key from lo to hi (user keys, inclusive); a nil
// lo or hi is open.
func (s *keySummary) addRange(lo, hi []byte) {
	first := func(k []byte) byte {
		if len(k) == 0 {
			return 0
		}
		return k[0]
	}
	loSpace, hiSpace := first(lo), first(hi)
	if hi == nil {
		hiSpace = 0xff
	}
	covers := func(space byte) bool { return loSpace <= space && space <= hiSpace }
	if covers('!') {
		s.internal = true
	}
	if covers(spaceKV) {
		s.catalog = true
	}
	if covers(spaceState) {
		if loSpace == spaceState && hiSpace == spaceState {
			s.add(lo)
			s.add(hi)
		} else {
			s.anyState = true
		}
	}
	if !covers(spaceLog) {
		return
	}
	var from, to uint64
	openLo, openHi := loSpace < spaceLog || len(lo) < 9, hiSpace > spaceLog || len(hi) < 9
	if !openLo {
		from = binary.BigEndian.Uint64(lo[1:9])
	}
	if !openHi {
		to = binary.BigEndian.Uint64(hi[1:9])
	}
	if !s.inRange {
		s.inRange, s.rangeLo, s.rangeHi, s.openLo, s.openHi = true, from, to, openLo, openHi
		return
	}
	s.rangeLo, s.rangeHi = min(s.rangeLo, from), max(s.rangeHi, to)
	s.openLo, s.openHi = s.openLo || openLo, s.openHi || openHi
}

// String says what the keys belong to, as a noun phrase.
func (s *keySummary) String() string {
	var parts []string
	if s.catalog {
		parts = append(parts, "the catalog")
	}
	if p := s.logs(); p != "" {
		parts = append(parts, p)
	}
	switch {
	case s.anyState:
		parts = append(parts, "operator state")
	case len(s.jobs) == 1:
		parts = append(parts, fmt.Sprintf("the operator state of job %q", s.jobs[0]))
	case len(s.jobs) > 1:
		parts = append(parts, fmt.Sprintf("the operator state of jobs %s", quoteList(s.jobs)))
	}
	if s.internal {
		parts = append(parts, "Badger's own records")
	}
	if s.unknown {
		parts = append(parts, "keys eddy does not recognize")
	}
	if len(parts) == 0 {
		return "no data"
	}
	return joinAnd(parts)
}

// logs describes the streams whose logs the keys belong to.
func (s *keySummary) logs() string {
	ids := s.streams
	if s.inRange {
		switch {
		case s.openLo && s.openHi:
			return "stream logs"
		case s.openLo:
			return fmt.Sprintf("the logs of streams up to %d", max(s.rangeHi, maxOf(ids)))
		case s.openHi:
			return fmt.Sprintf("the logs of streams from %d on", min(s.rangeLo, minOf(ids, s.rangeLo)))
		}
		lo, hi := min(s.rangeLo, minOf(ids, s.rangeLo)), max(s.rangeHi, maxOf(ids))
		if lo == hi {
			return fmt.Sprintf("the log of stream %d", lo)
		}
		return fmt.Sprintf("the logs of streams %d to %d", lo, hi)
	}
	switch {
	case len(ids) == 0:
		return ""
	case len(ids) == 1:
		return fmt.Sprintf("the log of stream %d", ids[0])
	case len(ids) <= 5:
		names := make([]string, len(ids))
		for i, id := range ids {
			names[i] = fmt.Sprint(id)
		}
		return "the logs of streams " + joinAnd(names)
	}
	return fmt.Sprintf("the logs of %d streams from %d to %d", len(ids), ids[0], ids[len(ids)-1])
}

func minOf(ids []uint64, dflt uint64) uint64 {
	if len(ids) == 0 {
		return dflt
	}
	return ids[0]
}

func maxOf(ids []uint64) uint64 {
	if len(ids) == 0 {
		return 0
	}
	return ids[len(ids)-1]
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return joinAnd(q)
}

// joinAnd joins phrases as English does: "a", "a and b", "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// describeKey names the item a user key holds, for an error message.
func describeKey(key []byte) string {
	if len(key) == 0 {
		return "an empty key"
	}
	switch key[0] {
	case spaceKV:
		return fmt.Sprintf("the catalog entry %q", key[1:])
	case spaceLog:
		if seq, chunk, ok := parseLogKey(key); ok {
			stream := binary.BigEndian.Uint64(key[1:9])
			if chunk == 0 {
				return fmt.Sprintf("entry %d of the log of stream %d", seq, stream)
			}
			return fmt.Sprintf("part %d of entry %d of the log of stream %d", chunk, seq, stream)
		}
	case spaceState:
		if job, _, err := storage.DecodeString(key[1:]); err == nil {
			return fmt.Sprintf("a key of the operator state of job %q", job)
		}
	}
	return fmt.Sprintf("the key %q", key)
}
