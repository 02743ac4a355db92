package sql

import (
	"slices"
	"testing"
)

func TestPlaceholders(t *testing.T) {
	for _, c := range []struct {
		text string
		want []int
	}{
		{"SELECT 1", nil},
		{"SELECT ?", []int{7}},
		{"INSERT INTO s VALUES (?, ?)", []int{22, 25}},
		{"SELECT '?', \"?\", `?` FROM t WHERE a = ?", []int{38}},
		{"SELECT 'it''s ?' , ? -- ?\n, ?", []int{19, 28}},
		{"SELECT /* ? */ ? # ?", []int{15}},
		{"SELECT 'a\\'?' + ?", []int{16}},
		{"SELECT 'unterminated ?", nil},
		{"SELECT ? /* unterminated ?", []int{7}},
	} {
		if got := Placeholders(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Placeholders(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
