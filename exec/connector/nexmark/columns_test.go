package nexmark

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

func TestColumns(t *testing.T) {
	tests := []struct {
		table string
		want  string
	}{
		{"bid", "auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP(3), extra VARCHAR"},
		{"Auction", "id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT, date_time TIMESTAMP(3), " +
			"expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR"},
		{" PERSON ", "id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR, city VARCHAR, state VARCHAR, date_time TIMESTAMP(3), extra VARCHAR"},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range Columns(tt.table) {
			if c.Nullable {
				t.Errorf("%s.%s is nullable", tt.table, c.Name)
			}
			got = append(got, c.Name+" "+c.Type.String())
		}
		if s := strings.Join(got, ", "); s != tt.want {
			t.Errorf("Columns(%q) = %s, want %s", tt.table, s, tt.want)
		}
	}
	if got := Columns("bids"); got != nil {
		t.Errorf("Columns(bids) = %v, want nil", got)
	}
}

// TestColumnSubsets checks that a column has the same values whatever
// other columns are declared and in whatever order: undeclared columns
// still draw their random values.
func TestColumnSubsets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, table := range tables {
		t.Run(table, func(t *testing.T) {
			cfg := testConfig(table, 5_000)
			cfg.Seed = 99
			all := readAll(t, cfg)
			names := Columns(table)
			var subsets [][]int
			for j := range names {
				subsets = append(subsets, []int{j}) // each column alone
			}
			rev := make([]int, len(names))
			for j := range rev {
				rev[j] = len(names) - 1 - j
			}
			subsets = append(subsets, rev)
			for range 10 {
				perm := r.Perm(len(names))
				subsets = append(subsets, perm[:1+r.IntN(len(names))])
			}
			for _, sub := range subsets {
				decl := make([]catalog.Column, len(sub))
				var label []string
				for i, j := range sub {
					decl[i] = names[j]
					if i%2 == 1 {
						decl[i].Name = strings.ToUpper(decl[i].Name) // matched case-insensitively
					}
					label = append(label, decl[i].Name)
				}
				c := cfg
				c.Columns = decl
				got := readAll(t, c)
				if len(got) != len(all) {
					t.Fatalf("columns %v: %d rows, want %d", label, len(got), len(all))
				}
				for row := range got {
					for i, j := range sub {
						if got[row][i] != all[row][j] {
							t.Fatalf("columns %v: row %d column %s is %v, want %v", label, row, decl[i].Name, got[row][i], all[row][j])
						}
					}
				}
			}
		})
	}
}

// TestColumnNamesKept checks that the chunks' fields carry the declared
// names and nullability.
func TestColumnNamesKept(t *testing.T) {
	cfg := testConfig(TableBid, 100)
	cfg.Columns = []catalog.Column{{Name: "Price", Type: types.BigIntT, Nullable: true}, {Name: "URL", Type: types.VarcharT}}
	src, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fs := src.Schema().Fields()
	if len(fs) != 2 || fs[0].Name != "Price" || !fs[0].Nullable || fs[1].Name != "URL" || fs[1].Nullable {
		t.Errorf("schema %s", src.Schema())
	}
}

// TestTimestampFsp checks that a TIMESTAMP(0) column gets its values
// rounded to the second, as a file source stores them.
func TestTimestampFsp(t *testing.T) {
	cfg := testConfig(TableAuction, 100_000)
	cfg.Columns = cols(t, TableAuction, "date_time", "expires")
	ms := readAll(t, cfg)
	cfg.Columns = []catalog.Column{{Name: "date_time", Type: types.TimestampT(0)}, {Name: "expires", Type: types.TimestampT(1)}}
	rounded := readAll(t, cfg)
	for i := range ms {
		if want := types.RoundToFsp(ms[i][0].I, 0); rounded[i][0].I != want {
			t.Fatalf("row %d: date_time %d, want %d", i, rounded[i][0].I, want)
		}
		if want := types.RoundToFsp(ms[i][1].I, 1); rounded[i][1].I != want {
			t.Fatalf("row %d: expires %d, want %d", i, rounded[i][1].I, want)
		}
	}
}

func TestColumnErrors(t *testing.T) {
	tests := []struct {
		table string
		cols  []catalog.Column
		want  string
	}{
		{"bid", []catalog.Column{{Name: "price", Type: types.BigIntT}, {Name: "bid_price", Type: types.BigIntT}},
			"nexmark connector: column bid_price: is not a column of nexmark table bid (valid: auction, bidder, price, channel, url, date_time, extra)"},
		{"person", []catalog.Column{{Name: "seller", Type: types.BigIntT}},
			"nexmark connector: column seller: is not a column of nexmark table person (valid: id, name, email_address, credit_card, city, state, date_time, extra)"},
		{"bid", []catalog.Column{{Name: "price", Type: types.BigIntT}, {Name: "PRICE", Type: types.BigIntT}},
			"nexmark connector: column PRICE: is declared twice"},
		{"bid", []catalog.Column{{Name: "price", Type: types.DoubleT}},
			"nexmark connector: column price: has type DOUBLE; nexmark table bid gives it type BIGINT"},
		{"bid", []catalog.Column{{Name: "price", Type: types.IntT}},
			"nexmark connector: column price: has type INT; nexmark table bid gives it type BIGINT"},
		{"auction", []catalog.Column{{Name: "date_time", Type: types.VarcharT}},
			"nexmark connector: column date_time: has type VARCHAR; nexmark table auction gives it type TIMESTAMP(3)"},
		{"person", []catalog.Column{{Name: "name", Type: types.BigIntT}},
			"nexmark connector: column name: has type BIGINT; nexmark table person gives it type VARCHAR"},
	}
	for _, tt := range tests {
		cfg := testConfig(tt.table, 0)
		cfg.Columns = tt.cols
		_, err := New(cfg)
		var ce *ColumnError
		if !errors.As(err, &ce) {
			t.Errorf("%v: error %v, want a *ColumnError", tt.cols, err)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("error %q\n want %q", err, tt.want)
		}
	}
}
