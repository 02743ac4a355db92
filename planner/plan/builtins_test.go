package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
)

func TestLookupBuiltin(t *testing.T) {
	for _, name := range []string{"COALESCE", "substr", "Char_Length", "regexp_extract", "to_char"} {
		b, ok := LookupBuiltin(name)
		if !ok || b.Name != strings.ToLower(name) {
			t.Errorf("LookupBuiltin(%q) = %v, %v", name, b, ok)
		}
	}
	if _, ok := LookupBuiltin("no_such_function"); ok {
		t.Errorf("unknown function found")
	}
	all := Builtins()
	for i := 1; i < len(all); i++ {
		if all[i-1].Name >= all[i].Name {
			t.Fatalf("Builtins not sorted: %s, %s", all[i-1].Name, all[i].Name)
		}
	}
	for _, b := range all {
		if b.Name != strings.ToLower(b.Name) || b.MinArgs < 0 || (b.MaxArgs >= 0 && b.MaxArgs < b.MinArgs) || b.Resolve == nil {
			t.Errorf("malformed builtin %+v", b)
		}
	}
}

func TestBuiltinResolve(t *testing.T) {
	ts3, d102, vc, bi, dbl := types.TimestampT(3), types.DecimalT(10, 2), types.VarcharT, types.BigIntT, types.DoubleT
	for _, c := range []struct {
		name     string
		args     []types.T
		nulls    []bool
		want     []types.T
		ret      types.T
		nullable bool
		err      string
	}{
		{name: "coalesce", args: []types.T{types.IntT, bi}, nulls: []bool{true, false}, want: []types.T{bi, bi}, ret: bi, nullable: false},
		{name: "coalesce", args: []types.T{types.IntT, d102}, nulls: []bool{true, true}, want: []types.T{types.DecimalT(12, 2), types.DecimalT(12, 2)}, ret: types.DecimalT(12, 2), nullable: true},
		{name: "coalesce", args: []types.T{types.NullT, types.NullT}, nulls: []bool{true, true}, want: []types.T{vc, vc}, ret: vc, nullable: true},
		{name: "coalesce", args: []types.T{types.DateT, ts3}, nulls: []bool{true, true}, want: []types.T{ts3, ts3}, ret: ts3, nullable: true},
		{name: "coalesce", args: []types.T{types.DateT, bi}, nulls: []bool{true, true}, err: "incompatible types DATE and BIGINT"},
		{name: "ifnull", args: []types.T{bi, dbl}, nulls: []bool{true, false}, want: []types.T{dbl, dbl}, ret: dbl},
		{name: "nullif", args: []types.T{bi, bi}, nulls: []bool{false, false}, want: []types.T{bi, bi}, ret: bi, nullable: true},
		{name: "greatest", args: []types.T{bi, vc}, nulls: []bool{false, false}, want: []types.T{vc, vc}, ret: vc},
		{name: "if", args: []types.T{types.BoolT, bi, types.NullT}, nulls: []bool{false, false, true}, want: []types.T{types.BoolT, bi, bi}, ret: bi, nullable: true},
		{name: "concat", args: []types.T{vc, bi, ts3}, nulls: []bool{false, false, true}, want: []types.T{vc, vc, vc}, ret: vc, nullable: true},
		{name: "substring", args: []types.T{vc, types.IntT}, nulls: []bool{false, false}, want: []types.T{vc, bi}, ret: vc},
		{name: "substring", args: []types.T{vc, ts3}, nulls: []bool{false, false}, err: "argument 2"},
		{name: "length", args: []types.T{vc}, nulls: []bool{true}, want: []types.T{vc}, ret: bi, nullable: true},
		{name: "lpad", args: []types.T{vc, bi, vc}, nulls: []bool{false, false, false}, want: []types.T{vc, bi, vc}, ret: vc, nullable: true},
		{name: "locate", args: []types.T{vc, vc, bi}, nulls: []bool{false, false, false}, want: []types.T{vc, vc, bi}, ret: bi},
		{name: "regexp_extract", args: []types.T{vc, vc}, nulls: []bool{false, false}, want: []types.T{vc, vc}, ret: vc, nullable: true},
		{name: "extract", args: []types.T{vc, types.DateT}, nulls: []bool{false, false}, want: []types.T{vc, types.TimestampT(0)}, ret: bi},
		{name: "extract", args: []types.T{vc, bi}, nulls: []bool{false, false}, err: "argument 2"},
		{name: "date_format", args: []types.T{vc, vc}, nulls: []bool{false, false}, want: []types.T{ts3, vc}, ret: vc},
		{name: "date", args: []types.T{types.DateT}, nulls: []bool{false}, want: []types.T{types.DateT}, ret: types.DateT},
		{name: "date", args: []types.T{ts3}, nulls: []bool{true}, want: []types.T{ts3}, ret: types.DateT, nullable: true},
		{name: "unix_timestamp", args: []types.T{ts3}, nulls: []bool{false}, want: []types.T{ts3}, ret: bi},
		{name: "unix_timestamp", err: "not supported yet: UNIX_TIMESTAMP() (non-deterministic)"},
		{name: "from_unixtime", args: []types.T{types.IntT}, nulls: []bool{false}, want: []types.T{bi}, ret: types.TimestampT(0)},
		{name: "now", want: []types.T{}, ret: ts3},
		{name: "now", args: []types.T{types.IntT}, nulls: []bool{false}, want: []types.T{bi}, ret: ts3},
		{name: "localtimestamp", err: "not supported yet: LOCALTIMESTAMP() (non-deterministic)"},
		{name: "rand", want: []types.T{}, ret: dbl},
		{name: "rand", args: []types.T{types.IntT}, nulls: []bool{true}, want: []types.T{bi}, ret: dbl},
		{name: "uuid", want: []types.T{}, ret: vc},
		{name: "uuid", args: []types.T{bi}, err: "UUID takes 0 arguments, not 1"},
		{name: "upper", args: []types.T{vc, vc}, nulls: []bool{false, false}, err: "UPPER takes 1 argument, not 2"},
		{name: "substring", args: []types.T{vc}, err: "SUBSTRING takes 2 to 3 arguments, not 1"},
		{name: "if", args: []types.T{types.BoolT, bi, bi}, want: []types.T{types.BoolT, bi, bi}, ret: bi, nullable: true},
		{name: "current_timestamp", want: []types.T{}, ret: ts3},
		{name: "abs", args: []types.T{types.IntT}, nulls: []bool{false}, want: []types.T{types.IntT}, ret: types.IntT},
		{name: "abs", args: []types.T{vc}, nulls: []bool{false}, want: []types.T{dbl}, ret: dbl},
		{name: "abs", args: []types.T{ts3}, nulls: []bool{false}, err: "unsupported type"},
		{name: "round", args: []types.T{types.IntT, bi}, nulls: []bool{false, false}, want: []types.T{bi, bi}, ret: bi},
		{name: "round", args: []types.T{d102}, nulls: []bool{false}, want: []types.T{d102}, ret: types.DecimalT(9, 0)},
		{name: "round", args: []types.T{d102, bi}, nulls: []bool{false, false}, want: []types.T{d102, bi}, ret: types.DecimalT(11, 2)},
		{name: "round", args: []types.T{types.T{Kind: types.Float}}, nulls: []bool{false}, want: []types.T{dbl}, ret: dbl},
		{name: "floor", args: []types.T{d102}, nulls: []bool{false}, want: []types.T{d102}, ret: types.DecimalT(9, 0)},
		{name: "ceil", args: []types.T{dbl}, nulls: []bool{false}, want: []types.T{dbl}, ret: dbl},
		{name: "mod", args: []types.T{types.IntT, {Kind: types.SmallInt}}, nulls: []bool{false, false}, want: []types.T{bi, bi}, ret: bi, nullable: true},
		{name: "mod", args: []types.T{bi, d102}, nulls: []bool{false, false}, want: []types.T{types.DecimalT(21, 2), types.DecimalT(21, 2)}, ret: types.DecimalT(21, 2), nullable: true},
		{name: "mod", args: []types.T{vc, bi}, nulls: []bool{false, false}, want: []types.T{dbl, dbl}, ret: dbl, nullable: true},
		{name: "power", args: []types.T{bi, d102}, nulls: []bool{false, false}, want: []types.T{dbl, dbl}, ret: dbl, nullable: true},
	} {
		b, ok := LookupBuiltin(c.name)
		if !ok {
			t.Fatalf("%s not found", c.name)
		}
		want, ret, nullable, err := b.Resolve(c.args, c.nulls)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s%v: error %v, want %q", c.name, c.args, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s%v: %v", c.name, c.args, err)
			continue
		}
		if ret != c.ret || nullable != c.nullable || len(want) != len(c.want) {
			t.Errorf("%s%v = %v %s %v, want %v %s %v", c.name, c.args, want, ret, nullable, c.want, c.ret, c.nullable)
			continue
		}
		for i := range want {
			if want[i] != c.want[i] {
				t.Errorf("%s%v: argument %d wants %s, want %s", c.name, c.args, i+1, want[i], c.want[i])
			}
		}
	}
	_, _, _, err := LookupBuiltinMust(t, "localtimestamp").Resolve(nil, nil)
	if !errors.Is(err, ErrNotSupported) {
		t.Errorf("LOCALTIMESTAMP(): %v does not wrap ErrNotSupported", err)
	}
}

func LookupBuiltinMust(t *testing.T, name string) *Builtin {
	t.Helper()
	b, ok := LookupBuiltin(name)
	if !ok {
		t.Fatalf("%s not found", name)
	}
	return b
}

func TestCommonType(t *testing.T) {
	for _, c := range []struct{ a, b, want types.T }{
		{types.IntT, types.IntT, types.IntT},
		{types.IntT, types.BigIntT, types.BigIntT},
		{types.BoolT, types.IntT, types.BigIntT},
		{types.DecimalT(5, 3), types.DecimalT(10, 1), types.DecimalT(12, 3)},
		{types.DecimalT(38, 10), types.BigIntT, types.DecimalT(38, 10)},
		{types.DoubleT, types.DecimalT(5, 3), types.DoubleT},
		{types.TimestampT(0), types.TimestampT(3), types.TimestampT(3)},
		{types.DateT, types.TimestampT(0), types.TimestampT(0)},
		{types.VarcharT, types.DateT, types.VarcharT},
		{types.NullT, types.DateT, types.DateT},
		{types.IntervalT, types.IntervalT, types.IntervalT},
	} {
		got, err := CommonType(c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("CommonType(%s, %s) = %s, %v, want %s", c.a, c.b, got, err, c.want)
		}
	}
	if _, err := CommonType(types.IntervalT, types.BigIntT); err == nil {
		t.Errorf("INTERVAL and BIGINT have a common type")
	}
}

func TestIsVolatile(t *testing.T) {
	ts3 := types.TimestampT(3)
	now := &Func{Name: "now", Typ: ts3}
	for _, c := range []struct {
		e    Expr
		want bool
	}{
		{&Func{Name: "upper", Args: []Expr{&Const{Val: types.StringDatum("a"), Typ: types.VarcharT}}, Typ: types.VarcharT}, false},
		{now, true},
		{&Func{Name: "current_timestamp", Typ: ts3}, true},
		{&Func{Name: "proctime", Typ: ts3}, true},
		{&Binary{Op: OpLt, L: &Func{Name: "rand", Typ: types.DoubleT}, R: &Const{Val: types.FloatDatum(0.5), Typ: types.DoubleT}, Typ: types.BoolT}, true},
		{&Func{Name: "concat", Args: []Expr{&Func{Name: "uuid", Typ: types.VarcharT}}, Typ: types.VarcharT}, true},
	} {
		if got := IsVolatile(c.e); got != c.want {
			t.Errorf("IsVolatile(%s) = %v, want %v", c.e, got, c.want)
		}
	}
}

// TestBuiltinSignatures checks that every built-in function has a
// signature for SHOW FUNCTIONS whose arguments agree with its arity.
func TestBuiltinSignatures(t *testing.T) {
	for _, b := range Builtins() {
		lo, hi, ok := SigArity(b.Sig)
		if !ok || lo != b.MinArgs || hi != b.MaxArgs || !strings.Contains(b.Sig, " → ") {
			t.Errorf("%s: signature %q allows %d to %d arguments (ok %v), the function %d to %d", b.Name, b.Sig, lo, hi, ok, b.MinArgs, b.MaxArgs)
		}
	}
	for sig, want := range map[string][3]int{
		"() → T": {0, 0, 1}, "(a) → T": {1, 1, 1}, "(a, ...) → T": {1, -1, 1}, "(a, b[, c]) → T": {2, 3, 1},
		"([a]) → T": {0, 1, 1}, "(a[, b[, c]]) → T": {1, 3, 1}, "a → T": {0, 0, 0}, "(a[, b) → T": {0, 0, 0}, "(a, , b)": {0, 0, 0},
	} {
		lo, hi, ok := SigArity(sig)
		if ok != (want[2] == 1) || ok && (lo != want[0] || hi != want[1]) {
			t.Errorf("SigArity(%q) = %d, %d, %v, want %v", sig, lo, hi, ok, want)
		}
	}
}
