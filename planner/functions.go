package planner

import (
	"slices"
	"strings"

	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// FunctionKind says where a function is called.
type FunctionKind uint8

// The function kinds SHOW FUNCTIONS lists.
const (
	ScalarFunction    FunctionKind = iota + 1 // one value per row
	AggregateFunction                         // over the rows of a group (GROUP BY)
	WindowFunction                            // f(...) OVER (PARTITION BY ... ORDER BY ...)
	TableFunction                             // a window table function in FROM
)

// String returns the kind as SHOW FUNCTIONS prints it.
func (k FunctionKind) String() string {
	return [...]string{"", "scalar", "aggregate", "window", "table"}[k]
}

// Function is one function a query may call, for SHOW FUNCTIONS and the
// shell's completion.
type Function struct {
	Name      string // upper case, as SQL.md writes it
	Kind      FunctionKind
	Signature string // "SUBSTRING(s VARCHAR, pos BIGINT[, len BIGINT]) → VARCHAR"
	Volatile  bool   // may differ between two calls with the same arguments
}

// rowNumberFunc is the window function that binds as a RowNumber node (a
// Top-N under a rank filter); the others are winFuncs.
const rowNumberFunc = "row_number"

// specialForms are the scalar functions bindFunc binds itself, because
// their syntax is not a plain call (CAST(x AS type), EXTRACT(unit FROM t))
// or they are rewritten into other expressions (DATE_ADD). Those also in
// the registry (EXTRACT, TRIM) are listed with this syntax instead of the
// registry's calling convention. TestSpecialFormsMatchBindFunc keeps it in
// step with bindFunc's cases.
var specialForms = map[string]string{
	"cast":         "(x AS type) → type",
	"date_add":     "(t TIMESTAMP, INTERVAL n unit) → TIMESTAMP",
	"adddate":      "(t TIMESTAMP, INTERVAL n unit) → TIMESTAMP",
	"date_sub":     "(t TIMESTAMP, INTERVAL n unit) → TIMESTAMP",
	"subdate":      "(t TIMESTAMP, INTERVAL n unit) → TIMESTAMP",
	"timestampadd": "(unit, n BIGINT, t TIMESTAMP) → TIMESTAMP",
	"extract":      "(unit FROM t TIMESTAMP) → BIGINT",
	"trim":         "([BOTH | LEADING | TRAILING] [remove] FROM s VARCHAR) → VARCHAR",
}

// aggSigs are the arguments and results of the aggregate functions,
// whether over groups or over windows.
var aggSigs = map[plan.AggFunc]string{
	plan.AggCount:               "(* | [DISTINCT] x) → BIGINT",
	plan.AggSum:                 "([DISTINCT] x number) → BIGINT for integers, DECIMAL, else DOUBLE",
	plan.AggAvg:                 "([DISTINCT] x number) → DOUBLE",
	plan.AggMin:                 "([DISTINCT] x) → the type of x",
	plan.AggMax:                 "([DISTINCT] x) → the type of x",
	plan.AggApproxCountDistinct: "(x) → BIGINT",
}

// Functions returns every function eddy's queries can call, by name and
// then kind: the scalar functions of the registry (plan.Builtins) and the
// special forms the binder handles, the aggregate functions, the window
// functions (ROW_NUMBER, winFuncs and the aggregates over a window), and the window
// table functions of FROM (sql.WindowFunctions).
func Functions() []Function {
	var out []Function
	add := func(name string, kind FunctionKind, sig string, volatile bool) {
		up := strings.ToUpper(name)
		out = append(out, Function{Name: up, Kind: kind, Signature: up + sig, Volatile: volatile})
	}
	for _, b := range plan.Builtins() {
		if b.Unsupported {
			continue
		}
		sig := b.Sig
		if s, ok := specialForms[b.Name]; ok {
			sig = s
		}
		add(b.Name, ScalarFunction, sig, b.Volatile)
	}
	for name, sig := range specialForms {
		if _, ok := plan.LookupBuiltin(name); !ok {
			add(name, ScalarFunction, sig, false)
		}
	}
	for name, f := range aggFuncs {
		add(name, AggregateFunction, aggSigs[f], false)
		sig := strings.Replace(aggSigs[f], "[DISTINCT] ", "", 1)
		sig = strings.Replace(sig, " →", " OVER (...) →", 1)
		add(name, WindowFunction, sig, false)
	}
	for name, f := range groupOnlyAggs {
		add(name, AggregateFunction, aggSigs[f], false)
	}
	for name, sig := range scaledSigs {
		add(name, AggregateFunction, sig, false)
	}
	add(rowNumberFunc, WindowFunction, "() OVER ([PARTITION BY ...] ORDER BY ...) → BIGINT", false)
	for name, k := range winFuncs {
		add(name, WindowFunction, winFuncSigs[k], false)
	}
	for _, w := range sql.WindowFunctions() {
		out = append(out, Function{Name: w.Name, Kind: TableFunction, Signature: w.Signature})
	}
	slices.SortFunc(out, func(a, b Function) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return int(a.Kind) - int(b.Kind)
	})
	return out
}
