package plan

import (
	"slices"
	"strconv"
	"strings"
)

// ColSet is a set of ColumnIDs, kept sorted. Its zero value is the empty set.
// Like a slice, a copied ColSet shares its storage: Add to a copy may change
// the original, so copy with Union before adding.
type ColSet struct{ ids []ColumnID }

// MakeColSet returns the set of the given IDs. It sorts a copy, so that a
// set of thousands of columns (a wide select list) costs n log n, not the
// n² of inserting them one by one.
func MakeColSet(ids ...ColumnID) ColSet {
	if len(ids) == 0 {
		return ColSet{}
	}
	out := slices.Clone(ids)
	if !slices.IsSorted(out) {
		slices.Sort(out)
	}
	return ColSet{ids: slices.Compact(out)}
}

// Add inserts id.
func (s *ColSet) Add(id ColumnID) {
	i, found := slices.BinarySearch(s.ids, id)
	if !found {
		s.ids = slices.Insert(s.ids, i, id)
	}
}

// Contains reports whether id is in s.
func (s ColSet) Contains(id ColumnID) bool {
	_, found := slices.BinarySearch(s.ids, id)
	return found
}

// Len is the number of IDs in s.
func (s ColSet) Len() int { return len(s.ids) }

// Empty reports whether s has no IDs.
func (s ColSet) Empty() bool { return len(s.ids) == 0 }

// Ordered returns the IDs in increasing order. The slice must not be modified.
func (s ColSet) Ordered() []ColumnID { return s.ids }

// Union returns s ∪ o, merging the two sorted lists.
func (s ColSet) Union(o ColSet) ColSet {
	switch {
	case len(o.ids) == 0:
		return ColSet{ids: slices.Clone(s.ids)}
	case len(s.ids) == 0:
		return ColSet{ids: slices.Clone(o.ids)}
	}
	out := make([]ColumnID, 0, len(s.ids)+len(o.ids))
	i, j := 0, 0
	for i < len(s.ids) && j < len(o.ids) {
		switch a, b := s.ids[i], o.ids[j]; {
		case a < b:
			out = append(out, a)
			i++
		case b < a:
			out = append(out, b)
			j++
		default:
			out = append(out, a)
			i++
			j++
		}
	}
	out = append(append(out, s.ids[i:]...), o.ids[j:]...)
	return ColSet{ids: out}
}

// Difference returns the IDs of s that are not in o.
func (s ColSet) Difference(o ColSet) ColSet {
	var out ColSet
	for _, id := range s.ids {
		if !o.Contains(id) {
			out.ids = append(out.ids, id)
		}
	}
	return out
}

// SubsetOf reports whether every ID of s is in o.
func (s ColSet) SubsetOf(o ColSet) bool {
	for _, id := range s.ids {
		if !o.Contains(id) {
			return false
		}
	}
	return true
}

// Intersects reports whether s and o share an ID.
func (s ColSet) Intersects(o ColSet) bool {
	for _, id := range s.ids {
		if o.Contains(id) {
			return true
		}
	}
	return false
}

// Equals reports whether s and o hold the same IDs.
func (s ColSet) Equals(o ColSet) bool { return slices.Equal(s.ids, o.ids) }

// String renders the set as (1,3,5).
func (s ColSet) String() string {
	parts := make([]string, len(s.ids))
	for i, id := range s.ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// ColList is an ordered list of columns, such as a node's output.
type ColList []ColumnID

// ToSet returns the columns of l as a set.
func (l ColList) ToSet() ColSet { return MakeColSet(l...) }

// Find returns the position of id in l, or -1.
func (l ColList) Find(id ColumnID) int { return slices.Index(l, id) }
