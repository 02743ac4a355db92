package difftest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
)

// funcRewrite translates a call from its (untranslated) arguments.
type funcRewrite func(tr *translator, args [][]token) (string, error)

// funcRewriteFor returns the translation of the scalar function name (lower
// case) when its SQLite spelling or meaning differs from eddy's. Each says
// in its comment why it is faithful, and what the corpus must avoid when it
// is faithful only in part. (A function rather than a map: the rewrites
// translate their arguments, which looks rewrites up again.)
func funcRewriteFor(name string) (funcRewrite, bool) {
	f, ok := map[string]funcRewrite{
		// CONCAT is NULL when any argument is; so is SQLite's ||
		// (SQLite's concat() skips NULLs instead).
		"concat": fixed(1, -1, func(a []string) string { return "(" + strings.Join(a, " || ") + ")" }),
		"if":     fixed(3, 3, func(a []string) string { return fmt.Sprintf("(CASE WHEN %s THEN %s ELSE %s END)", a[0], a[1], a[2]) }),
		// MOD follows the dividend's sign and is NULL for a zero divisor,
		// like SQLite's mod() (fmod); SQLite's % would truncate decimals.
		"mod": fixed(2, 2, func(a []string) string { return fmt.Sprintf("mod(%s, %s)", a[0], a[1]) }),
		// GREATEST and LEAST are NULL when any argument is, like SQLite's
		// multi-argument max() and min().
		"greatest": fixed(2, -1, func(a []string) string { return "max(" + strings.Join(a, ", ") + ")" }),
		"least":    fixed(2, -1, func(a []string) string { return "min(" + strings.Join(a, ", ") + ")" }),
		"ceiling":  fixed(1, 1, func(a []string) string { return "ceil(" + a[0] + ")" }),
		"pow":      fixed(2, 2, func(a []string) string { return "pow(" + a[0] + ", " + a[1] + ")" }),
		// LENGTH counts bytes in eddy (MySQL), characters in SQLite.
		"length":           fixed(1, 1, func(a []string) string { return "length(CAST(" + a[0] + " AS BLOB))" }),
		"char_length":      fixed(1, 1, func(a []string) string { return "length(" + a[0] + ")" }),
		"character_length": fixed(1, 1, func(a []string) string { return "length(" + a[0] + ")" }),
		"ucase":            fixed(1, 1, func(a []string) string { return "upper(" + a[0] + ")" }),
		"lcase":            fixed(1, 1, func(a []string) string { return "lower(" + a[0] + ")" }),
		"substring":        fixed(2, 3, substring),
		"substr":           fixed(2, 3, substring),
		// LEFT and RIGHT take no characters for a count <= 0.
		"left": fixed(2, 2, func(a []string) string { return fmt.Sprintf("substr(%s, 1, max(%s, 0))", a[0], a[1]) }),
		"right": fixed(2, 2, func(a []string) string {
			return fmt.Sprintf("(CASE WHEN %[2]s <= 0 THEN substr(%[1]s, 1, 0) ELSE substr(%[1]s, -min(%[2]s, length(%[1]s))) END)", a[0], a[1])
		}),
		"lpad":   fixed(3, 3, func(a []string) string { return pad(a, true) }),
		"rpad":   fixed(3, 3, func(a []string) string { return pad(a, false) }),
		"locate": fixed(2, 3, locate),
		// DATE is midnight of the day, in milliseconds like every time.
		"date":           fixed(1, 1, func(a []string) string { return floorTo(a[0], types.MsPerDay) }),
		"unix_timestamp": fixed(1, 1, func(a []string) string { return seconds(a[0]) }),
		"from_unixtime":  fixed(1, 1, func(a []string) string { return "((" + a[0] + ") * 1000)" }),
		"date_format":    dateFormat,
		"date_add":       fixed(2, 2, func(a []string) string { return "(" + a[0] + " + " + a[1] + ")" }),
		"adddate":        fixed(2, 2, func(a []string) string { return "(" + a[0] + " + " + a[1] + ")" }),
		"date_sub":       fixed(2, 2, func(a []string) string { return "(" + a[0] + " - " + a[1] + ")" }),
		"subdate":        fixed(2, 2, func(a []string) string { return "(" + a[0] + " - " + a[1] + ")" }),
		"extract":        extract,
		"cast":           cast,
		"trim":           trimFunc,
		"position":       position,
	}[name]
	return f, ok
}

// fixed returns a rewrite of a call with lo to hi (-1: any) arguments,
// translated before f combines them.
func fixed(lo, hi int, f func(args []string) string) funcRewrite {
	return func(tr *translator, args [][]token) (string, error) {
		if len(args) < lo || hi >= 0 && len(args) > hi {
			return "", fmt.Errorf("expected %d to %d arguments, got %d", lo, hi, len(args))
		}
		a, err := tr.args(args)
		if err != nil {
			return "", err
		}
		return f(a), nil
	}
}

// substring translates SUBSTRING(s, p[, n]). Positions count characters in
// both, and a negative p counts from the end in both; MySQL returns ”
// where SQLite would not: for p = 0, for p before the start, and for n < 1.
func substring(a []string) string {
	s, p := a[0], a[1]
	cond := fmt.Sprintf("%[1]s = 0 OR -%[1]s > length(%[2]s)", p, s)
	call := fmt.Sprintf("substr(%s, %s)", s, p)
	if len(a) == 3 {
		cond += " OR " + a[2] + " < 1"
		call = fmt.Sprintf("substr(%s, %s, %s)", s, p, a[2])
	}
	return fmt.Sprintf("(CASE WHEN %s THEN substr(%s, 1, 0) ELSE %s END)", cond, s, call)
}

// locate translates LOCATE(sub, s[, pos]): the 1-based position of sub in
// s at or after pos, 0 when absent (also for pos < 1), NULL when any
// argument is NULL.
func locate(a []string) string {
	if len(a) == 2 {
		return fmt.Sprintf("instr(%s, %s)", a[1], a[0])
	}
	sub, s, pos := a[0], a[1], a[2]
	found := fmt.Sprintf("instr(substr(%s, %s), %s)", s, pos, sub)
	return fmt.Sprintf("(CASE WHEN %[1]s < 1 THEN instr(%[2]s, %[3]s) * 0 WHEN %[4]s = 0 THEN 0 ELSE %[4]s + %[1]s - 1 END)",
		pos, s, sub, found)
}

// pad translates LPAD and RPAD: NULL for a negative length, a longer
// string cut to the length, otherwise the pad string repeated and cut to
// fill. The repetition is replace(hex(zeroblob(n)), '00', p): n copies.
func pad(a []string, left bool) string {
	s, n, p := a[0], a[1], a[2]
	fill := fmt.Sprintf("substr(replace(hex(zeroblob(%[2]s)), '00', %[3]s), 1, %[2]s - length(%[1]s))", s, n, p)
	body := s + " || " + fill
	if left {
		body = fill + " || " + s
	}
	return fmt.Sprintf("(CASE WHEN %[2]s < 0 THEN NULL WHEN length(%[1]s) >= %[2]s THEN substr(%[1]s, 1, %[2]s) ELSE %[3]s END)", s, n, body)
}

// extractUnits maps an EXTRACT unit to SQLite text over whole seconds
// (%[1]s) and milliseconds (%[2]s). DOW numbers days from 1 (Sunday) as
// eddy does; MILLISECOND includes the seconds.
var extractUnits = map[string]string{
	"YEAR":        "CAST(strftime('%%Y', %[1]s, 'unixepoch') AS INTEGER)",
	"QUARTER":     "((CAST(strftime('%%m', %[1]s, 'unixepoch') AS INTEGER) + 2) / 3)",
	"MONTH":       "CAST(strftime('%%m', %[1]s, 'unixepoch') AS INTEGER)",
	"DAY":         "CAST(strftime('%%d', %[1]s, 'unixepoch') AS INTEGER)",
	"HOUR":        "CAST(strftime('%%H', %[1]s, 'unixepoch') AS INTEGER)",
	"MINUTE":      "CAST(strftime('%%M', %[1]s, 'unixepoch') AS INTEGER)",
	"SECOND":      "CAST(strftime('%%S', %[1]s, 'unixepoch') AS INTEGER)",
	"MILLISECOND": "(CAST(strftime('%%S', %[1]s, 'unixepoch') AS INTEGER) * 1000 + %[3]s)",
	"DOW":         "(CAST(strftime('%%w', %[1]s, 'unixepoch') AS INTEGER) + 1)",
	"DAYOFWEEK":   "(CAST(strftime('%%w', %[1]s, 'unixepoch') AS INTEGER) + 1)",
	"DOY":         "CAST(strftime('%%j', %[1]s, 'unixepoch') AS INTEGER)",
	"DAYOFYEAR":   "CAST(strftime('%%j', %[1]s, 'unixepoch') AS INTEGER)",
	"EPOCH":       "%[1]s",
}

// extract translates EXTRACT(unit FROM x).
func extract(tr *translator, args [][]token) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("expected EXTRACT(unit FROM value)")
	}
	head, value, ok := cut(args[0], "FROM")
	if !ok {
		return "", fmt.Errorf("expected EXTRACT(unit FROM value)")
	}
	unit := strings.ToUpper(text(head))
	tmpl, ok := extractUnits[unit]
	if !ok {
		return "", fmt.Errorf("unit %s is not translated", unit)
	}
	x, err := tr.seq(value)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(tmpl, seconds(x), x, floorMod(x, 1000)), nil
}

// dateFormats maps the MySQL DATE_FORMAT specifiers the translator knows to
// SQLite strftime's. MySQL's %e and %k are not padded, SQLite's are (with
// a space): they are printed as integers instead (see dateFormat).
var dateFormats = map[byte]string{
	'Y': "%Y", 'm': "%m", 'd': "%d", 'H': "%H", 'i': "%M", 's': "%S", 'S': "%S",
	'j': "%j", 'T': "%H:%M:%S", '%': "%%", 'e': "%d", 'k': "%H",
}

// dateFormat translates DATE_FORMAT(x, 'format') for the specifiers of
// dateFormats into a concatenation of strftime calls.
func dateFormat(tr *translator, args [][]token) (string, error) {
	if len(args) != 2 {
		return "", fmt.Errorf("expected 2 arguments")
	}
	f := trim(args[1])
	if len(f) != 1 || f[0].kind != tString {
		return "", fmt.Errorf("the format must be a string literal")
	}
	x, err := tr.seq(trim(args[0]))
	if err != nil {
		return "", err
	}
	var parts []string
	var b strings.Builder
	strftime := func(format string) string {
		return fmt.Sprintf("strftime('%s', %s, 'unixepoch')", format, seconds(x))
	}
	spec := f[0].str()
	for i := 0; i < len(spec); i++ {
		if spec[i] != '%' {
			b.WriteString(strings.ReplaceAll(string(spec[i]), "'", "''"))
			continue
		}
		i++
		if i >= len(spec) {
			return "", fmt.Errorf("format ends in %%")
		}
		s, ok := dateFormats[spec[i]]
		if !ok {
			return "", fmt.Errorf("specifier %%%c is not translated", spec[i])
		}
		if spec[i] == 'e' || spec[i] == 'k' {
			if b.Len() > 0 {
				parts = append(parts, strftime(b.String()))
				b.Reset()
			}
			parts = append(parts, "CAST(CAST("+strftime(s)+" AS INTEGER) AS TEXT)")
			continue
		}
		b.WriteString(s)
	}
	if b.Len() > 0 || len(parts) == 0 {
		parts = append(parts, strftime(b.String()))
	}
	return "(" + strings.Join(parts, " || ") + ")", nil
}

// castType matches the type of a CAST.
var castType = regexp.MustCompile(`(?i)^\s*(\w+)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*$`)

// cast translates CAST(x AS type). To an integer, MySQL rounds half away
// from zero where SQLite truncates, so the value is ROUNDed first (exact
// for the corpus' magnitudes). To DECIMAL(p,s), the REAL is rounded to s
// places (the corpus avoids ties). To DATE, midnight. Casting non-integer
// values to VARCHAR is not faithful (eddy prints decimals at their scale
// and times as text) and the corpus avoids it.
func cast(tr *translator, args [][]token) (string, error) {
	a := trim(args[0])
	as := -1
	for i, t := range a {
		if t.is("AS") {
			as = i
		}
	}
	if len(args) != 1 || as < 0 {
		return "", fmt.Errorf("expected CAST(value AS type)")
	}
	x, err := tr.seq(trim(a[:as]))
	if err != nil {
		return "", err
	}
	m := castType.FindStringSubmatch(text(a[as+1:]))
	if m == nil {
		return "", fmt.Errorf("unknown type %q", text(a[as+1:]))
	}
	switch strings.ToUpper(m[1]) {
	case "BIGINT", "INT", "INTEGER", "SMALLINT", "TINYINT", "SIGNED":
		return "CAST(round(" + x + ") AS INTEGER)", nil
	case "DOUBLE", "FLOAT", "REAL":
		return "CAST(" + x + " AS REAL)", nil
	case "DECIMAL":
		scale := m[3]
		if scale == "" {
			scale = "0"
		}
		return "round(" + x + ", " + scale + ")", nil
	case "VARCHAR", "CHAR", "TEXT":
		return "CAST(" + x + " AS TEXT)", nil
	case "DATE":
		return floorTo(x, types.MsPerDay), nil
	case "TIMESTAMP", "DATETIME":
		return x, nil
	case "BOOLEAN", "BOOL":
		return "((" + x + ") <> 0)", nil
	}
	return "", fmt.Errorf("type %s is not translated", m[1])
}

// trimFunc translates TRIM(s) and TRIM([BOTH|LEADING|TRAILING] [r] FROM s)
// when r is one character: MySQL removes whole copies of r, SQLite every
// character of a set, which agree for one character.
func trimFunc(tr *translator, args [][]token) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("expected one argument")
	}
	head, value, ok := cut(args[0], "FROM")
	if !ok {
		x, err := tr.seq(trim(args[0]))
		return "trim(" + x + ")", err
	}
	fn := "trim"
	if len(head) > 0 && head[0].kind == tIdent {
		switch strings.ToUpper(head[0].text) {
		case "LEADING":
			fn = "ltrim"
		case "TRAILING":
			fn = "rtrim"
		}
		head = trim(head[1:])
	}
	remove := "' '"
	if len(head) > 0 {
		if len(head) != 1 || head[0].kind != tString || len(head[0].str()) != 1 {
			return "", fmt.Errorf("only a one-character string to remove is translated")
		}
		remove = head[0].text
	}
	x, err := tr.seq(value)
	return fn + "(" + x + ", " + remove + ")", err
}

// position translates POSITION(sub IN s) into instr(s, sub).
func position(tr *translator, args [][]token) (string, error) {
	subText, sText, ok := cut(args[0], "IN")
	if !ok {
		return "", fmt.Errorf("expected POSITION(substring IN string)")
	}
	sub, err := tr.seq(subText)
	if err != nil {
		return "", err
	}
	s, err := tr.seq(sText)
	return "instr(" + s + ", " + sub + ")", err
}
