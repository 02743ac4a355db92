package position

import (
	"errors"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	w := NewWriter("test")
	w.Uint(0)
	w.Uint(1 << 63)
	w.String("a/b.csv")
	pos := w.Bytes()
	r := NewReader(pos, "test", "test source")
	if a, b, s := r.Uint(), r.Uint(), r.String(); a != 0 || b != 1<<63 || s != "a/b.csv" {
		t.Fatalf("read %d, %d, %q", a, b, s)
	}
	if err := r.Done(); err != nil {
		t.Fatal(err)
	}
}

func TestRefused(t *testing.T) {
	w := NewWriter("test")
	w.Uint(300)
	w.String("x")
	pos := w.Bytes()
	other := NewWriter("other")
	other.Uint(300)
	flipped := append([]byte(nil), pos...)
	flipped[len(flipped)/2] ^= 1
	short := NewWriter("test")
	short.Uint(300)
	cases := []struct {
		name string
		pos  []byte
		want string
	}{
		{"empty", nil, "0 bytes is too short to be a position"},
		{"truncated", pos[:len(pos)-1], "checksum mismatch"},
		{"flipped", flipped, "checksum mismatch"},
		{"other kind", other.Bytes(), `the position is a "other" source's, not a test source's`},
		{"missing field", short.Bytes(), "it ends before its fields"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(tc.pos, "test", "test source")
			r.Uint()
			_ = r.String()
			err := r.Done()
			var pe *Error
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) ||
				!strings.HasPrefix(err.Error(), "test source: cannot seek to the position: ") {
				t.Fatalf("error %v, want an *Error containing %q", err, tc.want)
			}
		})
	}
	r := NewReader(pos, "test", "test source")
	r.Uint()
	if err := r.Done(); err == nil || !strings.Contains(err.Error(), "bytes after its fields") {
		t.Fatalf("error %v, want leftover bytes refused", err)
	}
}

// TestMore: a reader tells whether fields remain, so that fields added at
// the end of a position are read only from the positions that have them.
func TestMore(t *testing.T) {
	o := NewWriter("test")
	o.Uint(7)
	old := o.Bytes()
	w := NewWriter("test")
	w.Uint(7)
	w.Uint(9)
	r := NewReader(old, "test", "test source")
	if v := r.Uint(); v != 7 || r.More() {
		t.Fatalf("read %d, More = %t; want 7 and no more", v, r.More())
	}
	if err := r.Done(); err != nil {
		t.Fatal(err)
	}
	r = NewReader(w.Bytes(), "test", "test source")
	r.Uint()
	if !r.More() || r.Uint() != 9 || r.More() {
		t.Fatal("the added field was not read")
	}
	if r := NewReader(old[:2], "test", "test source"); r.More() {
		t.Fatal("More on a damaged position")
	}
}
