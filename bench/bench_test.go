package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
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
	if r.FigureWall == nil || *r.FigureWall <= 0 || r.BaselineWall == nil || r.Seconds <= 0 {
		t.Errorf("no wall-clock figure, baseline or seconds: %+v", r)
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
		{Case: "a", Unit: "ns/term", Figure: 1.234, FigureWall: ptr(2.5), Baseline: ptr(0.5), Ratio: ptr(2.468), Target: "≤ 2 ns", Met: ptr(true), Allocs: ptr(0.0123), PeakRSS: 30 << 20,
			CPUSeconds: 3.5, Seconds: 4.25, Load: &Load{Before: 5, After: 6.5, OtherCPUSeconds: 6.8, Seconds: 4}, Note: "n = 4"},
		{Case: "b", Unit: "s", Figure: 1234.5, Target: "report", Seconds: 0.5},
		{Case: "c", Unit: "s", Target: "≤ 30 s", Met: ptr(false), Error: "boom"},
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, results); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := [][]string{
		{"case", "unit", "figure", "wall", "baseline", "ratio", "target", "met", "allocs/unit", "peak", "RSS", "cpu", "s", "wall", "s", "load", "1m", "others", "note"},
		{"a", "ns/term", "1.23", "2.50", "0.500", "2.47×", "≤", "2", "ns", "yes", "0.0123", "30MiB", "3.50", "4.25", "5.00→6.50", "1.70", "n", "=", "4"},
		{"b", "s", "1234", "—", "—", "—", "report", "—", "—", "n/a", "—", "0.500", "—", "—"},
		{"c", "s", "—", "—", "—", "—", "≤", "30", "s", "NO", "—", "n/a", "—", "0", "—", "—", "error:", "boom"},
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

// TestTimedIsCPU: a run that sleeps takes wall time and almost no CPU
// time; the figure must be the CPU time (on a machine without
// getrusage, the wall time).
func TestTimedIsCPU(t *testing.T) {
	m, err := Timed(func() error { time.Sleep(100 * time.Millisecond); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if m.Wall < 0.1 {
		t.Errorf("wall %g s for a sleep of 0.1 s", m.Wall)
	}
	if processCPU() > 0 && m.Value > m.Wall/2 {
		t.Errorf("figure %g s for a sleep of %g s: not the CPU time", m.Value, m.Wall)
	}
}

// TestTimedMedian: five runs that sleep 10, 50, 30, 70 and 90 ms take
// the middle one's wall time, 50 ms (at least 50 and well under 70),
// and, being sleeps, almost no CPU time; an error stops the runs.
func TestTimedMedian(t *testing.T) {
	sleeps := []time.Duration{10, 50, 30, 70, 90}
	k := 0
	m, err := TimedMedian(len(sleeps), func() error {
		time.Sleep(sleeps[k] * time.Millisecond)
		k++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if k != len(sleeps) || m.Wall < 0.05 || m.Wall >= 0.07 {
		t.Errorf("%d runs, median wall %g s; want 5 runs and the 50 ms one", k, m.Wall)
	}
	if processCPU() > 0 && m.Value > m.Wall/2 {
		t.Errorf("figure %g s for sleeps: not the CPU time", m.Value)
	}
	calls := 0
	if _, err := TimedMedian(5, func() error { calls++; return errors.New("refused") }); err == nil || calls != 1 {
		t.Errorf("an error: %v after %d calls, want it after 1", err, calls)
	}
	if got := median([]float64{3, 1, 2, 5, 4}); got != 3 {
		t.Errorf("median of 1 … 5 = %g, want 3", got)
	}
}

// TestLoadBetween: the other processes' CPU time is the machine's busy
// time less the case's own, never below 0; the average is over the wall
// time between the samples.
func TestLoadBetween(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := LoadSample{avg1: 1.5, busy: 100, at: t0, ok: true}
	b := LoadSample{avg1: 2.25, busy: 108, at: t0.Add(4 * time.Second), ok: true}
	l := Between(a, b, 3)
	if l == nil || l.Before != 1.5 || l.After != 2.25 || l.OtherCPUSeconds != 5 || l.Seconds != 4 || l.OtherCPUs() != 1.25 {
		t.Errorf("got %+v", l)
	}
	if l := Between(a, b, 10); l.OtherCPUSeconds != 0 {
		t.Errorf("own time above the machine's busy time: others %g, want 0", l.OtherCPUSeconds)
	}
	if Between(LoadSample{}, b, 0) != nil {
		t.Error("a failed reading gave a load")
	}
	if s := SampleLoad(); runtime.GOOS == "linux" && (!s.ok || s.busy <= 0) {
		t.Errorf("no load read on Linux: %+v", s)
	}
}

func TestNumber(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1.5: "1.50", 12.345: "12.3", 123.4: "123", 0.01234: "0.0123", 0.0001234: "0.000123", 2.5e-5: "2.5e-05"} {
		if got := number(v); got != want {
			t.Errorf("number(%g) = %q, want %q", v, got, want)
		}
	}
}

// BenchmarkLookupFP64 compares the engine's fp64 forward pass of the
// lookup (one average-hard head, d_key = 2) with FusedHardmax, the tight
// loop doing the attention's work, per score term at n = 1024 and 4096;
// allocs/op is per pass. cpu-ns/term is the process's CPU time (user +
// sys), which the load of a shared machine moves less than the wall
// clock's ns/term.
//
//	go test -run X -bench LookupFP64 ./bench/
func BenchmarkLookupFP64(b *testing.B) { benchLookupFloat[float64](b, "fp64") }

// BenchmarkLookupFP32 is BenchmarkLookupFP64 at fp32.
func BenchmarkLookupFP32(b *testing.B) { benchLookupFloat[float32](b, "fp32") }

func benchLookupFloat[F float32 | float64](b *testing.B, precision string) {
	for _, n := range []int{1024, 4096} {
		terms := float64(n * n * lookupDKey)
		b.Run(fmt.Sprintf("engine/n=%d", n), func(b *testing.B) {
			runner, input, _, err := lookupPass(numeric.MustParsePrecision(precision), n)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu := startCPU(b)
			for range b.N {
				if _, err := runner.Run(input, false); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(terms)
		})
		b.Run(fmt.Sprintf("fused/n=%d", n), func(b *testing.B) {
			q, k, v, out := fusedOperands[F](n)
			b.ReportAllocs()
			cpu := startCPU(b)
			for range b.N {
				FusedHardmax(q, k, v, out)
			}
			cpu.report(terms)
		})
	}
}

// cpuClock reports a benchmark's CPU time and wall time per unit.
type cpuClock struct {
	b   *testing.B
	cpu time.Duration
}

func startCPU(b *testing.B) cpuClock {
	b.ResetTimer()
	return cpuClock{b, processCPU()}
}

func (c cpuClock) report(units float64) {
	cpu := processCPU() - c.cpu
	c.b.StopTimer()
	per := float64(c.b.N) * units
	c.b.ReportMetric(float64(cpu.Nanoseconds())/per, "cpu-ns/term")
	c.b.ReportMetric(float64(c.b.Elapsed().Nanoseconds())/per, "ns/term")
}

// BenchmarkAttentionFP64 is BenchmarkLookupFP64 for the attention
// sublayer alone (no embedding, feed-forward layer or outputs).
func BenchmarkAttentionFP64(b *testing.B) {
	for _, n := range []int{1024, 4096} {
		b.Run(fmt.Sprintf("engine/n=%d", n), func(b *testing.B) {
			attend, err := lookupAttention(numeric.NewFloat64(), n)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu := startCPU(b)
			for range b.N {
				if err := attend(); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(float64(n * n * lookupDKey))
		})
	}
}
