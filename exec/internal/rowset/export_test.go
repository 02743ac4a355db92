package rowset

// SetRenumberAt makes sets renumber themselves once they have n segments
// (see renumberAt), and returns a function that restores the threshold.
func SetRenumberAt(n int) (restore func()) {
	old := renumberAt
	renumberAt = n
	return func() { renumberAt = old }
}
