package cow

import (
	"testing"

	"github.com/eddysql/eddy/exec/exectest"
)

// TestEntriesWriteInOrder saves puts and deletions in several key groups
// and writes them a few at a time: each reaches the state in its group,
// in the order saved (a put after a deletion of the same key stands), and
// Reset starts afresh.
func TestEntriesWriteInOrder(t *testing.T) {
	var e Entries
	e.Put(3, []byte("a"), []byte("1"))
	e.Delete(3, []byte("a"))
	e.Put(3, []byte("a"), []byte("2"))
	e.Put(255, []byte("b"), nil)
	e.Put(200, []byte("c"), []byte("3"))
	st := exectest.NewState()
	st.Entries[7] = map[string][]byte{"gone": []byte("x")}
	e.Delete(7, []byte("gone"))
	total := 0
	for !e.Done() {
		n, err := e.Write(st, 2)
		if err != nil || n == 0 || n > 2 {
			t.Fatalf("Write(2) = %d, %v", n, err)
		}
		total += n
	}
	if total != 6 || e.Len() != 6 {
		t.Fatalf("wrote %d of %d", total, e.Len())
	}
	if string(st.Entries[3]["a"]) != "2" || len(st.Entries[255]) != 1 ||
		string(st.Entries[200]["c"]) != "3" || len(st.Entries[7]) != 0 {
		t.Fatalf("state %v", st.Entries)
	}
	e.Reset()
	if !e.Done() || e.Len() != 0 {
		t.Fatal("entries left after Reset")
	}
}
