package badger

import (
	"fmt"

	bdg "github.com/dgraph-io/badger/v4"

	"github.com/eddysql/eddy/storage"
)

// Badger logs a failure to read a value from the value log (a missing
// value log file, a value past its end, a record failing its checksum)
// and returns an empty value without an error. Only values of
// valueThreshold bytes and more go to the value log, so an empty value
// from an item whose value is there is that failure. Every value eddy
// reads goes through valueCopy or value, which turn it into an error.

// valueCopy returns a copy of item's value, appended to dst[:0].
func valueCopy(item *bdg.Item, dst []byte) ([]byte, error) {
	v, err := item.ValueCopy(dst)
	if err == nil && len(v) == 0 && item.ValueSize() > 0 {
		err = lostValue(item)
	}
	return v, err
}

// value calls fn with item's value, which is valid only during fn.
func value(item *bdg.Item, fn func(v []byte) error) error {
	lost := false
	err := item.Value(func(v []byte) error {
		if len(v) == 0 && item.ValueSize() > 0 {
			lost = true
			return nil
		}
		return fn(v)
	})
	if err == nil && lost {
		err = lostValue(item)
	}
	return err
}

func lostValue(item *bdg.Item) error {
	return fmt.Errorf("%w: the value of key %q (version %d) cannot be read from the value log", storage.ErrCorrupt, item.Key(), item.Version())
}
