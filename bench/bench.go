package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Case is one benchmark of the registry.
type Case struct {
	Name     string // unique, short, no spaces: selected by --case REGEX
	Measures string // one line: what the figure is
	Unit     string // of the figure and the baseline: "ns/term", "ns/op", "s", "×"
	// Measure runs the case and returns its figure in Unit.
	Measure func(s Size) (Measurement, error)
	// Baseline, if set, runs the bare arithmetic of the same count in the
	// same unit; the table prints Measure / Baseline beside the figure.
	Baseline func(s Size) (Measurement, error)
	Target   Target
}

// Size says how large a case should run: Quick is a smoke test (the
// whole registry in seconds), not a measurement.
type Size struct {
	Quick bool
}

// Pick returns full, or quick when s.Quick.
func (s Size) Pick(full, quick int) int {
	if s.Quick {
		return quick
	}
	return full
}

// benchTime returns the time testing.Benchmark aims for per measurement.
func (s Size) benchTime() time.Duration {
	if s.Quick {
		return 10 * time.Millisecond
	}
	return time.Second
}

// Measurement is what Measure and Baseline return.
type Measurement struct {
	// Value is the figure in the case's unit, from CPU time (user + sys)
	// where the case is timed: on a shared machine the wall clock moves
	// with the other processes' load, the CPU time much less. Wall, if
	// set, is the same figure by the wall clock.
	Value, Wall float64
	// Allocs and Bytes are per unit of Value, valid when Counted.
	Allocs, Bytes float64
	Counted       bool
	Note          string // sizes and other details, for the table's last column
}

// Target is what a case must meet. Met sees the finished Result (figure,
// ratio, allocations, peak RSS); a nil Met means the figure is only
// reported.
type Target struct {
	Text string
	Met  func(r *Result) bool
}

// Result is one case's row of the table (and of --json). Pointer fields
// are absent when not measured.
type Result struct {
	Case     string `json:"case"`
	Measures string `json:"measures"`
	Unit     string `json:"unit"`
	// Figure and Baseline are from CPU time where the case is timed;
	// FigureWall and BaselineWall are the same by the wall clock. The
	// target is judged on Figure and Ratio.
	Figure       float64  `json:"figure"`
	FigureWall   *float64 `json:"figure_wall,omitempty"`
	Baseline     *float64 `json:"baseline,omitempty"`
	BaselineWall *float64 `json:"baseline_wall,omitempty"`
	Ratio        *float64 `json:"ratio,omitempty"`
	Target       string   `json:"target"`
	Met          *bool    `json:"met,omitempty"`
	// Allocs and Bytes are per unit of the figure; BaselineAllocs is the
	// baseline's allocations per unit.
	Allocs         *float64 `json:"allocs_per_unit,omitempty"`
	Bytes          *float64 `json:"bytes_per_unit,omitempty"`
	BaselineAllocs *float64 `json:"baseline_allocs_per_unit,omitempty"`
	// PeakRSS is the child process's maximum resident set size in bytes,
	// 0 when the case ran in-process or the platform does not say.
	PeakRSS      uint64  `json:"peak_rss_bytes,omitempty"`
	Note         string  `json:"note,omitempty"`
	BaselineNote string  `json:"baseline_note,omitempty"`
	Seconds      float64 `json:"seconds"` // wall time of the whole case
	// CPUSeconds is the user + sys time of the child process that ran
	// the case (its rusage), 0 when the case ran in-process.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	// Load is the machine's load while the case ran, when the platform
	// says (Linux).
	Load  *Load  `json:"load,omitempty"`
	Error string `json:"error,omitempty"`
}

var (
	regMu    sync.Mutex
	registry []Case
)

// Register adds a case; it panics on a duplicate or incomplete one, which
// is a programming error caught by the package's tests.
func Register(c Case) {
	regMu.Lock()
	defer regMu.Unlock()
	if c.Name == "" || strings.ContainsAny(c.Name, " \t\n") || c.Measure == nil || c.Unit == "" {
		panic(fmt.Sprintf("bench: incomplete case %q", c.Name))
	}
	for _, o := range registry {
		if o.Name == c.Name {
			panic("bench: duplicate case " + c.Name)
		}
	}
	registry = append(registry, c)
}

// Cases returns the registered cases in registration order.
func Cases() []Case {
	regMu.Lock()
	defer regMu.Unlock()
	return append([]Case(nil), registry...)
}

// Get returns the case named name.
func Get(name string) (Case, bool) {
	for _, c := range Cases() {
		if c.Name == name {
			return c, true
		}
	}
	return Case{}, false
}

// Select returns the cases whose name matches re (all for nil).
func Select(re *regexp.Regexp) []Case {
	var out []Case
	for _, c := range Cases() {
		if re == nil || re.MatchString(c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// Options configures Run.
type Options struct {
	Size Size
	// Child, if set, returns the command that runs the named case in a
	// process of its own and writes its Result as JSON on stdout (`verify
	// bench --child NAME`); the parent then reads the child's peak RSS.
	// Without it cases run in this process and peak RSS is not reported,
	// since this process's high-water mark covers every case before.
	Child func(name string) *exec.Cmd
	// Progress, if set, is called before each case.
	Progress func(c Case, index, total int)
}

// Run runs the cases one after the other (never concurrently: they
// would measure each other) and returns their rows. With opts.Size.Quick
// no target is judged: Met is left nil, except for a case that could not
// run.
func Run(cases []Case, opts Options) []Result {
	var out []Result
	for k, c := range cases {
		if opts.Progress != nil {
			opts.Progress(c, k, len(cases))
		}
		var r Result
		if opts.Child != nil {
			r = runChild(c, opts.Child(c.Name))
		} else {
			before, cpu := SampleLoad(), processCPU()
			r = Measure(c, opts.Size)
			r.Load = Between(before, SampleLoad(), (processCPU() - cpu).Seconds())
		}
		Finish(c, &r)
		if opts.Size.Quick && r.Error == "" {
			// A quick run is a smoke test at small sizes: its figures
			// measure nothing a target speaks of, so none is judged (a
			// case that fails to run still fails).
			r.Met = nil
		}
		out = append(out, r)
	}
	return out
}

// Measure runs one case in this process: the figure, then the baseline.
// The ratio and verdict are left to Finish, which needs the peak RSS the
// parent reads once the child has exited.
func Measure(c Case, s Size) (r Result) {
	r = Result{Case: c.Name, Measures: c.Measures, Unit: c.Unit, Target: c.Target.Text}
	start := time.Now()
	// r is the named result, so the wall time reaches the caller.
	defer func() { r.Seconds = time.Since(start).Seconds() }()
	m, err := c.Measure(s)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
		// JSON, which carries a child's result, has no NaN.
		r.Error = fmt.Sprintf("the figure is %v", m.Value)
		return r
	}
	r.Figure, r.Note = m.Value, m.Note
	if m.Wall > 0 {
		r.FigureWall = ptr(m.Wall)
	}
	if m.Counted {
		r.Allocs, r.Bytes = ptr(m.Allocs), ptr(m.Bytes)
	}
	if c.Baseline != nil {
		b, err := c.Baseline(s)
		if err != nil {
			r.Error = "baseline: " + err.Error()
			return r
		}
		if b.Value > 0 && !math.IsInf(b.Value, 0) {
			r.Baseline, r.BaselineNote = ptr(b.Value), b.Note
			if b.Wall > 0 {
				r.BaselineWall = ptr(b.Wall)
			}
		}
		if b.Counted {
			r.BaselineAllocs = ptr(b.Allocs)
		}
	}
	return r
}

// Unmet returns the cases whose target is not met, errored ones
// included, in the order of results.
func Unmet(results []Result) []string {
	var out []string
	for _, r := range results {
		if r.Met != nil && !*r.Met {
			out = append(out, r.Case)
		}
	}
	return out
}

// Finish fills in the ratio and whether the target is met.
func Finish(c Case, r *Result) {
	r.Case, r.Measures, r.Unit, r.Target = c.Name, c.Measures, c.Unit, c.Target.Text
	if r.Error != "" {
		r.Met = ptr(false)
		return
	}
	if r.Baseline != nil && *r.Baseline > 0 {
		r.Ratio = ptr(r.Figure / *r.Baseline)
	}
	if c.Target.Met != nil {
		r.Met = ptr(c.Target.Met(r))
	}
}

func runChild(c Case, cmd *exec.Cmd) Result {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	before := SampleLoad()
	start := time.Now()
	err := cmd.Run()
	after := SampleLoad()
	var r Result
	if jerr := json.Unmarshal(lastLine(stdout.Bytes()), &r); jerr != nil || r.Case != c.Name {
		msg := strings.TrimSpace(lastLineString(stderr.String()))
		switch {
		case err != nil && msg != "":
			err = fmt.Errorf("%w: %s", err, msg)
		case err == nil && jerr != nil:
			err = fmt.Errorf("unreadable result: %w", jerr)
		case err == nil:
			err = errors.New("the child reported another case")
		}
		r = Result{Case: c.Name, Error: "child process: " + err.Error(), Seconds: time.Since(start).Seconds()}
	}
	if ps := cmd.ProcessState; ps != nil {
		r.PeakRSS = peakRSS(ps)
		r.CPUSeconds = (ps.UserTime() + ps.SystemTime()).Seconds()
		r.Load = Between(before, after, r.CPUSeconds)
	}
	return r
}

func lastLine(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if k := bytes.LastIndexByte(b, '\n'); k >= 0 {
		return b[k+1:]
	}
	return b
}

func lastLineString(s string) string { return string(lastLine([]byte(s))) }

func ptr[T any](v T) *T { return &v }
