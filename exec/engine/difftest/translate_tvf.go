package difftest

import (
	"fmt"
	"strings"
)

// windowRewrite translates a window table function in FROM; rest is the
// rest of the query after the call, where SESSION finds its group keys.
type windowRewrite func(tr *translator, args [][]token, rest []token) (string, error)

// windowRewriteFor returns the translation of the window table functions of SQL.md into
// subqueries that add window_start and window_end to every row of the
// table (the time column's type: here milliseconds). Rows whose time is
// NULL belong to no window (as in Flink). Window starts are aligned to the
// epoch, rounding down also for times before it.
func windowRewriteFor(name string) (windowRewrite, bool) {
	switch name {
	case "tumble":
		return tumble, true
	case "hop":
		return hop, true
	case "cumulate":
		return cumulate, true
	case "session":
		return session, true
	}
	return nil, false
}

// windowArgs checks the arguments of a window function: a relation name, a
// time column and n INTERVALs, returned in milliseconds.
func windowArgs(args [][]token, n int) (rel, col string, sizes []int64, err error) {
	if len(args) != 2+n {
		return "", "", nil, fmt.Errorf("expected a table, a time column and %d intervals", n)
	}
	r, c := trim(args[0]), trim(args[1])
	if len(r) != 1 || r[0].kind != tIdent || len(c) != 1 || c[0].kind != tIdent {
		return "", "", nil, fmt.Errorf("the table and the time column must be plain names")
	}
	for _, a := range args[2:] {
		ms, err := intervalArg(a)
		if err != nil {
			return "", "", nil, err
		}
		if ms <= 0 {
			return "", "", nil, fmt.Errorf("window sizes must be positive")
		}
		sizes = append(sizes, ms)
	}
	return r[0].text, c[0].text, sizes, nil
}

// tumble translates TUMBLE(t, col, size): each row is in the window that
// starts at col rounded down to a multiple of size.
func tumble(tr *translator, args [][]token, _ []token) (string, error) {
	rel, col, sz, err := windowArgs(args, 1)
	if err != nil {
		return "", err
	}
	start := floorTo(col, sz[0])
	return fmt.Sprintf("(SELECT *, %[1]s AS window_start, %[1]s + %[2]d AS window_end FROM %[3]s WHERE %[4]s IS NOT NULL)",
		start, sz[0], rel, col), nil
}

// hop translates HOP(t, col, slide, size): a row is in every window that
// starts at a multiple of slide in (col - size, col]. The candidates are
// the ceil(size/slide) starts at and before col rounded down to slide,
// from the helper table of integers __n.
func hop(tr *translator, args [][]token, _ []token) (string, error) {
	rel, col, sz, err := windowArgs(args, 2)
	if err != nil {
		return "", err
	}
	slide, size := sz[0], sz[1]
	c := "__t." + col
	start := fmt.Sprintf("(%s - __n.i * %d)", floorTo(c, slide), slide)
	count := (size + slide - 1) / slide
	return fmt.Sprintf("(SELECT __t.*, %[1]s AS window_start, %[1]s + %[2]d AS window_end FROM %[3]s AS __t, __n "+
		"WHERE %[4]s IS NOT NULL AND __n.i < %[5]d AND %[1]s + %[2]d > %[4]s)", start, size, rel, c, count), nil
}

// cumulate translates CUMULATE(t, col, step, max): windows start at col
// rounded down to max and end at each multiple of step up to max after
// it; a row is in those that end after it.
func cumulate(tr *translator, args [][]token, _ []token) (string, error) {
	rel, col, sz, err := windowArgs(args, 2)
	if err != nil {
		return "", err
	}
	step, maxSize := sz[0], sz[1]
	if maxSize%step != 0 {
		return "", fmt.Errorf("the max size must be a multiple of the step")
	}
	c := "__t." + col
	start := floorTo(c, maxSize)
	end := fmt.Sprintf("(%s + __n.i * %d)", start, step)
	return fmt.Sprintf("(SELECT __t.*, %[1]s AS window_start, %[2]s AS window_end FROM %[3]s AS __t, __n "+
		"WHERE %[4]s IS NOT NULL AND __n.i BETWEEN 1 AND %[5]d AND %[2]s > %[4]s)", start, end, rel, c, maxSize/step), nil
}

// session translates SESSION(t, col, gap) as gaps and islands. Sessions
// are kept per group key: the keys are the GROUP BY expressions of the
// query around the call other than window_start and window_end. Within a
// key, rows in time order start a new session when they come gap or more
// after the previous row (a session covers [first, last + gap), and a
// row at exactly last + gap is outside it); a running SUM of those starts
// numbers the sessions, and each row gets its session's first time and
// last time plus gap.
func session(tr *translator, args [][]token, rest []token) (string, error) {
	rel, col, sz, err := windowArgs(args, 1)
	if err != nil {
		return "", err
	}
	keys, err := groupKeys(tr, rest)
	if err != nil {
		return "", err
	}
	cols, err := tr.columns(rel)
	if err != nil {
		return "", err
	}
	part := strings.Join(append(keys, "__sid"), ", ")
	byKey := ""
	if len(keys) > 0 {
		byKey = "PARTITION BY " + strings.Join(keys, ", ") + " "
	}
	marked := fmt.Sprintf("SELECT *, CASE WHEN %[1]s - lag(%[1]s) OVER (%[2]sORDER BY %[1]s) < %[3]d THEN 0 ELSE 1 END AS __new "+
		"FROM %[4]s WHERE %[1]s IS NOT NULL", col, byKey, sz[0], rel)
	numbered := fmt.Sprintf("SELECT *, sum(__new) OVER (%sORDER BY %s ROWS UNBOUNDED PRECEDING) AS __sid FROM (%s)",
		byKey, col, marked)
	return fmt.Sprintf("(SELECT %[1]s, min(%[2]s) OVER (PARTITION BY %[3]s) AS window_start, "+
		"max(%[2]s) OVER (PARTITION BY %[3]s) + %[4]d AS window_end FROM (%[5]s))",
		strings.Join(cols, ", "), col, part, sz[0], numbered), nil
}

// groupKeys returns the GROUP BY expressions, translated and with their
// qualifiers removed, of the query that rest belongs to, without
// window_start and window_end. It stops at a ')' that closes the
// enclosing subquery.
func groupKeys(tr *translator, rest []token) ([]string, error) {
	depth := 0
	var list []token
	in := false
	for i := 0; i < len(rest); i++ {
		t := rest[i]
		switch {
		case t.is("("):
			depth++
		case t.is(")"):
			depth--
		}
		if depth < 0 || t.is(";") {
			break
		}
		if depth == 0 && t.kind == tIdent {
			switch strings.ToUpper(t.text) {
			case "GROUP":
				if j := next(rest, i+1); j < len(rest) && rest[j].is("BY") {
					in, i = true, j
					continue
				}
			case "HAVING", "ORDER", "LIMIT", "UNION", "EMIT", "WINDOW":
				if in {
					i = len(rest)
					continue
				}
			}
		}
		if in {
			list = append(list, t)
		}
	}
	if !in {
		return nil, fmt.Errorf("SESSION needs a GROUP BY in its query (sessions are per group key)")
	}
	var keys []string
	for _, k := range splitTop(trim(list)) {
		k = unqualify(trim(k))
		name := strings.ToLower(text(k))
		if name == "window_start" || name == "window_end" {
			continue
		}
		s, err := tr.seq(k)
		if err != nil {
			return nil, err
		}
		keys = append(keys, s)
	}
	return keys, nil
}

// unqualify drops the `alias.` before column names.
func unqualify(toks []token) []token {
	var out []token
	for i := 0; i < len(toks); i++ {
		if toks[i].kind == tIdent && i+2 < len(toks) && toks[i+1].is(".") && toks[i+2].kind == tIdent {
			continue
		}
		if toks[i].is(".") && i > 0 && toks[i-1].kind == tIdent {
			continue
		}
		out = append(out, toks[i])
	}
	return out
}
