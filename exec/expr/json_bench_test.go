package expr

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// BenchmarkJSON measures the JSON functions over 4096 documents shaped
// like a Nexmark bid (about 150 bytes, the field read in the middle),
// against reading every byte of the same text (char_length, which
// decodes UTF-8, and upper) in the same run:
//
//	go test -run '^$' -bench BenchmarkJSON -count 5 ./exec/expr
func BenchmarkJSON(b *testing.B) {
	alloc := memory.NewGoAllocator()
	rows := make([][]types.Datum, 4096)
	for k := range rows {
		rows[k] = []types.Datum{s(fmt.Sprintf(`{"auction": %d, "bidder": %d, "price": %d, "channel": "channel-%d", "url": "https://www.nexmark.com/item/%d", "extra": {"geo": {"country": "NL"}}}`,
			1000+k%300, 2000+k, k*37%100000, k%5, k))}
	}
	rec := types.BuildRecord(alloc, []string{"doc"}, []types.T{vchar}, rows)
	defer rec.Release()
	doc := col(0, vchar)
	jsonT := types.JSONT
	for _, c := range []struct {
		name string
		e    plan.Expr
	}{
		{"baseline char_length(doc)", fn("char_length", bigint, doc)},
		{"baseline upper(doc)", fn("upper", vchar, doc)},
		{"doc->'$.price'", fn("json_extract", jsonT, doc, litS("$.price"))},
		{"doc->>'$.channel'", fn("json_unquote", vchar, fn("json_extract", jsonT, doc, litS("$.channel")))},
		{"doc->'$.extra.geo.country'", fn("json_extract", jsonT, doc, litS("$.extra.geo.country"))},
		{"JSON_VALUE(doc,'$.price' RETURNING BIGINT)", &plan.Func{Name: "json_value", Args: []plan.Expr{doc, litS("$.price"), litS("BIGINT")}, Typ: bigint, Null: true}},
		{"JSON_VALID(doc)", fn("json_valid", types.BoolT, doc)},
	} {
		b.Run(c.name, func(b *testing.B) {
			x, err := Compile(c.e, []types.T{vchar})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				out, err := x.Eval(alloc, rec)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(4096*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
