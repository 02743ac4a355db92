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
	// The physical types of the arguments, which strict checks.
	str, i64, f64, ts := types.PhysString, types.PhysInt64, types.PhysFloat64, types.PhysTimestamp
	return map[string]funcBuilder{
		// Conditional functions (conditional.go).
		"coalesce": buildCoalesce, "ifnull": buildCoalesce, "if": buildIf,
		"nullif": buildNullIf, "greatest": buildGreatest(true), "least": buildGreatest(false),
		// Strings (strings.go, strings_more.go).
		"concat": strict(concatKernel, str), "upper": strict(upperKernel(true), str), "ucase": strict(upperKernel(true), str),
		"lower": strict(upperKernel(false), str), "lcase": strict(upperKernel(false), str), "reverse": strict(reverseKernel, str),
		"length": strict(lengthKernel(false), str), "char_length": strict(lengthKernel(true), str),
		"character_length": strict(lengthKernel(true), str), "count_char": strict(countCharKernel, str, str),
		"substring": strict(substringKernel, str, i64), "substr": strict(substringKernel, str, i64),
		"left": strict(leftRightKernel(true), str, i64), "right": strict(leftRightKernel(false), str, i64),
		"replace": strict(replaceKernel, str), "ltrim": buildTrim, "rtrim": buildTrim, "trim": buildTrim,
		"lpad": strict(padKernel(true), str, i64, str), "rpad": strict(padKernel(false), str, i64, str),
		"position": strict(locateKernel(false), str, str, i64), "locate": strict(locateKernel(false), str, str, i64),
		"instr": strict(locateKernel(true), str, str, i64), "split_part": strict(splitPartKernel, str, str, i64),
		"regexp_extract": buildRegexpExtract,
		// JSON (json.go).
		"json_extract": strict(jsonExtractKernel, str, str), "json_value": strict(jsonValueKernel, str, str),
		"json_unquote": strict(jsonUnquoteKernel, str), "json_quote": strict(jsonQuoteKernel, str),
		"json_valid": strict(jsonValidKernel, str), "json_type": strict(jsonTypeKernel, str),
		"json_length": strict(jsonLengthKernel, str, str), "json_keys": strict(jsonKeysKernel, str, str),
		// Date and time (time.go, time_format.go).
		"extract": buildExtract, "date_format": buildFormat(false), "to_char": buildFormat(true),
		"date": buildDate, "add_months": strict(addMonthsKernel), "last_day": strict(lastDayKernel),
		"datediff": strict(datediffKernel), "timestampdiff": buildTimestampDiff, "unix_timestamp": strict(unixTimestampKernel, ts), "from_unixtime": strict(fromUnixtimeKernel, i64),
		// Volatile functions (volatile.go).
		"proctime": strict(procTimeKernel), "now": strict(procTimeKernel), "current_timestamp": strict(procTimeKernel),
		"rand": buildRand, "uuid": buildUUID,
		// Numbers (math.go).
		"abs": strict(absKernel), "round": buildRound, "floor": buildFloorCeil(true), "ceil": buildFloorCeil(false),
		"ceiling": buildFloorCeil(false), "mod": buildMod, "power": strict(powerKernel, f64), "pow": strict(powerKernel, f64),
		"sqrt": strict(sqrtKernel, f64),
	}
}

// buildFunc compiles a function call.
func (c *compiler) buildFunc(e *plan.Func) (node, error) {
	b, ok := funcTable()[e.Name]
	if !ok {
		b, ok = internalFunc(e.Name)
	}
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
// when any argument is NULL. The maker sees the call (for its types); when
// want names physical types, the arguments must have them (argsOf) before
// it is called.
func strict(mk func(e *plan.Func) (kernel, error), want ...types.Physical) funcBuilder {
	return func(c *compiler, e *plan.Func) (node, error) {
		args, err := c.compileAll(e.Args)
		if err != nil {
			return nil, err
		}
		if len(want) > 0 {
			if err := argsOf(e, want...); err != nil {
				return nil, err
			}
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
