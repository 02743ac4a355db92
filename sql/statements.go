package sql

// Statements cuts a script into its statements: the complete ones Split
// finds and, when the text does not end with one, its unfinished
// remainder as a last statement without its ';', as a script runner takes
// it. Each piece has its script position, so that a runner can parse the
// pieces one at a time with ParseOne (and run the statements before a bad
// one) while errors name the script's lines.
func Statements(text string) []Piece {
	sc := newScript(text, Pos{Line: 1, Col: 1})
	pieces, rest := splitScript(sc)
	if rest != "" {
		pieces = append(pieces, Piece{Text: rest, Start: sc.pos(len(text) - len(rest))})
	}
	return pieces
}
