package planner

import (
	"sort"
	"strings"

	"github.com/eddysql/eddy/planner/plan"
)

// scopeCol is a column visible to expressions: a table (or alias) name, a
// column name and the plan column it denotes.
type scopeCol struct {
	table  string
	name   string
	id     plan.ColumnID
	hidden bool // not expanded by *
	// qualifiedOnly columns are the sides' copies of a USING column: only
	// t.c names them, and only t.* lists them.
	qualifiedOnly bool
	// virtual columns exist only above an aggregation: a SESSION window's
	// window_start and window_end.
	virtual bool
}

// scope is the set of columns a clause may refer to.
type scope struct {
	cols []scopeCol
	// byName indexes cols by lower-case name once the scope is wide, so
	// that binding a select list of thousands of columns costs a lookup
	// per reference rather than a scan of the scope. It covers
	// cols[:indexed]; lookup extends it as columns are appended.
	byName  map[string][]int
	indexed int
}

// indexFrom is the scope width from which lookup indexes names: below it
// a scan is as fast as hashing the name.
const indexFrom = 32

// candidates returns the positions of the columns called name, in
// order, indexing the columns appended since the last call.
func (s *scope) candidates(name string) []int {
	if s.byName == nil || s.indexed > len(s.cols) {
		s.byName, s.indexed = map[string][]int{}, 0
	}
	for ; s.indexed < len(s.cols); s.indexed++ {
		k := strings.ToLower(s.cols[s.indexed].name)
		s.byName[k] = append(s.byName[k], s.indexed)
	}
	return s.byName[strings.ToLower(name)]
}

// lookup resolves [table.]name. It returns the column, whether the name was
// ambiguous, and whether it was found.
func (s *scope) lookup(table, name string) (scopeCol, bool, bool) {
	var found []scopeCol
	cols := s.cols
	if len(s.cols) >= indexFrom {
		idx := s.candidates(name)
		cols = make([]scopeCol, len(idx))
		for k, i := range idx {
			cols[k] = s.cols[i]
		}
	}
	for _, c := range cols {
		if !strings.EqualFold(c.name, name) {
			continue
		}
		if table != "" && !strings.EqualFold(c.table, table) || table == "" && c.qualifiedOnly {
			continue
		}
		found = append(found, c)
	}
	switch len(found) {
	case 0:
		return scopeCol{}, false, false
	case 1:
		return found[0], false, true
	}
	return found[0], true, true
}

// hasTable reports whether a table or alias of that name is in scope.
func (s *scope) hasTable(table string) bool {
	for _, c := range s.cols {
		if strings.EqualFold(c.table, table) {
			return true
		}
	}
	return false
}

// suggest returns the visible name closest to name (edit distance at most
// 2, or a case-insensitive prefix), or "".
func (s *scope) suggest(name string) string {
	type cand struct {
		name string
		d    int
	}
	var cands []cand
	seen := map[string]bool{}
	lname := strings.ToLower(name)
	for _, c := range s.cols {
		if c.hidden || seen[c.name] {
			continue
		}
		seen[c.name] = true
		d := editDistance(lname, strings.ToLower(c.name))
		if d <= 2 && d < len(name) {
			cands = append(cands, cand{c.name, d})
		}
	}
	if len(cands) == 0 {
		return ""
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].d != cands[j].d {
			return cands[i].d < cands[j].d
		}
		return cands[i].name < cands[j].name
	})
	return cands[0].name
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
