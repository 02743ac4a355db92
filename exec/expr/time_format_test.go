package expr

import (
	"testing"

	"github.com/eddysql/eddy/catalog/types"
)

// TestDateFormatRepeatsWithinItsUnit formats runs of nearly ordered
// timestamps that cross millisecond, second, minute, hour and day
// boundaries (before and after the epoch, with NULLs between) by formats
// whose finest field is each of those: the rows that repeat the last
// formatted row's text must print what formatting each row alone prints.
func TestDateFormatRepeatsWithinItsUnit(t *testing.T) {
	var rows [][]types.Datum
	var stamps []int64
	for _, base := range []int64{-86_400_000 - 1, -1, 0, 1_709_251_199_990, 1_709_251_259_500} {
		for k := range int64(40) {
			ms := base + k*k*k*7 // steps growing from a millisecond to minutes
			stamps = append(stamps, ms)
			if k%9 == 4 {
				stamps = append(stamps, ms) // the same again
			}
		}
	}
	for k, ms := range stamps {
		rows = append(rows, []types.Datum{types.IntDatum(ms), s(fmtsForTest[k%len(fmtsForTest)])})
		if k%13 == 6 {
			rows = append(rows, []types.Datum{null, s(fmtsForTest[0])})
		}
	}
	ts := col(0, ts3)
	var cases []tcase
	for _, f := range fmtsForTest {
		cases = append(cases, tcase{name: "date_format " + f, e: fn("date_format", vchar, ts, litS(f)), rows: rows, want: refFormats(rows, f)})
	}
	cases = append(cases, tcase{name: "date_format varying", e: fn("date_format", vchar, ts, col(1, vchar)), rows: rows, want: refFormats(rows, "")})
	runCases(t, []types.T{ts3, vchar}, cases)
}

// fmtsForTest have each unit as their finest field, and none.
var fmtsForTest = []string{"%Y-%m-%d", "%H:%i", "%T", "%H", "%s.%f", "%p", "day %j of %Y", "literal"}

// refFormats formats each row's timestamp by f (by the row's own format
// when f is empty), each row alone.
func refFormats(rows [][]types.Datum, f string) []types.Datum {
	out := make([]types.Datum, len(rows))
	for k, r := range rows {
		if r[0].Null {
			out[k] = null
			continue
		}
		g := f
		if g == "" {
			g = r[1].S
		}
		out[k] = s(string(appendFormatted(nil, parseDateFormat(g), r[0].I)))
	}
	return out
}
