package types

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Kind is the SQL type family of a value.
type Kind uint8

// The SQL type kinds. The order matters only for String.
const (
	Unknown   Kind = iota // not yet typed; never appears in a bound plan
	Null                  // the type of an untyped NULL literal
	Boolean               // BOOLEAN
	TinyInt               // TINYINT, stored as int64
	SmallInt              // SMALLINT, stored as int64
	Int                   // INT / INTEGER, stored as int64
	BigInt                // BIGINT
	Float                 // FLOAT, stored as float64
	Double                // DOUBLE / REAL
	Decimal               // DECIMAL(p,s), stored as decimal128
	Varchar               // VARCHAR / TEXT / CHAR / STRING
	Date                  // DATE, days since the Unix epoch
	Timestamp             // TIMESTAMP(fsp) / DATETIME(fsp), milliseconds since the Unix epoch
	Interval              // a day-time INTERVAL, in milliseconds
	JSON                  // JSON: a document's text in MySQL's normalized spelling (internal/jsonpath)
)

var kindNames = [...]string{
	Unknown: "UNKNOWN", Null: "NULL", Boolean: "BOOLEAN", TinyInt: "TINYINT",
	SmallInt: "SMALLINT", Int: "INT", BigInt: "BIGINT", Float: "FLOAT",
	Double: "DOUBLE", Decimal: "DECIMAL", Varchar: "VARCHAR", Date: "DATE",
	Timestamp: "TIMESTAMP", Interval: "INTERVAL", JSON: "JSON",
}

// String returns the SQL name of the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Physical is the in-memory representation shared by several SQL kinds.
// Kernels dispatch on it.
type Physical uint8

// The physical representations.
const (
	PhysNull Physical = iota
	PhysBool
	PhysInt64
	PhysFloat64
	PhysDecimal
	PhysString
	PhysDate32
	PhysTimestamp
	PhysDuration
)

// MaxDecimalPrecision is the largest precision a decimal128 holds.
const MaxDecimalPrecision = 38

// MaxFsp is the finest fractional-seconds precision eddy stores (milliseconds).
const MaxFsp = 3

// T is a SQL type. It is a small comparable value.
type T struct {
	Kind      Kind
	Precision uint8 // DECIMAL precision, 1..38
	Scale     uint8 // DECIMAL scale, 0..Precision
	Fsp       uint8 // TIMESTAMP fractional seconds shown, 0..3
}

// Frequently used types.
var (
	UnknownT  = T{Kind: Unknown}
	NullT     = T{Kind: Null}
	BoolT     = T{Kind: Boolean}
	IntT      = T{Kind: Int}
	BigIntT   = T{Kind: BigInt}
	DoubleT   = T{Kind: Double}
	VarcharT  = T{Kind: Varchar}
	JSONT     = T{Kind: JSON}
	DateT     = T{Kind: Date}
	IntervalT = T{Kind: Interval}
)

// DecimalT returns DECIMAL(p,s).
func DecimalT(p, s int) T { return T{Kind: Decimal, Precision: uint8(p), Scale: uint8(s)} }

// TimestampT returns TIMESTAMP(fsp).
func TimestampT(fsp int) T { return T{Kind: Timestamp, Fsp: uint8(fsp)} }

// Physical returns the in-memory representation of t.
func (t T) Physical() Physical {
	switch t.Kind {
	case Boolean:
		return PhysBool
	case TinyInt, SmallInt, Int, BigInt:
		return PhysInt64
	case Float, Double:
		return PhysFloat64
	case Decimal:
		return PhysDecimal
	case Varchar, JSON:
		return PhysString
	case Date:
		return PhysDate32
	case Timestamp:
		return PhysTimestamp
	case Interval:
		return PhysDuration
	}
	return PhysNull
}

// IsInteger reports whether t is one of the integer types.
func (t T) IsInteger() bool { return t.Physical() == PhysInt64 }

// IsNumeric reports whether t is an integer, floating-point or decimal type.
func (t T) IsNumeric() bool {
	switch t.Physical() {
	case PhysInt64, PhysFloat64, PhysDecimal:
		return true
	}
	return false
}

// IsTemporal reports whether t is DATE or TIMESTAMP.
func (t T) IsTemporal() bool { return t.Kind == Date || t.Kind == Timestamp }

// String returns the SQL spelling of t, e.g. DECIMAL(10,2) or TIMESTAMP(3).
func (t T) String() string {
	switch t.Kind {
	case Decimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case Timestamp:
		if t.Fsp == 0 {
			return "TIMESTAMP"
		}
		return fmt.Sprintf("TIMESTAMP(%d)", t.Fsp)
	}
	return t.Kind.String()
}

// Arrow returns the Arrow type that holds values of t.
func (t T) Arrow() arrow.DataType {
	switch t.Physical() {
	case PhysBool:
		return arrow.FixedWidthTypes.Boolean
	case PhysInt64:
		return arrow.PrimitiveTypes.Int64
	case PhysFloat64:
		return arrow.PrimitiveTypes.Float64
	case PhysDecimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}
	case PhysString:
		return arrow.BinaryTypes.String
	case PhysDate32:
		return arrow.FixedWidthTypes.Date32
	case PhysTimestamp:
		return &arrow.TimestampType{Unit: arrow.Millisecond}
	case PhysDuration:
		return arrow.FixedWidthTypes.Duration_ms
	}
	return arrow.Null
}

// metaKey is the Arrow field metadata key under which a column's SQL type is
// kept, so that a schema read back from storage still knows it.
const metaKey = "eddy.type"

// Field returns an Arrow field for a column of type t.
func Field(name string, t T, nullable bool) arrow.Field {
	return arrow.Field{
		Name: name, Type: t.Arrow(), Nullable: nullable,
		Metadata: arrow.NewMetadata([]string{metaKey}, []string{t.String()}),
	}
}

// FromField recovers the SQL type of an Arrow field made by Field. For a field
// without eddy metadata it returns the natural SQL type of the Arrow type.
func FromField(f arrow.Field) (T, error) {
	if i := f.Metadata.FindKey(metaKey); i >= 0 {
		return Parse(f.Metadata.Values()[i])
	}
	return FromArrow(f.Type)
}

// FromArrow returns the natural SQL type of an Arrow type.
func FromArrow(dt arrow.DataType) (T, error) {
	switch dt := dt.(type) {
	case *arrow.BooleanType:
		return BoolT, nil
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type:
		return BigIntT, nil
	case *arrow.Float32Type, *arrow.Float64Type:
		return DoubleT, nil
	case *arrow.Decimal128Type:
		return DecimalT(int(dt.Precision), int(dt.Scale)), nil
	case *arrow.StringType, *arrow.LargeStringType:
		return VarcharT, nil
	case *arrow.Date32Type:
		return DateT, nil
	case *arrow.TimestampType:
		return TimestampT(MaxFsp), nil
	case *arrow.DurationType:
		return IntervalT, nil
	case *arrow.NullType:
		return NullT, nil
	}
	return UnknownT, fmt.Errorf("no SQL type for Arrow type %s", dt)
}

// Parse parses a type name as written in SQL: BIGINT, DECIMAL(10, 2),
// TIMESTAMP(3), VARCHAR(255), DOUBLE PRECISION, ... It is used for
// column definitions and CAST targets.
func Parse(s string) (T, error) {
	name := strings.ToUpper(strings.TrimSpace(s))
	var args []int
	if i := strings.IndexByte(name, '('); i >= 0 {
		if !strings.HasSuffix(name, ")") {
			return UnknownT, fmt.Errorf("malformed type %q", s)
		}
		for _, a := range strings.Split(name[i+1:len(name)-1], ",") {
			n, err := strconv.Atoi(strings.TrimSpace(a))
			if err != nil || n < 0 {
				return UnknownT, fmt.Errorf("malformed type %q: bad argument %q", s, strings.TrimSpace(a))
			}
			args = append(args, n)
		}
		name = strings.TrimSpace(name[:i])
	}
	return FromName(name, args)
}

// FromName resolves a type name (upper case) with its numeric arguments.
func FromName(name string, args []int) (T, error) {
	name = strings.Join(strings.Fields(strings.ToUpper(name)), " ")
	noArgs := func(t T) (T, error) {
		if len(args) > 0 {
			return UnknownT, fmt.Errorf("type %s takes no arguments", name)
		}
		return t, nil
	}
	switch name {
	case "BOOLEAN", "BOOL":
		return noArgs(BoolT)
	case "TINYINT":
		return T{Kind: TinyInt}, nil // a display width like TINYINT(4) is ignored, as MySQL 8 does
	case "SMALLINT":
		return T{Kind: SmallInt}, nil
	case "INT", "INTEGER", "MEDIUMINT":
		return IntT, nil
	case "BIGINT", "SIGNED", "SIGNED INTEGER":
		return BigIntT, nil
	case "FLOAT":
		return T{Kind: Float}, nil
	case "DOUBLE", "DOUBLE PRECISION", "REAL":
		return noArgs(DoubleT)
	case "DECIMAL", "NUMERIC", "DEC":
		p, s := 10, 0 // MySQL's default DECIMAL is DECIMAL(10,0)
		switch len(args) {
		case 0:
		case 1:
			p = args[0]
		case 2:
			p, s = args[0], args[1]
		default:
			return UnknownT, fmt.Errorf("DECIMAL takes at most two arguments")
		}
		if p < 1 || p > MaxDecimalPrecision {
			return UnknownT, fmt.Errorf("DECIMAL precision %d out of range 1..%d", p, MaxDecimalPrecision)
		}
		if s > p {
			return UnknownT, fmt.Errorf("DECIMAL scale %d exceeds precision %d", s, p)
		}
		return DecimalT(p, s), nil
	case "VARCHAR", "CHAR", "TEXT", "STRING", "CHARACTER VARYING", "CHARACTER", "LONGTEXT", "MEDIUMTEXT", "TINYTEXT":
		if len(args) > 1 {
			return UnknownT, fmt.Errorf("type %s takes at most one argument", name)
		}
		return VarcharT, nil
	case "DATE":
		return noArgs(DateT)
	case "TIMESTAMP", "DATETIME":
		fsp := 0
		switch len(args) {
		case 0:
		case 1:
			fsp = args[0]
		default:
			return UnknownT, fmt.Errorf("type %s takes at most one argument", name)
		}
		if fsp > 6 {
			return UnknownT, fmt.Errorf("%s precision %d out of range 0..6", name, fsp)
		}
		if fsp > MaxFsp {
			fsp = MaxFsp // eddy keeps milliseconds; finer precision is truncated
		}
		return TimestampT(fsp), nil
	case "INTERVAL":
		return noArgs(IntervalT)
	case "JSON":
		return noArgs(JSONT)
	}
	return UnknownT, fmt.Errorf("unknown type %s", name)
}

// MarshalText encodes t as its SQL spelling, so persisted schemas do not
// depend on the numbering of kinds.
func (t T) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText decodes a type written by MarshalText.
func (t *T) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}
