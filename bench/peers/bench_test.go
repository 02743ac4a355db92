package main

import (
	"testing"
	"time"
)

// TestSelectQueries checks query selection by name.
func TestSelectQueries(t *testing.T) {
	all, err := SelectQueries("all")
	if err != nil || len(all) != len(Queries) {
		t.Fatalf("all: %d queries, %v", len(all), err)
	}
	two, err := SelectQueries("topn, filter")
	if err != nil || len(two) != 2 || two[0].Name != "filter" || two[1].Name != "topn" {
		t.Fatalf("topn, filter: %v, %v", two, err)
	}
	if _, err := SelectQueries("filter,nope"); err == nil {
		t.Fatal("an unknown query was accepted")
	}
}

// TestFindCheck checks that eddy's check row is found among other output
// and split into its values.
func TestFindCheck(t *testing.T) {
	out := []byte("tag,COUNT(*),SUM(price)\n" + checkTag + ",13229,1433365285\n")
	got, err := findCheck(out)
	if err != nil || len(got) != 2 || got[0] != "13229" || got[1] != "1433365285" {
		t.Fatalf("findCheck = %v, %v", got, err)
	}
	if _, err := findCheck([]byte("tag\n")); err == nil {
		t.Fatal("output without a check row was accepted")
	}
}

// TestModulePath checks reading a go.mod's module line.
func TestModulePath(t *testing.T) {
	if got := modulePath([]byte("// c\nmodule github.com/eddysql/eddy\n\ngo 1.26\n")); got != eddyModule {
		t.Fatalf("modulePath = %q", got)
	}
}

// TestMedian checks the median by wall time, the lower middle for an
// even count.
func TestMedian(t *testing.T) {
	ms := []Measurement{{Wall: 3 * time.Second}, {Wall: time.Second}, {Wall: 2 * time.Second}}
	if got := Median(ms).Wall; got != 2*time.Second {
		t.Fatalf("median of 3 = %s", got)
	}
	if got := Median(ms[:2]).Wall; got != time.Second {
		t.Fatalf("median of 2 = %s", got)
	}
}
