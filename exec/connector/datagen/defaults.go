package datagen

import (
	"math"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

// The defaults of a column without options, or of a kind without its
// properties.
const (
	// defaultMax bounds random numbers: [0, 32767] (RisingWave's default
	// range), within the type.
	defaultMax = 32767
	// defaultLength is the length of random text.
	defaultLength = 10
	// maxLength bounds length.
	maxLength = 1 << 16
	// defaultBaseTime is 2025-01-01 00:00:00 UTC: where TIMESTAMP
	// sequences start, and DATE ones, and the first day of random dates.
	defaultBaseTime = int64(1735689600000)
	defaultBaseDate = defaultBaseTime / types.MsPerDay
)

// defaultField returns the generator of a column without options:
// TIMESTAMP columns count up one millisecond a row from 2025-01-01, so
// that event time advances as rows are made; every other column is
// random (numbers in [0, 32767] within the type, floats in [0, 1), text
// of 10 letters, dates in 2025).
func defaultField(c catalog.Column) Field {
	if c.Type.Kind == types.Timestamp {
		return defaultKind(c, Sequence)
	}
	if c.Type.Kind == types.Interval {
		return Field{Column: c, Kind: List, Values: []types.Datum{types.IntDatum(1000)}}
	}
	return defaultKind(c, Random)
}

// defaultKind returns the generator of kind k for column c with its
// properties' defaults.
func defaultKind(c catalog.Column, k Kind) Field {
	f := Field{Column: c, Kind: k, Length: defaultLength, Step: 1, FStep: 1, FMax: 1}
	t := c.Type
	switch t.Kind {
	case types.Timestamp:
		f.Start, f.Min, f.Max = defaultBaseTime, defaultBaseTime, defaultBaseTime+365*types.MsPerDay-1
	case types.Date:
		f.Start, f.Min, f.Max = defaultBaseDate, defaultBaseDate, defaultBaseDate+364
	case types.Decimal:
		scale := int64(math.Pow10(int(t.Scale)))
		_, hi := intRange(t)
		f.Max = min(hi, defaultMax*scale+scale-1)
		f.Start, f.Step = scale, scale // a sequence counts in units from 1
	default:
		_, hi := intRange(t)
		f.Max = min(hi, defaultMax)
		f.Start = 1
	}
	if k == Sequence && f.isFloat() {
		f.FStart = 1
	}
	return f
}
