package jsonpath

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// legKind is what one step of a path selects.
type legKind uint8

const (
	member    legKind = iota // .name or ."name"
	anyMember                // .*
	index                    // [n], [last], [last-n]
	anyIndex                 // [*]
)

// leg is one step of a path.
type leg struct {
	kind     legKind
	name     string // member
	n        int    // index: n, or with fromLast, last - n
	fromLast bool
}

// Path is a compiled MySQL JSON path: $ then legs.
type Path struct {
	legs []leg
	text string
}

// String returns the path as written.
func (p Path) String() string { return p.text }

// Wildcard reports whether the path may select several values (.* or
// [*]): Extract then answers with an array of them.
func (p Path) Wildcard() bool {
	for _, l := range p.legs {
		if l.kind == anyMember || l.kind == anyIndex {
			return true
		}
	}
	return false
}

// PathError is a path that does not parse: Offset is the byte of the
// path where it goes wrong.
type PathError struct {
	Path   string
	Offset int
	Msg    string
}

func (e *PathError) Error() string {
	return fmt.Sprintf("invalid JSON path %s: %s at character %d", strconv.Quote(e.Path), e.Msg, e.Offset+1)
}

// Parse compiles a MySQL JSON path: $ followed by any of .name,
// ."quoted name", .*, [n], [last], [last-n] and [*]. The recursive
// wildcard ** and ranges ([1 to 3]) are not supported.
func Parse(s string) (Path, error) {
	p := Path{text: s}
	i := skipSpace(s, 0)
	fail := func(at int, format string, args ...any) (Path, error) {
		return Path{}, &PathError{Path: s, Offset: at, Msg: fmt.Sprintf(format, args...)}
	}
	if i >= len(s) || s[i] != '$' {
		return fail(i, "a path starts with $")
	}
	for i = skipSpace(s, i+1); i < len(s); i = skipSpace(s, i) {
		switch s[i] {
		case '.':
			i = skipSpace(s, i+1)
			switch {
			case i >= len(s):
				return fail(i, "a member name must follow '.'")
			case s[i] == '*':
				if i+1 < len(s) && s[i+1] == '*' {
					return fail(i, "the recursive wildcard ** is not supported yet")
				}
				p.legs = append(p.legs, leg{kind: anyMember})
				i++
			case s[i] == '"':
				name, end, ok := quotedName(s, i)
				if !ok {
					return fail(i, "unterminated or malformed quoted member name")
				}
				p.legs = append(p.legs, leg{kind: member, name: name})
				i = end
			default:
				start := i
				for i < len(s) && isNameByte(s, i) {
					_, w := utf8.DecodeRuneInString(s[i:])
					i += w
				}
				if i == start {
					return fail(i, "unexpected %q in a member name (quote it: .\"name\")", s[i])
				}
				p.legs = append(p.legs, leg{kind: member, name: s[start:i]})
			}
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return fail(i, "missing ']'")
			}
			l, err := parseIndex(strings.TrimSpace(s[i+1 : i+end]))
			if err != "" {
				return fail(i+1, "%s", err)
			}
			p.legs = append(p.legs, l)
			i += end + 1
		case '*':
			return fail(i, "the recursive wildcard ** is not supported yet")
		default:
			return fail(i, "expected '.' or '[', found %q", s[i])
		}
	}
	return p, nil
}

// parseIndex parses what is between [ and ].
func parseIndex(s string) (leg, string) {
	switch {
	case s == "*":
		return leg{kind: anyIndex}, ""
	case s == "last":
		return leg{kind: index, fromLast: true}, ""
	case strings.HasPrefix(s, "last"):
		rest := strings.TrimSpace(s[4:])
		if !strings.HasPrefix(rest, "-") {
			break
		}
		n, err := strconv.Atoi(strings.TrimSpace(rest[1:]))
		if err != nil || n < 0 {
			break
		}
		return leg{kind: index, n: n, fromLast: true}, ""
	case strings.Contains(s, " to "):
		return leg{}, "array ranges ([m to n]) are not supported yet"
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return leg{}, fmt.Sprintf("an array index is a number, *, last or last-N, not %q", s)
	}
	return leg{kind: index, n: n}, ""
}

// isNameByte reports whether the character at s[i] may be in an unquoted
// member name (an ECMAScript identifier's: letters, digits, _ and $).
func isNameByte(s string, i int) bool {
	c := s[i]
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf
}

// quotedName reads the JSON string at s[i] and returns it decoded and the
// offset after it.
func quotedName(s string, i int) (string, int, bool) {
	end, ok := scanString([]byte(s), i)
	if !ok {
		return "", 0, false
	}
	name, ok := appendUnquoted(nil, []byte(s[i:end]))
	return string(name), end, ok
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
