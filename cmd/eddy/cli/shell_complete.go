package cli

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// completer completes the word at the cursor with tab: meta commands and
// their arguments, SQL keywords, object names, column names, function
// names and setting names, choosing by the words before the cursor (the
// statement's earlier lines too) where that is cheap: after FROM, JOIN,
// INTO, DESCRIBE or \d an object, after SET a setting, after `t.` a column
// of t. Names come from a nameSource, asked again after each statement
// the shell runs (stale).
type completer struct {
	src   nameSource
	names catalogNames
	stale bool
	// timeout bounds one refresh of the names, so that a slow session
	// never hangs the prompt.
	timeout time.Duration
}

// newCompleter returns a completer whose names come from src.
func newCompleter(src nameSource) *completer {
	return &completer{src: src, stale: true, timeout: 2 * time.Second}
}

// invalidate makes the next completion fetch the names again.
func (c *completer) invalidate() {
	if c != nil {
		c.stale = true
	}
}

// refresh fetches the names when they are stale. On an error the old
// names stay.
func (c *completer) refresh() {
	if !c.stale || c.src == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	if n, err := c.src.names(ctx); err == nil {
		c.names, c.stale = n, false
	}
}

// statementStarts are the keywords the statements eddy parses start with.
var statementStarts = []string{"ALTER", "ANALYZE", "CREATE", "DESC", "DESCRIBE", "DROP", "EXPLAIN",
	"FLUSH", "INSERT", "SELECT", "SET", "SHOW", "WITH"}

// sqlKeywords are the other words of eddy's dialect (SQL.md), and its
// type names.
var sqlKeywords = []string{"ALL", "AND", "ANY", "AS", "ASC", "BETWEEN", "BY", "CASCADE", "CASE", "CHANGES",
	"CHECKPOINTS", "CLOSE", "CROSS", "CURRENT", "DAY", "DESC", "DESCRIPTOR", "DISTINCT", "ELSE", "EMIT", "END",
	"EXISTS", "FALSE", "FIRST", "FOLLOWING", "FOR", "FROM", "FULL", "FUNCTIONS", "GROUP", "HAVING", "HOUR", "IF",
	"IN", "INNER", "INTERVAL", "INTO", "IS", "JOIN", "KEY", "LAST", "LEFT", "LIKE", "LIMIT", "LOGICAL",
	"MATERIALIZED", "MILLISECOND", "MINUTE", "NOT", "NULL", "NULLS", "OFFSET", "ON", "OR", "ORDER", "OUTER",
	"OVER", "PARTITION", "PRECEDING", "PRIMARY", "QUERIES", "RANGE", "RIGHT", "ROW", "ROWS", "SECOND", "SINK",
	"SINKS", "STREAM", "STREAMS", "TABLE", "TABLES", "THEN", "TO", "TRUE", "UNBOUNDED", "UNION", "USING",
	"VALUES", "VERBOSE", "VIEW", "VIEWS", "WATERMARK", "WHEN", "WHERE", "WINDOW",
	"BIGINT", "BOOLEAN", "DATE", "DATETIME", "DECIMAL", "DOUBLE", "FLOAT", "INT", "SMALLINT", "TEXT",
	"TIMESTAMP", "TINYINT", "VARCHAR"}

// showWhats are the words after SHOW.
var showWhats = []string{"CHECKPOINTS", "CREATE", "FUNCTIONS", "MATERIALIZED", "QUERIES", "SINKS", "STREAMS", "TABLES"}

// objectKinds are the words after DROP and SHOW CREATE.
var objectKinds = []string{"MATERIALIZED", "SINK", "STREAM", "TABLE"}

// metaCommands are the shell's meta commands, as \help lists them.
var metaCommands = []string{`\?`, `\d`, `\format`, `\h`, `\help`, `\pager`, `\q`, `\quit`, `\timing`, `\x`}

// metaArgs are the arguments a meta command takes (\d takes names).
var metaArgs = map[string][]string{
	`\format`: {"csv", "json", "table"},
	`\pager`:  {"off", "on"},
	`\timing`: {"off", "on"},
	`\x`:      {"auto", "off", "on"},
}

// complete is liner's WordCompleter: line is the current line, pos the
// cursor; before holds the statement's earlier lines. It returns the
// text before the word, the candidates for it and the text after the
// cursor.
func (c *completer) complete(before, line string, pos int) (head string, items []string, tail string) {
	if pos > len(line) {
		pos = len(line)
	}
	start := wordStart(line, pos)
	if t := strings.TrimLeft(line[:pos], " \t"); before == "" && strings.HasPrefix(t, `\`) {
		if !strings.ContainsAny(t, " \t") {
			start = pos - len(t) // the command itself, with its backslash
		}
		return line[:start], oneMore(c.completeMeta(strings.Fields(line[:start]), line[start:pos])), line[pos:]
	}
	ctx := scanContext(before + line[:start])
	if ctx.inString {
		return line[:start], nil, line[pos:]
	}
	// Aliases may be defined after the cursor: SELECT p.| FROM person p.
	ctx.aliases = scanContext(before + line).aliases
	c.refresh()
	return line[:start], oneMore(c.candidates(ctx, line[start:pos])), line[pos:]
}

// oneMore adds a space after the only candidate, so that the next word can
// be typed at once, unless it ends a function's name with its "(".
func oneMore(items []string) []string {
	if len(items) == 1 && !strings.HasSuffix(items[0], "(") {
		items[0] += " "
	}
	return items
}

// completeMeta completes a meta command or its argument.
func (c *completer) completeMeta(done []string, word string) []string {
	if len(done) == 0 {
		return match(metaCommands, word, false)
	}
	cmd := done[0]
	if len(done) > 1 {
		return nil
	}
	if cmd == `\d` {
		c.refresh()
		return c.objectNames(word, nil)
	}
	return match(metaArgs[cmd], word, true)
}

// candidates returns the completions of word in the context ctx.
func (c *completer) candidates(ctx sqlContext, word string) []string {
	if ctx.qualifier != "" {
		return c.columnNames(word, []string{ctx.qualifier}, ctx)
	}
	prev, prev2 := ctx.last(1), ctx.last(2)
	switch {
	case len(ctx.words) == 0:
		return match(statementStarts, word, true)
	case ctx.first == "SET" && len(ctx.words) == 1:
		return match(engine.SettingNames(), word, true)
	case prev == "SHOW":
		return match(showWhats, word, true)
	case ctx.first == "DROP" && prev == "DROP":
		return match(objectKinds, word, true)
	case ctx.first == "SHOW" && prev == "CREATE":
		return append(match(objectKinds, word, true), c.objectNames(word, nil)...)
	case prev == "FROM" && (ctx.call() == "EXTRACT" || ctx.call() == "TRIM"):
		return c.columnNames(word, ctx.objects(c.names.Objects), ctx)
	case prev == "MATERIALIZED":
		return match([]string{"VIEW", "VIEWS"}, word, true)
	case ctx.first == "DROP" && prev == "IF":
		return match([]string{"EXISTS"}, word, true)
	case objectWord(ctx, prev, prev2):
		return c.objectNames(word, kindsAfter(ctx, prev))
	case prev == "(" && slices.Contains([]string{"TUMBLE", "HOP", "CUMULATE", "SESSION"}, prev2):
		return append(match([]string{"TABLE"}, word, true), c.objectNames(word, nil)...)
	}
	var out []string
	out = append(out, c.columnNames(word, ctx.objects(c.names.Objects), ctx)...)
	out = append(out, match(sqlKeywords, word, true)...)
	out = append(out, c.functionNames(word)...)
	if ctx.first == "SELECT" || ctx.first == "WITH" {
		out = append(out, c.objectNames(word, nil)...)
	}
	sortNames(out)
	return slices.Compact(out)
}

// sortNames sorts candidates by their text without quotes, ignoring case.
func sortNames(names []string) {
	key := func(s string) string { return strings.ToLower(strings.Trim(s, "`")) }
	slices.SortStableFunc(names, func(a, b string) int { return strings.Compare(key(a), key(b)) })
}

// objectWord reports whether the word after prev (and prev2 before it)
// names an object.
func objectWord(ctx sqlContext, prev, prev2 string) bool {
	switch prev {
	case "FROM", "JOIN", "INTO", "DESCRIBE", "ANALYZE":
		return true
	case "DESC":
		return len(ctx.words) == 1
	case "STREAM", "TABLE", "VIEW", "SINK":
		return ctx.first == "DROP" || ctx.first == "SHOW" || ctx.first == "ANALYZE" || prev == "TABLE" && prev2 == "("
	case "EXISTS":
		return ctx.first == "DROP"
	}
	return false
}

// kindsAfter returns the kinds of object the word after prev may name
// (nil: any).
func kindsAfter(ctx sqlContext, prev string) []string {
	kind := prev
	if prev == "EXISTS" { // DROP kind IF EXISTS name
		kind = ctx.last(3)
	}
	if ctx.first != "DROP" && ctx.first != "SHOW" {
		if ctx.first == "INSERT" && prev == "INTO" {
			return []string{"stream", "table"}
		}
		return nil
	}
	switch kind {
	case "STREAM":
		return []string{"stream"}
	case "TABLE":
		return []string{"table"}
	case "VIEW":
		return []string{"materialized view"}
	case "SINK":
		return []string{"sink"}
	}
	return nil
}

// objectNames returns the names of the objects of the given kinds (nil:
// all) that word begins.
func (c *completer) objectNames(word string, kinds []string) []string {
	var names []string
	for _, o := range c.names.Objects {
		if kinds == nil || slices.Contains(kinds, o.Kind) {
			names = append(names, o.Name)
		}
	}
	return matchNames(names, word)
}

// columnNames returns the columns word begins of the objects named (or
// aliased) in objs, or of every object when objs is empty or names none.
func (c *completer) columnNames(word string, objs []string, ctx sqlContext) []string {
	var cols []string
	found := false
	for _, name := range objs {
		if real, ok := ctx.aliases[strings.ToLower(name)]; ok {
			name = real
		}
		for _, o := range c.names.Objects {
			if strings.EqualFold(o.Name, name) {
				cols, found = append(cols, o.Columns...), true
			}
		}
	}
	if !found {
		for _, o := range c.names.Objects {
			cols = append(cols, o.Columns...)
		}
	}
	slices.Sort(cols)
	return matchNames(slices.Compact(cols), word)
}

// functionNames returns the functions word begins, each with its
// opening parenthesis.
func (c *completer) functionNames(word string) []string {
	out := match(c.names.Functions, word, true)
	for i := range out {
		out[i] += "("
	}
	return out
}

// match returns the words that start with prefix, ignoring case; with
// keyword set, in the case of the prefix (lower case when it has a lower
// case letter and no upper case one).
func match(words []string, prefix string, keyword bool) []string {
	lower := keyword && strings.ToLower(prefix) == prefix && strings.ToUpper(prefix) != prefix
	var out []string
	for _, w := range words {
		if len(w) >= len(prefix) && strings.EqualFold(w[:len(prefix)], prefix) {
			if lower {
				w = strings.ToLower(w)
			}
			out = append(out, w)
		}
	}
	return out
}

// matchNames returns the names word begins, ignoring case, written as
// they must be typed: quoted where they need it, or always when word
// starts with a backquote.
func matchNames(names []string, word string) []string {
	quoted := strings.HasPrefix(word, "`")
	prefix := strings.TrimPrefix(word, "`")
	var out []string
	for _, n := range names {
		if len(n) < len(prefix) || !strings.EqualFold(n[:len(prefix)], prefix) {
			continue
		}
		if quoted {
			out = append(out, "`"+strings.ReplaceAll(n, "`", "``")+"`")
		} else {
			out = append(out, sql.QuoteIdent(n))
		}
	}
	sortNames(out)
	return slices.Compact(out)
}

// wordStart returns where the word that ends at pos starts: after the
// last character that cannot be in a name, or at an unclosed backquote.
func wordStart(line string, pos int) int {
	if q := strings.LastIndexByte(line[:pos], '`'); q >= 0 && strings.Count(line[:pos], "`")%2 == 1 {
		return q
	}
	i := pos
	for i > 0 {
		r := rune(line[i-1])
		if r < 0x80 && !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$') {
			break
		}
		i--
	}
	return i
}
