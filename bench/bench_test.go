package bench

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes"
)

func TestRegistry(t *testing.T) {
	cases := Cases()
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		if c.Measures == "" || c.Target.Text == "" {
			t.Errorf("%s: says neither what it measures nor its target", c.Name)
		}
	}
	for _, want := range []string{"lookup-fp64", "lookup-fp16", "lookup-big53", "sweep-lookup-exact", "sweep-dyck1-exact", "cores-sweep-lookup-exact", "op-big53-muladd", "op-fp8-e4m3-add"} {
		if _, ok := Get(want); !ok {
			t.Errorf("no case %s", want)
		}
	}
	if got := Select(regexp.MustCompile("^lookup-big")); len(got) != 3 {
		t.Errorf("^lookup-big selects %d cases, want 3", len(got))
	}
	defer func() {
		if recover() == nil {
			t.Error("a duplicate name was registered")
		}
	}()
	Register(Case{Name: "lookup-fp64", Unit: "s", Measure: func(Size) (Measurement, error) { return Measurement{}, nil }})
}

// TestScoreTerms: the lookup's head is unmasked with d_key = 2; Dyck-1's
// two heads are future-masked with d_key = 1.
func TestScoreTerms(t *testing.T) {
	for _, tc := range []struct {
		recipe        string
		scores, terms int
	}{{"lookup", 100, 200}, {"dyck1", 2 * 55, 2 * 55}} {
		r, err := recipes.Get(tc.recipe)
		if err != nil {
			t.Fatal(err)
		}
		con, err := r.Construct(r.Weightings[0], 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s, tt := con.Model.ScoreTerms(10); s != tc.scores || tt != tc.terms {
			t.Errorf("%s at n = 10: %d scores, %d terms; want %d, %d", tc.recipe, s, tt, tc.scores, tc.terms)
		}
	}
	m := &model.Model{Layers: []model.Layer{{Attention: &model.Attention{Mask: model.StrictPast, Heads: []model.Head{{Q: model.Zeros(3, 1)}}}}}}
	if s, tt := m.ScoreTerms(4); s != 6 || tt != 18 {
		t.Errorf("strict-past, d_key 3, n = 4: %d scores, %d terms; want 6, 18", s, tt)
	}
}

// TestMeasureQuick runs one forward-pass case in-process: a figure, a
// baseline, allocations counted, and a verdict.
func TestMeasureQuick(t *testing.T) {
	c, _ := Get("lookup-fp64")
	r := Measure(c, Size{Quick: true})
	Finish(c, &r)
	if r.Error != "" {
		t.Fatal(r.Error)
	}
	if r.Figure <= 0 || r.Baseline == nil || *r.Baseline <= 0 || r.Ratio == nil || r.Allocs == nil || r.Met == nil {
		t.Errorf("incomplete result %+v", r)
	}
	if r.PeakRSS != 0 {
		t.Errorf("in-process peak RSS %d, want 0 (n/a)", r.PeakRSS)
	}
}

func TestTargets(t *testing.T) {
	r := &Result{Figure: 1.5, Baseline: ptr(1.0), Ratio: ptr(1.5), Allocs: ptr(0.01), PeakRSS: 2 << 30}
	for _, tc := range []struct {
		t    Target
		text string
		met  bool
	}{
		{AtMost(2, "ns"), "≤ 2 ns", true},
		{AtMost(1, "ns"), "≤ 1 ns", false},
		{AtLeast(2, "×"), "≥ 2 ×", false},
		{RatioAtMost(3), "≤ 3× bare", true},
		{NoAllocs(), "no alloc", true},
		{PeakBelow(gib, "1 GiB"), "RSS < 1 GiB", false},
		{All(AtMost(2, "ns"), NoAllocs()), "≤ 2 ns, no alloc", true},
		{All(AtMost(2, "ns"), PeakBelow(gib, "1 GiB")), "≤ 2 ns, RSS < 1 GiB", false},
	} {
		if tc.t.Text != tc.text || tc.t.Met(r) != tc.met {
			t.Errorf("%q: met %v, want %q, %v", tc.t.Text, tc.t.Met(r), tc.text, tc.met)
		}
	}
	// Unknown allocations or RSS: no alloc is not shown, a peak is not
	// refuted.
	if NoAllocs().Met(&Result{}) || !PeakBelow(1, "1 B").Met(&Result{}) {
		t.Error("unmeasured allocations met, or unknown RSS refuted")
	}
}

func TestWriteTable(t *testing.T) {
	results := []Result{
		{Case: "a", Unit: "ns/term", Figure: 1.234, Baseline: ptr(0.5), Ratio: ptr(2.468), Target: "≤ 2 ns", Met: ptr(true), Allocs: ptr(0.0123), PeakRSS: 30 << 20, Note: "n = 4"},
		{Case: "b", Unit: "s", Figure: 1234.5, Target: "report"},
		{Case: "c", Unit: "s", Target: "≤ 30 s", Met: ptr(false), Error: "boom"},
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, results); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := [][]string{
		{"case", "unit", "figure", "baseline", "ratio", "target", "met", "allocs/unit", "peak", "RSS", "note"},
		{"a", "ns/term", "1.23", "0.500", "2.47×", "≤", "2", "ns", "yes", "0.0123", "30MiB", "n", "=", "4"},
		{"b", "s", "1234", "—", "—", "report", "—", "—", "n/a"},
		{"c", "s", "—", "—", "—", "≤", "30", "s", "NO", "—", "n/a", "error:", "boom"},
	}
	for k, l := range lines {
		if got := strings.Fields(l); strings.Join(got, "|") != strings.Join(want[k], "|") {
			t.Errorf("line %d: %q, want %q", k, got, want[k])
		}
	}
}

// TestChildFailure: a child that prints no result is reported as an
// error row, not a crash, with the child's last line of stderr.
func TestChildFailure(t *testing.T) {
	c, _ := Get("sweep-dyck1-exact")
	rs := Run([]Case{c}, Options{Child: func(string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperChildFails$")
		cmd.Env = append(os.Environ(), "BENCH_HELPER_CHILD=1")
		return cmd
	}})
	if len(rs) != 1 || !strings.Contains(rs[0].Error, "the child says why") || rs[0].Met == nil || *rs[0].Met {
		t.Errorf("got %+v", rs)
	}
}

func TestHelperChildFails(t *testing.T) {
	if os.Getenv("BENCH_HELPER_CHILD") != "1" {
		t.Skip("run by TestChildFailure")
	}
	os.Stderr.WriteString("the child says why\n")
	os.Exit(3)
}

func TestNumber(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1.5: "1.50", 12.345: "12.3", 123.4: "123", 0.01234: "0.0123", 0.0001234: "0.000123", 2.5e-5: "2.5e-05"} {
		if got := number(v); got != want {
			t.Errorf("number(%g) = %q, want %q", v, got, want)
		}
	}
}
