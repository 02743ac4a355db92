package nexmark

import (
	"errors"
	"strings"
	"testing"
)

func TestWriteTable(t *testing.T) {
	outcomes := []Outcome{
		{Query: BaselineName, Figures: Figures{Query: BaselineName, Events: 10_000_000, WallS: 1, CPUS: 2, Cores: 2,
			EventsPerS: 10e6, EventsPerSPerCore: 5e6, PeakRSSBytes: 40 << 20}},
		{Query: "q0", Figures: Figures{Query: "q0", Events: 10_000_000, WallS: 0.5, CPUS: 1, Cores: 2,
			EventsPerS: 20e6, EventsPerSPerCore: 10e6, PeakRSSBytes: 60 << 20}},
		{Query: "q3", Err: errors.New("q3.sql: not supported yet: joins at 7:1\nJOIN person\n^")},
		{Query: "q22", Figures: Figures{Query: "q22", Events: 10_000_000, WallS: 12.25, CPUS: 20.5, Cores: 1.673,
			EventsPerS: 816_327, EventsPerSPerCore: 487_805, PeakRSSBytes: 12 << 30}},
	}
	var b strings.Builder
	if err := WriteTable(&b, outcomes); err != nil {
		t.Fatal(err)
	}
	want := `query         events           wall s            cpu s         cores       events/s  events/s/core            peak RSS
baseline  10,000,000            1.000            2.000          2.00          10.0M          5.00M            40.0 MiB
q0        10,000,000    0.500 (0.50×)    1.000 (0.50×)  2.00 (1.00×)  20.0M (2.00×)  10.0M (2.00×)    60.0 MiB (1.50×)
q3        cannot run: q3.sql: not supported yet: joins at 7:1 / JOIN person / ^
q22       10,000,000  12.250 (12.25×)  20.500 (10.25×)  1.67 (0.84×)   816K (0.08×)   488K (0.10×)  12.0 GiB (307.20×)
2 of 3 queries ran; 1 could not run.
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWriteTableWithoutBaseline(t *testing.T) {
	var b strings.Builder
	err := WriteTable(&b, []Outcome{{Query: "q0", Figures: Figures{Query: "q0", Events: 5, WallS: 1, CPUS: 1, Cores: 1, EventsPerS: 5, EventsPerSPerCore: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "×") || !strings.HasSuffix(b.String(), "1 of 1 queries ran.\n") {
		t.Errorf("got\n%s", b.String())
	}
}

func TestNumberFormats(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{humanRate(0), "0.00"}, {humanRate(950), "950"}, {humanRate(1500), "1.50K"}, {humanRate(812_400), "812K"},
		{humanRate(20_833_333), "20.8M"}, {humanRate(2.5e9), "2.50G"},
		{groupThousands(0), "0"}, {groupThousands(999), "999"}, {groupThousands(1000), "1,000"},
		{groupThousands(10_000_000), "10,000,000"}, {groupThousands(-1234567), "-1,234,567"},
		{humanBytes(48 << 20), "48.0 MiB"}, {humanBytes(1536 << 20), "1536.0 MiB"}, {humanBytes(10 << 30), "10.0 GiB"},
		{ratioText(1.234), "(1.23×)"}, {ratioText(0.5), "(0.50×)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	lines := Describe(Config{Events: 1_000_000, Parallelism: 2})
	text := strings.Join(lines, "\n")
	for _, want := range []string{"1,000,000 events", "parallelism 2", "unthrottled", "(--generate read)", "baseline: " + BaselineDescription} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	if text := strings.Join(Describe(Config{Events: 1, Parallelism: 1, Rate: 50_000}), "\n"); !strings.Contains(text, "throttled to 50.0K events/s") {
		t.Errorf("rate: %s", text)
	}
	if text := strings.Join(Describe(Config{Events: 1, Generate: GenerateAll}), "\n"); !strings.Contains(text, "every event of every table, every column, whatever the query reads (--generate all)") {
		t.Errorf("generate all: %s", text)
	}
}
