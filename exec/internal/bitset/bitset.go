// Package bitset keeps sets of small non-negative numbers (slot or row
// numbers) as bits in a slice of words: a bit per number, the slice grown
// as numbers past its end are set. Operators mark with them what changed
// since a checkpoint, and what a snapshot written in steps still has to
// write, at a bit test per number rather than a map lookup.
package bitset

import "math"

// Set sets bit i of *bits, growing it as needed, and reports whether the
// bit was clear.
func Set(bits *[]uint64, i int32) bool {
	w := int(i >> 6)
	if w >= len(*bits) {
		*bits = append(*bits, make([]uint64, w+1-len(*bits))...)
	}
	bit := uint64(1) << (i & 63)
	was := (*bits)[w]&bit != 0
	(*bits)[w] |= bit
	return !was
}

// Has reports whether bit i of bits is set (false past its end).
func Has(bits []uint64, i int32) bool {
	w := int(i >> 6)
	return w < len(bits) && bits[w]&(1<<(i&63)) != 0
}

// Clear clears bit i of bits, if it has it.
func Clear(bits []uint64, i int32) {
	if w := int(i >> 6); w < len(bits) {
		bits[w] &^= 1 << (i & 63)
	}
}

// Fill returns bits with bits 0 to n-1 set and every other bit of its
// words clear, reusing its array when it is large enough.
func Fill(bits []uint64, n int32) []uint64 {
	full, rest := int(n)/64, n%64
	words := full
	if rest != 0 {
		words++
	}
	if cap(bits) < words {
		bits = make([]uint64, words)
	}
	bits = bits[:cap(bits)]
	for i := range bits {
		switch {
		case i < full:
			bits[i] = math.MaxUint64
		case i == full && rest != 0:
			bits[i] = 1<<rest - 1
		default:
			bits[i] = 0
		}
	}
	return bits
}

// Empty reports whether no bit of bits is set.
func Empty(bits []uint64) bool {
	for _, w := range bits {
		if w != 0 {
			return false
		}
	}
	return true
}
