package expr

import (
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// fmtTok is one element of a parsed date format: a literal, or a field
// named by a MySQL DATE_FORMAT specifier letter ('z' is milliseconds,
// which only TO_CHAR has).
type fmtTok struct {
	field byte // 0 for a literal
	lit   string
	cas   byte // names: 'U' upper case, 'L' lower case, 0 as spelled (Capitalized)
}

// fmtParser collects the tokens of a format: its fields, and the literal
// text between them.
type fmtParser struct {
	toks []fmtTok
	lit  []byte // the literal text since the last field
}

// field appends a field, after the literal text before it.
func (p *fmtParser) field(t fmtTok) {
	p.flush()
	p.toks = append(p.toks, t)
}

// flush appends the pending literal text, if any, as one token.
func (p *fmtParser) flush() {
	if len(p.lit) > 0 {
		p.toks = append(p.toks, fmtTok{lit: string(p.lit)})
		p.lit = p.lit[:0]
	}
}

// done returns the tokens, the trailing literal text included.
func (p *fmtParser) done() []fmtTok {
	p.flush()
	return p.toks
}

// parseDateFormat parses a MySQL DATE_FORMAT string. An unknown specifier
// prints its letter; a trailing % prints itself.
func parseDateFormat(f string) []fmtTok {
	var p fmtParser
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			p.lit = append(p.lit, f[i])
			continue
		}
		i++
		switch c := f[i]; c {
		case 'Y', 'y', 'm', 'c', 'd', 'e', 'D', 'H', 'k', 'h', 'I', 'l', 'i', 's', 'S', 'f', 'p', 'M', 'b', 'W', 'a', 'w', 'j', 'T', 'r':
			p.field(fmtTok{field: c})
		default:
			p.lit = append(p.lit, c) // %% and unknown specifiers print the character
		}
	}
	return p.done()
}

// pgPatterns are TO_CHAR's template patterns, longest first, and the
// fields they print.
var pgPatterns = []struct {
	pat   string
	field byte
}{
	{"YYYY", 'Y'}, {"HH24", 'H'}, {"HH12", 'h'}, {"HH", 'h'}, {"MONTH", 'M'}, {"MON", 'b'},
	{"MM", 'm'}, {"DAY", 'W'}, {"DDD", 'j'}, {"DD", 'd'}, {"DY", 'a'}, {"MI", 'i'},
	{"SS", 's'}, {"MS", 'z'}, {"AM", 'p'}, {"PM", 'p'},
}

// parseToChar parses a PostgreSQL TO_CHAR template: YYYY MM DD DDD (day of
// the year) HH24 HH12 HH (12-hour) MI SS MS, AM/PM, and the names Month,
// Mon, Day, Dy, whose case follows the pattern's (MON → MAR, Mon → Mar,
// mon → mar). Patterns match in either case; text in double quotes and any
// other character print as is.
func parseToChar(f string) []fmtTok {
	var p fmtParser
next:
	for i := 0; i < len(f); {
		if f[i] == '"' {
			j := strings.IndexByte(f[i+1:], '"')
			if j < 0 {
				j = len(f) - i - 1
			}
			p.lit = append(p.lit, f[i+1:i+1+j]...)
			i += j + 2
			continue
		}
		for _, pat := range pgPatterns {
			if len(f)-i >= len(pat.pat) && strings.EqualFold(f[i:i+len(pat.pat)], pat.pat) {
				p.field(fmtTok{field: pat.field, cas: patternCase(f[i : i+len(pat.pat)])})
				i += len(pat.pat)
				continue next
			}
		}
		p.lit = append(p.lit, f[i])
		i++
	}
	return p.done()
}

// patternCase tells how a TO_CHAR name pattern wants its name cased: all
// upper (MON), all lower (mon), or as spelled (Mon).
func patternCase(pat string) byte {
	switch {
	case len(pat) > 1 && pat[0] >= 'a' && pat[0] <= 'z':
		return 'L'
	case len(pat) > 1 && pat[1] >= 'A' && pat[1] <= 'Z':
		return 'U'
	}
	return 0
}

// appendCased appends name cased as cas says.
func appendCased(d []byte, name string, cas byte) []byte {
	switch cas {
	case 'U':
		return append(d, strings.ToUpper(name)...)
	case 'L':
		return append(d, strings.ToLower(name)...)
	}
	return append(d, name...)
}

// daySuffix is the English ordinal suffix of a day of the month (MySQL %D).
func daySuffix(day int) string {
	switch {
	case day >= 11 && day <= 13:
		return "th"
	case day%10 == 1:
		return "st"
	case day%10 == 2:
		return "nd"
	case day%10 == 3:
		return "rd"
	}
	return "th"
}

var (
	monthNames = [...]string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
	dayNames = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
)

// appendPadded appends v with at least width digits.
func appendPadded(d []byte, v int64, width int) []byte {
	if v < 0 {
		d = append(d, '-')
		v = -v
	}
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for k := len(s); k < width; k++ {
		d = append(d, '0')
	}
	return append(d, s...)
}

// appendClock appends hh:mm:ss.
func appendClock(d []byte, h, m, s int) []byte {
	d = append(appendPadded(d, int64(h), 2), ':')
	d = append(appendPadded(d, int64(m), 2), ':')
	return appendPadded(d, int64(s), 2)
}

// appendFormatted appends the timestamp ms formatted by toks.
func appendFormatted(d []byte, toks []fmtTok, ms int64) []byte {
	f := split(ms)
	h12 := f.hour % 12
	if h12 == 0 {
		h12 = 12
	}
	ampm := "AM"
	if f.hour >= 12 {
		ampm = "PM"
	}
	for _, t := range toks {
		switch t.field {
		case 0:
			d = append(d, t.lit...)
		case 'Y':
			d = appendPadded(d, f.year, 4)
		case 'y':
			d = appendPadded(d, floorMod(f.year, 100), 2)
		case 'm':
			d = appendPadded(d, int64(f.month), 2)
		case 'c':
			d = appendPadded(d, int64(f.month), 1)
		case 'd':
			d = appendPadded(d, int64(f.day), 2)
		case 'e':
			d = appendPadded(d, int64(f.day), 1)
		case 'H':
			d = appendPadded(d, int64(f.hour), 2)
		case 'k':
			d = appendPadded(d, int64(f.hour), 1)
		case 'h', 'I':
			d = appendPadded(d, int64(h12), 2)
		case 'l':
			d = appendPadded(d, int64(h12), 1)
		case 'i':
			d = appendPadded(d, int64(f.min), 2)
		case 's', 'S':
			d = appendPadded(d, int64(f.sec), 2)
		case 'f':
			d = appendPadded(d, int64(f.ms)*1000, 6)
		case 'z':
			d = appendPadded(d, int64(f.ms), 3)
		case 'D':
			d = append(appendPadded(d, int64(f.day), 1), daySuffix(f.day)...)
		case 'w':
			d = appendPadded(d, int64(f.weekday()), 1)
		case 'p':
			d = appendCased(d, ampm, t.cas)
		case 'M':
			d = appendCased(d, monthNames[f.month-1], t.cas)
		case 'b':
			d = appendCased(d, monthNames[f.month-1][:3], t.cas)
		case 'W':
			d = appendCased(d, dayNames[f.weekday()], t.cas)
		case 'a':
			d = appendCased(d, dayNames[f.weekday()][:3], t.cas)
		case 'j':
			d = appendPadded(d, int64(f.yearDay()), 3)
		case 'T':
			d = appendClock(d, f.hour, f.min, f.sec)
		case 'r':
			d = append(append(appendClock(d, h12, f.min, f.sec), ' '), ampm...)
		}
	}
	return d
}

// formatUnit returns the span of time, in milliseconds, within which
// every timestamp prints the same by toks: a millisecond for a format
// with fractions of seconds, a second, a minute or an hour for one whose
// finest field is that, and a day for a date (a month and a year are
// whole days).
func formatUnit(toks []fmtTok) int64 {
	unit := int64(86_400_000)
	for _, t := range toks {
		switch t.field {
		case 'f', 'z':
			unit = 1
		case 's', 'S', 'T', 'r':
			unit = min(unit, 1000)
		case 'i':
			unit = min(unit, 60_000)
		case 'H', 'k', 'h', 'I', 'l', 'p':
			unit = min(unit, 3_600_000)
		}
	}
	return unit
}

// buildFormat compiles DATE_FORMAT(ts, fmt) (MySQL specifiers) or, with
// pg, TO_CHAR(ts, fmt) (PostgreSQL patterns). A constant format is parsed
// once; a varying one when it changes.
func buildFormat(pg bool) funcBuilder {
	return strict(func(e *plan.Func) (kernel, error) {
		parse := parseDateFormat
		if pg {
			parse = parseToChar
		}
		var toks []fmtTok
		fixed := false
		if d, ok := constArg(e, 1); ok {
			toks, fixed = parse(d.S), true
		}
		lastSrc := ""
		unit := formatUnit(toks)
		return func(in []*vector, n int, out *result) error {
			out.strings(n, n*20)
			// A row whose timestamp falls in the same unit of the format
			// (the same day for '%Y-%m-%d') as the last formatted one
			// repeats its text: a stream's timestamps come nearly in
			// order, and most rows of a batch share their day or minute.
			last, lastFrom, lastTo := int64(0), -1, -1
			for i := 0; i < n; i++ {
				if !out.isValid(i) {
					out.appendStr("")
					continue
				}
				if !fixed {
					if src := in[1].str(i); toks == nil || src != lastSrc {
						toks, lastSrc = parse(src), strings.Clone(src)
						unit, lastFrom = formatUnit(toks), -1
					}
				}
				ms := in[0].int64At(i)
				if k := floorDiv(ms, unit); lastFrom >= 0 && k == last {
					out.buf.data = append(out.buf.data, out.buf.data[lastFrom:lastTo]...)
				} else {
					last, lastFrom = k, len(out.buf.data)
					out.buf.data = appendFormatted(out.buf.data, toks, ms)
					lastTo = len(out.buf.data)
				}
				out.buf.offs = append(out.buf.offs, int32(len(out.buf.data)))
			}
			out.finishStrings()
			return nil
		}, nil
	}, types.PhysTimestamp, types.PhysString)
}
