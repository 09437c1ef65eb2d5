package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/transformer-cookbook/verify/internal/plural"
)

// Machine describes where the figures were measured.
type Machine struct {
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	GoVersion  string `json:"go_version"`
	CPUModel   string `json:"cpu_model,omitempty"`
}

// ThisMachine describes the running process's machine.
func ThisMachine() Machine {
	return Machine{
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(), CPUModel: cpuModel(),
	}
}

func (m Machine) String() string {
	s := fmt.Sprintf("%s/%s, %s, GOMAXPROCS %d, %s", m.GOOS, m.GOARCH, plural.Of(m.CPUs, "CPU"), m.GOMAXPROCS, m.GoVersion)
	if m.CPUModel != "" {
		s += ", " + m.CPUModel
	}
	return s
}

// cpuModel reads the first "model name" of /proc/cpuinfo (Linux; empty
// elsewhere).
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Columns are the table's header, in order: the figure (from CPU time
// where the case is timed) and the same by the wall clock, the baseline
// and the ratio, the target, allocations, peak RSS, the child process's
// CPU and wall seconds, and the machine's load meanwhile (the 1-minute
// load average at the start and the end, and the CPUs other processes
// kept busy on average).
var Columns = []string{"case", "unit", "figure", "wall", "baseline", "ratio", "target", "met", "allocs/unit", "peak RSS", "cpu s", "wall s", "load 1m", "others", "note"}

// WriteTable prints the results as an aligned table, one row per case;
// an errored case prints its error in the note. Numbers are plain
// decimals ("—" when absent, "n/a" for an unknown peak RSS) so that the
// table can be read back.
func WriteTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(Columns, "\t"))
	for _, r := range results {
		figure, wall := number(r.Figure), optional(r.FigureWall)
		note := r.Note
		if r.BaselineNote != "" {
			note += "; bare: " + r.BaselineNote
		}
		if r.Error != "" {
			figure, wall, note = "—", "—", "error: "+r.Error
		}
		met := "—"
		if r.Met != nil {
			met = map[bool]string{true: "yes", false: "NO"}[*r.Met]
		}
		rss := "n/a"
		if r.PeakRSS > 0 {
			rss = fmt.Sprintf("%.0fMiB", float64(r.PeakRSS)/(1<<20))
		}
		cpu := "—"
		if r.CPUSeconds > 0 {
			cpu = number(r.CPUSeconds)
		}
		load, others := "—", "—"
		if l := r.Load; l != nil {
			load = strconv.FormatFloat(l.Before, 'f', 2, 64) + "→" + strconv.FormatFloat(l.After, 'f', 2, 64)
			others = strconv.FormatFloat(l.OtherCPUs(), 'f', 2, 64)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Case, r.Unit, figure, wall, optional(r.Baseline), ratio(r.Ratio),
			strings.ReplaceAll(r.Target, " ", "\u00a0"), met, optional(r.Allocs), rss, cpu, number(r.Seconds), load, others, strings.ReplaceAll(note, "\t", " "))
	}
	return tw.Flush()
}

func optional(v *float64) string {
	if v == nil {
		return "—"
	}
	return number(*v)
}

func ratio(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64) + "×"
}

// number prints three significant digits, without an exponent for the
// sizes a benchmark produces.
func number(v float64) string {
	switch a := abs(v); {
	case a == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 0.001:
		return strconv.FormatFloat(v, 'f', 3-digitsBeforePoint(a), 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func digitsBeforePoint(a float64) int {
	switch {
	case a >= 10:
		return 2
	case a >= 1:
		return 1
	case a >= 0.1:
		return 0
	case a >= 0.01:
		return -1
	}
	return -2
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
