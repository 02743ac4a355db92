package plan

import "github.com/eddysql/eddy/catalog/types"

// WinFuncKind is a window function that is not an aggregate: a ranking
// function, an offset function (LAG, LEAD) or a value function
// (FIRST_VALUE, LAST_VALUE, NTH_VALUE).
type WinFuncKind uint8

// The window functions an OverAggregate computes besides aggregates.
const (
	WinRowNumber   WinFuncKind = iota + 1 // ROW_NUMBER(): the row's position, from 1
	WinRank                               // RANK(): 1 + the rows before its peers
	WinDenseRank                          // DENSE_RANK(): 1 + the peer groups before its own
	WinPercentRank                        // PERCENT_RANK(): (RANK - 1) / (rows - 1), 0 alone
	WinCumeDist                           // CUME_DIST(): (rows up to its last peer) / rows
	WinNtile                              // NTILE(N): its bucket of N nearly equal ones, from 1
	WinLag                                // LAG(x, N, d): x of the row N before, else d
	WinLead                               // LEAD(x, N, d): x of the row N after, else d
	WinFirstValue                         // FIRST_VALUE(x): x of the frame's first row
	WinLastValue                          // LAST_VALUE(x): x of the frame's last row
	WinNthValue                           // NTH_VALUE(x, N): x of the frame's N-th row
)

var winFuncNames = [...]string{
	WinRowNumber: "ROW_NUMBER", WinRank: "RANK", WinDenseRank: "DENSE_RANK", WinPercentRank: "PERCENT_RANK",
	WinCumeDist: "CUME_DIST", WinNtile: "NTILE", WinLag: "LAG", WinLead: "LEAD",
	WinFirstValue: "FIRST_VALUE", WinLastValue: "LAST_VALUE", WinNthValue: "NTH_VALUE",
}

// String returns the function's SQL name.
func (k WinFuncKind) String() string { return winFuncNames[k] }

// UsesFrame reports whether the function reads its window's frame; the
// ranking and offset functions ignore it, as SQL says.
func (k WinFuncKind) UsesFrame() bool {
	return k == WinFirstValue || k == WinLastValue || k == WinNthValue
}

// WinFunc is one window function computed by an OverAggregate.
type WinFunc struct {
	Kind WinFuncKind
	// Arg is the argument column of the offset and value functions (0 for
	// the ranking functions).
	Arg ColumnID
	// N is LAG's and LEAD's offset, NTILE's bucket count and NTH_VALUE's
	// position: a constant of at least 1 (0 for LAG and LEAD's current
	// row).
	N int64
	// Default is the column of LAG's and LEAD's default, read from the
	// current row when no row lies N away; 0 for NULL.
	Default ColumnID
	// Out is the column the result is written to.
	Out ColumnID
	Typ types.T
	// Text is the call as written, for display.
	Text string
}

// WinFuncNullable reports whether k's result can be NULL: the ranking
// functions never are.
func WinFuncNullable(k WinFuncKind) bool { return k >= WinLag }

// withFuncOutputs appends the output column of each of fs to cols.
func withFuncOutputs(cols ColList, fs []WinFunc) ColList {
	for _, f := range fs {
		cols = append(cols, f.Out)
	}
	return cols
}

// funcsText renders the window functions as a list of "call AS name".
func funcsText(md *Metadata, fs []WinFunc) string {
	return AliasList(len(fs), func(i int) (string, string) { return fs[i].Text, md.Column(fs[i].Out).Name })
}
