package nexmark

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/bench/nexmark/queries"
)

// Query is one benchmark query: its name and the statements that deploy it.
type Query struct {
	// Name is the query's name: q0 … q22 (the file name without .sql), or
	// BaselineName.
	Name string
	// File is the path the query was read from (its name, qN.sql, for a
	// built-in query); empty for the baseline.
	File string
	// Text is the query's SQL: one or more statements, each ended by ';'.
	Text string
}

// QueryDir is where the query files are, relative to the repository root:
// the package queries, which embeds them in the binary.
const QueryDir = "bench/nexmark/queries"

// builtIn is how messages name the embedded queries.
const builtIn = "the built-in queries"

// queryFS returns the files of the query directory dir: the embedded
// queries (package queries) when dir is "", else the directory's.
func queryFS(dir string) (fsys fs.FS, name string) {
	if dir == "" {
		return queries.FS, builtIn
	}
	return os.DirFS(dir), dir
}

// queryPath returns the path of file name in dir, as Query.File holds it.
func queryPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return filepath.Join(dir, name)
}

// queryName is the shape of a query file's name without .sql: q, the
// query's number, and an optional suffix for a variant (q5_rewrite).
var queryName = regexp.MustCompile(`^q([0-9]+)(_[a-z0-9_]+)?$`)

// normalizeName turns a name as a user types it ("Q5", "5", "q5.sql") into
// a query name ("q5"); ok is false when it cannot be one.
func normalizeName(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimSuffix(s, ".sql")
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "q" + s
	}
	return s, queryName.MatchString(s)
}

// ParseList parses a list of queries as --queries takes it: "all", or
// names separated by commas ("q0,q5,7"; case-insensitive, the q optional).
// It returns the names in the order given, without repeats, or all = true.
func ParseList(s string) (names []string, all bool, err error) {
	if strings.EqualFold(strings.TrimSpace(s), "all") {
		return nil, true, nil
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		name, ok := normalizeName(part)
		if !ok {
			return nil, false, fmt.Errorf("%q is not a query name (q0 … q22, or all)", strings.TrimSpace(part))
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, false, errors.New("no queries given (q0,q5,… or all)")
	}
	return names, false, nil
}

// queryNumber returns the number in a query name, for ordering.
func queryNumber(name string) int {
	m := queryName.FindStringSubmatch(name)
	if m == nil {
		return -1
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return -1
	}
	return n
}

// sortNames orders query names by number, then by name (q5 before
// q5_rewrite before q6).
func sortNames(names []string) {
	sort.Slice(names, func(i, j int) bool {
		a, b := queryNumber(names[i]), queryNumber(names[j])
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
}

// Available returns the names of the query files in dir (the built-in
// queries when dir is ""), in order.
func Available(dir string) ([]string, error) {
	var entries []fs.DirEntry
	var err error
	if dir == "" {
		entries, err = fs.ReadDir(queries.FS, ".")
	} else {
		entries, err = os.ReadDir(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the query directory: %w", err)
	}
	var names []string
	for _, e := range entries {
		name, isSQL := strings.CutSuffix(e.Name(), ".sql")
		if !isSQL || !e.Type().IsRegular() || !queryName.MatchString(name) {
			continue
		}
		names = append(names, name)
	}
	sortNames(names)
	return names, nil
}

// LoadQueries reads the queries that list names (as ParseList reads it)
// from the files <name>.sql in dir, or from the built-in queries when dir
// is "". A name without a file is an error that lists the queries there
// are.
func LoadQueries(dir, list string) ([]Query, error) {
	names, all, err := ParseList(list)
	if err != nil {
		return nil, err
	}
	avail, err := Available(dir)
	if err != nil {
		return nil, err
	}
	fsys, where := queryFS(dir)
	if all {
		if len(avail) == 0 {
			return nil, fmt.Errorf("no query files (q0.sql …) in %s", where)
		}
		names = avail
	}
	out := make([]Query, 0, len(names))
	for _, name := range names {
		file := name + ".sql"
		data, err := fs.ReadFile(fsys, file)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no query %s in %s (there are: %s)", name, where, strings.Join(avail, ", "))
		}
		if err != nil {
			return nil, fmt.Errorf("reading query %s: %w", name, err)
		}
		out = append(out, Query{Name: name, File: queryPath(dir, file), Text: string(data)})
	}
	return out, nil
}
