package mem

import (
	"testing"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/storagetest"
)

var harness = storagetest.Harness{
	Open: func(t testing.TB) storage.DB { return New() },
	Reopen: func(t testing.TB, db storage.DB) storage.DB {
		db.Close()
		db2, err := db.(*DB).Reopen()
		if err != nil {
			t.Fatal(err)
		}
		return db2
	},
	Corrupt: func(t testing.TB, db storage.DB, stream, seq uint64) {
		d := db.(*DB).d
		d.mu.Lock()
		defer d.mu.Unlock()
		frame := d.logs[stream][seq]
		frame[len(frame)/2] ^= 0x40
	},
}

func TestSuite(t *testing.T) { storagetest.Run(t, harness) }

func TestReopenWhileOpen(t *testing.T) {
	db := New()
	defer db.Close()
	if _, err := db.Reopen(); err == nil {
		t.Fatal("Reopen of an open DB succeeded")
	}
}
