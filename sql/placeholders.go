package sql

// Placeholders returns the byte offsets in text of its parameter markers:
// the '?' characters outside string literals, quoted identifiers and
// comments, in order. A MySQL client's prepared statement binds one value
// to each.
func Placeholders(text string) []int {
	var at []int
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '#' || (c == '-' && i+1 < len(text) && text[i+1] == '-'):
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			end := indexFrom(text, "*/", i+2)
			if end < 0 {
				return at
			}
			i = end + 2
		case c == '\'' || c == '"' || c == '`':
			end, _, ok := scanQuoted(text, i, len(text))
			if !ok {
				return at
			}
			i = end
		case c == '?':
			at = append(at, i)
			i++
		default:
			i++
		}
	}
	return at
}
