package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
)

// ErrNotSupported marks features eddy does not implement; errors wrapping it
// read "not supported yet: X".
var ErrNotSupported = errors.New("not supported yet")

// Builtin describes a scalar built-in function: its arity and its typing
// rule. The binder uses it to type calls and insert argument casts; the
// kernels in exec/expr implement each Name.
type Builtin struct {
	Name             string // lower case
	MinArgs, MaxArgs int    // MaxArgs -1 = variadic
	// Resolve checks the argument types and returns the types the binder
	// must cast each argument to, the result type, and whether the result
	// can be NULL given which arguments can be NULL.
	Resolve func(args []types.T, argNullable []bool) (want []types.T, ret types.T, nullable bool, err error)
	// Volatile marks a function whose value may differ between two calls
	// with the same arguments (NOW(), PROCTIME(), RAND(), UUID()). A
	// volatile call is evaluated once where its row is produced and its
	// value then travels as data: rewrites must never fold, duplicate,
	// share or re-evaluate it (IsVolatile).
	Volatile bool
	// Sig is the call's arguments and result for people, as SHOW FUNCTIONS
	// lists them: "(s VARCHAR, pos BIGINT[, len BIGINT]) → VARCHAR", with
	// optional arguments in brackets and "..." for more of the last one.
	// Its arguments agree with MinArgs and MaxArgs (SigArity).
	Sig string
	// Unsupported marks a name registered only to say "not supported yet"
	// (CURDATE(): non-deterministic): no call of it binds.
	Unsupported bool
}

// IsVolatile reports whether e calls a volatile built-in function.
func IsVolatile(e Expr) bool {
	volatile := false
	Walk(e, func(x Expr) bool {
		if f, ok := x.(*Func); ok && isVolatileName(f.Name) {
			volatile = true
		}
		return !volatile
	})
	return volatile
}

// isVolatileName reports whether the built-in function name is volatile.
func isVolatileName(name string) bool {
	b, ok := builtins[name]
	return ok && b.Volatile
}

// LookupBuiltin returns the built-in function called name (any case).
func LookupBuiltin(name string) (*Builtin, bool) {
	b, ok := builtins[strings.ToLower(name)]
	return b, ok
}

// Builtins returns every built-in function, sorted by name.
func Builtins() []*Builtin {
	out := make([]*Builtin, 0, len(builtins))
	for _, b := range builtins {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b *Builtin) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// resolveRule is the signature of Builtin.Resolve.
type resolveRule = func(args []types.T, argNullable []bool) ([]types.T, types.T, bool, error)

// argRule maps an argument's type to the type the kernel wants, or fails.
type argRule func(t types.T) (types.T, bool)

func argsAnyNull(ns []bool) bool { return slices.Contains(ns, true) }

// strictRule returns a rule for a function that is NULL when any argument
// is NULL: argument i is converted by rules[i] (the last rule repeats).
func strictRule(ret types.T, rules ...argRule) resolveRule {
	return typedRule(func([]types.T) types.T { return ret }, false, rules...)
}

// typedRule is strictRule with a result type computed from the wanted
// argument types; alwaysNull marks functions that can be NULL on non-NULL
// input.
func typedRule(ret func(want []types.T) types.T, alwaysNull bool, rules ...argRule) resolveRule {
	return func(args []types.T, nulls []bool) ([]types.T, types.T, bool, error) {
		want := make([]types.T, len(args))
		for i, a := range args {
			r := rules[min(i, len(rules)-1)]
			w, ok := r(a)
			if !ok {
				return nil, types.UnknownT, false, fmt.Errorf("argument %d has unsupported type %s", i+1, a)
			}
			want[i] = w
		}
		return want, ret(want), alwaysNull || argsAnyNull(nulls), nil
	}
}

// Argument rules.

// Argument rules: argVarchar converts anything to VARCHAR; argInteger
// takes numbers, booleans and strings as BIGINT; argDouble as DOUBLE.

func argVarchar(t types.T) (types.T, bool) { return types.VarcharT, t.Kind != types.Unknown }

// argJSONText keeps a JSON value and takes anything else as its text.
func argJSONText(t types.T) (types.T, bool) {
	if t.Kind == types.JSON {
		return t, true
	}
	return argVarchar(t)
}

func argInteger(t types.T) (types.T, bool) {
	switch {
	case t.IsNumeric(), t.Kind == types.Boolean, t.Kind == types.Varchar, t.Kind == types.Null:
		return types.BigIntT, true
	}
	return types.UnknownT, false
}

func argDouble(t types.T) (types.T, bool) {
	_, ok := argInteger(t)
	return types.DoubleT, ok
}

// argNumber keeps integer, decimal and floating-point types; other
// convertible types become BIGINT (BOOLEAN, NULL) or DOUBLE (VARCHAR).
func argNumber(t types.T) (types.T, bool) {
	switch {
	case t.IsNumeric():
		return t, true
	case t.Kind == types.Boolean, t.Kind == types.Null:
		return types.BigIntT, true
	case t.Kind == types.Varchar:
		return types.DoubleT, true
	}
	return types.UnknownT, false
}

// argTimestamp keeps TIMESTAMP(fsp); DATE becomes TIMESTAMP(0) and VARCHAR
// TIMESTAMP(3) (strings may carry milliseconds).
func argTimestamp(t types.T) (types.T, bool) {
	switch t.Kind {
	case types.Timestamp:
		return t, true
	case types.Date, types.Null:
		return types.TimestampT(0), true
	case types.Varchar:
		return types.TimestampT(types.MaxFsp), true
	}
	return types.UnknownT, false
}

// argDateOrTimestamp keeps DATE and TIMESTAMP and parses strings as timestamps.
func argDateOrTimestamp(t types.T) (types.T, bool) {
	if t.Kind == types.Date {
		return t, true
	}
	return argTimestamp(t)
}

// commonRule resolves a function whose arguments share one common type,
// which is also the result type.
func commonRule(nullable func(ns []bool) bool) resolveRule {
	return func(args []types.T, nulls []bool) ([]types.T, types.T, bool, error) {
		t := types.NullT
		for _, a := range args {
			c, err := CommonType(t, a)
			if err != nil {
				return nil, types.UnknownT, false, err
			}
			t = c
		}
		if t.Kind == types.Null {
			t = types.VarcharT // every argument is an untyped NULL
		}
		want := make([]types.T, len(args))
		for i := range want {
			want[i] = t
		}
		return want, t, nullable(nulls), nil
	}
}

func argsAllNull(ns []bool) bool {
	for _, n := range ns {
		if !n {
			return false
		}
	}
	return true
}

// numericCommonRule is commonRule restricted to numbers (MOD).
func numericCommonRule(args []types.T, nulls []bool) ([]types.T, types.T, bool, error) {
	args = slices.Clone(args)
	for i, a := range args {
		w, ok := argNumber(a)
		if !ok {
			return nil, types.UnknownT, false, fmt.Errorf("argument %d has unsupported type %s", i+1, a)
		}
		args[i] = w
	}
	want, t, _, err := commonRule(argsAnyNull)(args, nulls)
	if t.IsInteger() {
		t = types.BigIntT
		for i := range want {
			want[i] = t
		}
	}
	return want, t, true, err
}

// integerDigits is how many decimal digits an integer type needs.
func integerDigits(k types.Kind) int {
	switch k {
	case types.Boolean:
		return 1
	case types.TinyInt:
		return 3
	case types.SmallInt:
		return 5
	case types.Int:
		return 10
	}
	return 19
}

// CommonType returns the type two values are converted to when one
// expression may yield either (COALESCE, CASE, GREATEST, comparisons):
// NULL adapts to the other type; integers widen to BIGINT, to DECIMAL with
// enough integer digits, or to DOUBLE; DATE widens to TIMESTAMP; anything
// meets VARCHAR as VARCHAR.
func CommonType(a, b types.T) (types.T, error) {
	switch {
	case a == b:
		return a, nil
	case a.Kind == types.Null:
		return b, nil
	case b.Kind == types.Null:
		return a, nil
	case a.Kind == b.Kind && a.Kind == types.Timestamp:
		return types.TimestampT(int(max(a.Fsp, b.Fsp))), nil
	case a.Kind == types.Varchar || b.Kind == types.Varchar:
		return types.VarcharT, nil
	case a.IsTemporal() && b.IsTemporal():
		return types.TimestampT(int(max(a.Fsp, b.Fsp))), nil
	}
	an := a.IsNumeric() || a.Kind == types.Boolean
	bn := b.IsNumeric() || b.Kind == types.Boolean
	if !an || !bn {
		return types.UnknownT, fmt.Errorf("incompatible types %s and %s", a, b)
	}
	switch {
	case a.Physical() == types.PhysFloat64 || b.Physical() == types.PhysFloat64:
		return types.DoubleT, nil
	case a.Kind == types.Decimal || b.Kind == types.Decimal:
		digits := func(t types.T) (int, int) {
			if t.Kind == types.Decimal {
				return int(t.Precision - t.Scale), int(t.Scale)
			}
			return integerDigits(t.Kind), 0
		}
		ai, as := digits(a)
		bi, bs := digits(b)
		s := max(as, bs)
		return types.DecimalT(min(max(ai, bi)+s, types.MaxDecimalPrecision), s), nil
	}
	return types.BigIntT, nil
}

// nonDeterministicRule resolves functions whose value depends on when they
// run.
func nonDeterministicRule(name string) resolveRule {
	return func([]types.T, []bool) ([]types.T, types.T, bool, error) {
		return nil, types.UnknownT, false, fmt.Errorf("%w: %s() (non-deterministic)", ErrNotSupported, strings.ToUpper(name))
	}
}

// builtins is the registry, keyed by lower-case name. Aliases are separate
// entries sharing a rule.
var builtins = func() map[string]*Builtin {
	vc, bi := types.VarcharT, types.BigIntT
	one := func(want []types.T) types.T { return want[0] }
	m := map[string]*Builtin{}
	add := func(lo, hi int, r resolveRule, sig string, names ...string) {
		for _, n := range names {
			m[n] = &Builtin{Name: n, MinArgs: lo, MaxArgs: hi, Resolve: arityRule(n, lo, hi, r), Sig: sig}
		}
	}
	// Conditional functions.
	add(1, -1, commonRule(argsAllNull), "(value, ...) → their common type", "coalesce")
	add(2, 2, commonRule(argsAllNull), "(value, fallback) → their common type", "ifnull")
	add(2, 2, commonRule(func([]bool) bool { return true }), "(a, b) → their common type", "nullif")
	add(2, -1, commonRule(argsAnyNull), "(a, b, ...) → their common type", "greatest", "least")
	add(3, 3, resolveIf, "(cond BOOLEAN, then, else) → their common type", "if")
	// Strings; positions and lengths count characters unless noted.
	add(1, -1, strictRule(vc, argVarchar), "(s VARCHAR, ...) → VARCHAR", "concat")
	add(1, 1, strictRule(vc, argVarchar), "(s VARCHAR) → VARCHAR", "upper", "ucase", "lower", "lcase", "reverse", "ltrim", "rtrim")
	add(1, 3, strictRule(vc, argVarchar), "(s VARCHAR[, remove VARCHAR[, side VARCHAR]]) → VARCHAR", "trim") // trim(s[, remstr[, 'BOTH'|'LEADING'|'TRAILING']])
	add(2, 3, strictRule(vc, argVarchar, argInteger), "(s VARCHAR, pos BIGINT[, len BIGINT]) → VARCHAR", "substring", "substr")
	add(1, 1, strictRule(bi, argVarchar), "(s VARCHAR) → BIGINT", "length", "char_length", "character_length") // length counts bytes
	add(3, 3, strictRule(vc, argVarchar), "(s VARCHAR, from VARCHAR, to VARCHAR) → VARCHAR", "replace")
	add(2, 2, strictRule(vc, argVarchar, argInteger), "(s VARCHAR, n BIGINT) → VARCHAR", "left", "right")
	add(3, 3, typedRule(func([]types.T) types.T { return vc }, true, argVarchar, argInteger, argVarchar), "(s VARCHAR, n BIGINT, pad VARCHAR) → VARCHAR", "lpad", "rpad")
	add(2, 3, strictRule(bi, argVarchar, argVarchar, argInteger), "(substr VARCHAR, s VARCHAR[, pos BIGINT]) → BIGINT", "position", "locate")
	add(2, 2, strictRule(bi, argVarchar), "(s VARCHAR, substr VARCHAR) → BIGINT", "instr")
	add(2, 2, strictRule(bi, argVarchar), "(s VARCHAR, c VARCHAR) → BIGINT", "count_char") // Nexmark q14's counting function
	add(3, 3, strictRule(vc, argVarchar, argVarchar, argInteger), "(s VARCHAR, delimiter VARCHAR, n BIGINT) → VARCHAR", "split_part")
	add(2, 3, typedRule(func([]types.T) types.T { return vc }, true, argVarchar, argVarchar, argInteger), "(s VARCHAR, pattern VARCHAR[, group BIGINT]) → VARCHAR", "regexp_extract")
	// JSON (docs/dialect-notes.md, "JSON"): a document is a JSON value or
	// its text in a VARCHAR; a document that is not JSON makes the
	// functions NULL (JSON_VALID says which).
	js := types.JSONT
	add(2, -1, typedRule(func([]types.T) types.T { return js }, true, argJSONText, argVarchar), "(doc JSON, path VARCHAR, ...) → JSON", "json_extract")
	add(2, 3, typedRule(func([]types.T) types.T { return vc }, true, argJSONText, argVarchar), "(doc JSON, path VARCHAR[, type VARCHAR]) → VARCHAR, or the type RETURNING names", "json_value")
	add(1, 1, strictRule(vc, argJSONText), "(doc JSON) → VARCHAR", "json_unquote")
	add(1, 1, strictRule(js, argVarchar), "(s VARCHAR) → JSON", "json_quote")
	add(1, 1, strictRule(types.BoolT, argJSONText), "(doc VARCHAR) → BOOLEAN", "json_valid")
	add(1, 1, typedRule(func([]types.T) types.T { return vc }, true, argJSONText), "(doc JSON) → VARCHAR", "json_type")
	add(1, 2, typedRule(func([]types.T) types.T { return bi }, true, argJSONText, argVarchar), "(doc JSON[, path VARCHAR]) → BIGINT", "json_length")
	add(1, 2, typedRule(func([]types.T) types.T { return js }, true, argJSONText, argVarchar), "(doc JSON[, path VARCHAR]) → JSON", "json_keys")
	// Date and time.
	add(2, 2, strictRule(bi, argVarchar, argTimestamp), "(unit VARCHAR, t TIMESTAMP) → BIGINT", "extract") // extract('UNIT', ts)
	add(2, 2, strictRule(vc, argTimestamp, argVarchar), "(t TIMESTAMP, format VARCHAR) → VARCHAR", "date_format", "to_char")
	add(1, 1, strictRule(types.DateT, argDateOrTimestamp), "(t TIMESTAMP) → DATE", "date")
	// Calendar arithmetic: months have no fixed length (DATE_ADD with
	// INTERVAL n MONTH, QUARTER or YEAR binds as ADD_MONTHS).
	add(2, 2, typedRule(one, true, argDateOrTimestamp, argInteger), "(t DATE or TIMESTAMP, n BIGINT) → the type of t", "add_months")
	add(1, 1, strictRule(types.DateT, argDateOrTimestamp), "(t DATE or TIMESTAMP) → DATE", "last_day")
	add(2, 2, strictRule(bi, argDateOrTimestamp), "(a DATE or TIMESTAMP, b DATE or TIMESTAMP) → BIGINT", "datediff")
	add(3, 3, strictRule(bi, argVarchar, argTimestamp), "(unit, a TIMESTAMP, b TIMESTAMP) → BIGINT", "timestampdiff") // timestampdiff('UNIT', a, b)
	add(0, 1, resolveUnixTimestamp, "([t TIMESTAMP]) → BIGINT", "unix_timestamp")
	add(1, 1, strictRule(types.TimestampT(0), argInteger), "(seconds BIGINT) → TIMESTAMP", "from_unixtime")
	// The volatile functions (docs/dialect-notes.md, "Functions evaluated
	// once"). PROCTIME() is the time a row is processed: not a constant, it
	// is what processing-time windows (Nexmark q12) group by. NOW() and
	// CURRENT_TIMESTAMP are the statement's start in a one-shot statement
	// (the binder turns them into a constant) and the advancing processing
	// time of a continuous query's temporal filter; NOW(fsp) takes a
	// constant precision, which the binder reads.
	addVolatile := func(lo, hi int, r resolveRule, sig string, names ...string) {
		add(lo, hi, r, sig, names...)
		for _, n := range names {
			m[n].Volatile = true
		}
	}
	addVolatile(0, 0, strictRule(types.TimestampT(3)), "() → TIMESTAMP(3)", "proctime")
	addVolatile(0, 1, strictRule(types.TimestampT(3), argInteger), "([fsp BIGINT]) → TIMESTAMP(3)", "now", "current_timestamp")
	addVolatile(0, 1, resolveRand, "([seed BIGINT]) → DOUBLE", "rand")
	addVolatile(0, 0, strictRule(vc), "() → VARCHAR", "uuid")
	for _, n := range []string{"localtimestamp", "localtime", "sysdate", "curdate", "current_date", "utc_timestamp"} {
		add(0, 1, nonDeterministicRule(n), "([fsp BIGINT]) → not supported yet", n)
		m[n].Unsupported = true
	}
	// Numbers.
	add(1, 1, typedRule(one, false, argNumber), "(x number) → the type of x", "abs")
	add(1, 2, resolveRound, "(x number[, digits BIGINT]) → the type of x", "round")
	add(1, 1, resolveFloorCeil, "(x number) → the type of x", "floor", "ceil", "ceiling")
	add(2, 2, numericCommonRule, "(a number, b number) → their common type", "mod")
	add(2, 2, typedRule(one, true, argDouble), "(x DOUBLE, y DOUBLE) → DOUBLE", "power", "pow")
	add(1, 1, typedRule(one, true, argDouble), "(x DOUBLE) → DOUBLE", "sqrt")
	return m
}()

// SigArity returns the argument counts a signature such as "(s, pos[, len])
// → T" allows: its arguments are separated by commas, those in brackets
// are optional, and "..." repeats the one before (max -1). ok is false
// when sig does not start with a parenthesized argument list.
func SigArity(sig string) (lo, hi int, ok bool) {
	if !strings.HasPrefix(sig, "(") {
		return 0, 0, false
	}
	end := strings.Index(sig, ")")
	if end < 0 {
		return 0, 0, false
	}
	list := sig[1:end]
	if strings.TrimSpace(list) == "" {
		return 0, 0, true
	}
	depth := 0
	for _, arg := range strings.Split(list, ",") {
		optional := depth > 0 || strings.HasPrefix(strings.TrimSpace(arg), "[")
		depth += strings.Count(arg, "[") - strings.Count(arg, "]")
		switch name := strings.Trim(strings.TrimSpace(arg), "[] "); {
		case name == "...":
			hi = -1
		case name == "":
			return 0, 0, false
		case optional:
			hi++
		default:
			lo++
			hi++
		}
	}
	if depth != 0 {
		return 0, 0, false
	}
	return lo, hi, true
}

// arityRule wraps r with a check of the argument count, and treats missing
// nullability flags as nullable, so that Resolve never indexes out of range.
func arityRule(name string, lo, hi int, r resolveRule) resolveRule {
	return func(args []types.T, nulls []bool) ([]types.T, types.T, bool, error) {
		if len(args) < lo || hi >= 0 && len(args) > hi {
			return nil, types.UnknownT, false, fmt.Errorf("%s takes %s, not %d", strings.ToUpper(name), arityText(lo, hi), len(args))
		}
		for len(nulls) < len(args) {
			nulls = append(nulls[:len(nulls):len(nulls)], true)
		}
		return r(args, nulls)
	}
}

// arityText renders an argument count range.
func arityText(lo, hi int) string {
	switch {
	case hi < 0:
		return fmt.Sprintf("at least %d argument(s)", lo)
	case lo == hi && lo == 1:
		return "1 argument"
	case lo == hi:
		return fmt.Sprintf("%d arguments", lo)
	}
	return fmt.Sprintf("%d to %d arguments", lo, hi)
}

// resolveIf types IF(cond, a, b): cond is BOOLEAN, a and b meet in their
// common type, which is the result.
func resolveIf(args []types.T, nulls []bool) ([]types.T, types.T, bool, error) {
	if _, ok := argInteger(args[0]); !ok {
		return nil, types.UnknownT, false, fmt.Errorf("argument 1 has unsupported type %s", args[0])
	}
	want, t, n, err := commonRule(argsAnyNull)(args[1:], nulls[1:])
	if err != nil {
		return nil, types.UnknownT, false, err
	}
	return append([]types.T{types.BoolT}, want...), t, n, nil
}

// resolveRand types RAND([seed]): a DOUBLE in [0, 1), never NULL (MySQL
// seeds RAND(NULL) as RAND(0)).
func resolveRand(args []types.T, nulls []bool) ([]types.T, types.T, bool, error) {
	want, _, _, err := strictRule(types.DoubleT, argInteger)(args, nulls)
	return want, types.DoubleT, false, err
}

func resolveUnixTimestamp(args []types.T, nulls []bool) ([]types.T, types.T, bool, error) {
	if len(args) == 0 {
		return nonDeterministicRule("unix_timestamp")(args, nulls)
	}
	return strictRule(types.BigIntT, argTimestamp)(args, nulls)
}

// resolveRound types ROUND(x[, d]): integers stay BIGINT, doubles DOUBLE. A
// DECIMAL(p,s) becomes DECIMAL(p-s+1, 0) with one argument; with a digit
// count d (unknown when typing) it keeps its scale, digits beyond d zeroed,
// and gains one integer digit for the carry.
func resolveRound(args []types.T, nulls []bool) ([]types.T, types.T, bool, error) {
	want, _, n, err := strictRule(types.UnknownT, argNumber, argInteger)(args, nulls)
	if err != nil {
		return nil, types.UnknownT, false, err
	}
	w := want[0]
	switch {
	case w.IsInteger():
		want[0] = types.BigIntT
	case w.Kind == types.Decimal && w.Scale > 0 && len(args) == 1:
		return want, types.DecimalT(min(int(w.Precision-w.Scale)+1, types.MaxDecimalPrecision), 0), n, nil
	case w.Kind == types.Decimal && w.Scale > 0:
		return want, types.DecimalT(min(int(w.Precision)+1, types.MaxDecimalPrecision), int(w.Scale)), n, nil
	case w.Physical() == types.PhysFloat64:
		want[0] = types.DoubleT
	}
	return want, want[0], n, nil
}

// resolveFloorCeil types FLOOR and CEIL: integers and doubles keep their
// type, DECIMAL(p,s) becomes DECIMAL(p-s+1, 0).
func resolveFloorCeil(args []types.T, nulls []bool) ([]types.T, types.T, bool, error) {
	want, _, n, err := strictRule(types.UnknownT, argNumber)(args, nulls)
	if err != nil {
		return nil, types.UnknownT, false, err
	}
	w := want[0]
	if w.Kind == types.Decimal && w.Scale > 0 {
		return want, types.DecimalT(min(int(w.Precision-w.Scale)+1, types.MaxDecimalPrecision), 0), n, nil
	}
	if w.Physical() == types.PhysFloat64 {
		want[0] = types.DoubleT
	}
	return want, want[0], n, nil
}
