package expr

import (
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// funcBuilder compiles a call of one built-in function. The binder has
// checked the call against plan.LookupBuiltin and cast the arguments to the
// types its Resolve asked for.
type funcBuilder func(c *compiler, e *plan.Func) (node, error)

// funcTable maps every function of plan.Builtins that can run in a
// continuous query to its kernel; a test checks that the two registries
// agree. It is a function, not a variable, because builders compile their
// arguments, which may call functions (an initialization cycle otherwise).
func funcTable() map[string]funcBuilder {
	return map[string]funcBuilder{
		// Conditional functions (conditional.go).
		"coalesce": buildCoalesce, "ifnull": buildCoalesce, "if": buildIf,
		"nullif": buildNullIf, "greatest": buildGreatest(true), "least": buildGreatest(false),
		// Strings (strings.go, strings_more.go).
		"concat": strict(concatKernel), "upper": strict(upperKernel(true)), "ucase": strict(upperKernel(true)),
		"lower": strict(upperKernel(false)), "lcase": strict(upperKernel(false)), "reverse": strict(reverseKernel),
		"length": strict(lengthKernel(false)), "char_length": strict(lengthKernel(true)),
		"count_char":       strict(countCharKernel),
		"proctime":         strict(procTimeKernel),
		"character_length": strict(lengthKernel(true)), "substring": strict(substringKernel),
		"substr": strict(substringKernel), "left": strict(leftRightKernel(true)),
		"right": strict(leftRightKernel(false)), "replace": strict(replaceKernel),
		"ltrim": buildTrim, "rtrim": buildTrim, "trim": buildTrim,
		"lpad": strict(padKernel(true)), "rpad": strict(padKernel(false)),
		"position": strict(locateKernel(false)), "locate": strict(locateKernel(false)),
		"instr": strict(locateKernel(true)), "split_part": strict(splitPartKernel),
		"regexp_extract": buildRegexpExtract,
		// Date and time (time.go, time_format.go).
		"extract": buildExtract, "date_format": buildFormat(false), "to_char": buildFormat(true),
		"date": buildDate, "unix_timestamp": strict(unixTimestampKernel), "from_unixtime": strict(fromUnixtimeKernel),
		// Numbers (math.go).
		"abs": strict(absKernel), "round": buildRound, "floor": buildFloorCeil(true), "ceil": buildFloorCeil(false),
		"ceiling": buildFloorCeil(false), "mod": buildMod, "power": strict(powerKernel), "pow": strict(powerKernel),
		"sqrt": strict(sqrtKernel),
	}
}

// buildFunc compiles a function call.
func (c *compiler) buildFunc(e *plan.Func) (node, error) {
	b, ok := funcTable()[e.Name]
	if !ok {
		if bi, ok := plan.LookupBuiltin(e.Name); ok {
			if _, _, _, err := bi.Resolve(nil, nil); err != nil {
				return nil, err // e.g. NOW(): not supported in continuous queries
			}
		}
		return nil, notSupported("function %s", strings.ToUpper(e.Name))
	}
	return b(c, e)
}

// strict adapts a kernel maker to a builder of a function that is NULL
// when any argument is NULL. The maker sees the call (for its types).
func strict(mk func(e *plan.Func) (kernel, error)) funcBuilder {
	return func(c *compiler, e *plan.Func) (node, error) {
		args, err := c.compileAll(e.Args)
		if err != nil {
			return nil, err
		}
		k, err := mk(e)
		if err != nil {
			return nil, err
		}
		return newFn(k, true, args...), nil
	}
}

// argsOf checks that e's arguments have the physical types want (the last
// repeating), so a kernel never reads the wrong vector.
func argsOf(e *plan.Func, want ...types.Physical) error {
	for i, a := range e.Args {
		w := want[min(i, len(want)-1)]
		if p := a.Type().Physical(); p != w && p != types.PhysNull {
			return notSupported("%s with argument %d of type %s", strings.ToUpper(e.Name), i+1, a.Type())
		}
	}
	return nil
}

// constArg returns argument i of e when it is a non-NULL constant.
func constArg(e *plan.Func, i int) (types.Datum, bool) {
	if i >= len(e.Args) || !isConstant(e.Args[i]) {
		return types.NullDatum, false
	}
	d, err := EvalConst(e.Args[i])
	if err != nil || d.Null {
		return types.NullDatum, false
	}
	return d, true
}

// totalLen is the byte length of v's first n values.
func totalLen(v *vector, n int) int {
	if v.konst {
		return n * len(v.str(0))
	}
	return int(v.offs[n] - v.offs[0])
}
