package mutation

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/transformer-cookbook/verify/internal/testenv"
)

// survey runs every mutant against the whole default tier of every
// package whose tests build the mutated one (the -run pattern '.'),
// instead of its row's narrow pattern: to ask whether a new mutant
// survives the suite as it is, before writing the test that kills it.
// For a mutant of certify that is most of the module, about a minute
// and a half of CPU.
var survey = flag.Bool("mutation.survey", false, "TestLongSourceMutants runs each mutant against every test of the packages whose tests build the mutated one, instead of its row's pattern (slow: up to 90 s of CPU per mutant)")

// only restricts TestLongSourceMutants to the mutants whose names match.
var only = flag.String("mutation.only", "", "regexp: TestLongSourceMutants runs only the mutants whose names match")

// sample and sampleSeed make TestLongSourceMutants run a seeded sample of
// the mutants (CI's budget holds about a quarter of them; its seed is the
// day, so that successive days run different ones): which mutants ran,
// and the seed that chose them, are in the log. Their defaults come from
// the environment (VERIFY_MUTATION_SAMPLE, VERIFY_MUTATION_SEED), which
// reaches this package alone of a `go test ./...`, as a flag cannot.
var (
	sample     = flag.Int("mutation.sample", envUint("VERIFY_MUTATION_SAMPLE", 0), "TestLongSourceMutants runs this many mutants, chosen by -mutation.seed (0: every mutant; default $VERIFY_MUTATION_SAMPLE)")
	sampleSeed = flag.Uint64("mutation.seed", uint64(envUint("VERIFY_MUTATION_SEED", 1)), "the seed that chooses the mutants of -mutation.sample (default $VERIFY_MUTATION_SEED, else 1)")
)

// envUint is the environment variable name as a non-negative integer,
// def when it is unset; anything else stops the test binary, which
// should not run a sample nobody asked for.
func envUint(name string, def int) int {
	v, ok := os.LookupEnv(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		fmt.Fprintf(os.Stderr, "%s=%q: want a non-negative integer\n", name, v)
		os.Exit(2)
	}
	return n
}

// sampled says which of n mutants a sample of k (0: all) seeded by seed
// runs.
func sampled(n, k int, seed uint64) []bool {
	in := make([]bool, n)
	if k <= 0 || k >= n {
		for i := range in {
			in[i] = true
		}
		return in
	}
	for _, i := range rand.New(rand.NewPCG(seed, 0)).Perm(n)[:k] {
		in[i] = true
	}
	return in
}

// mutant is one row: in file (a path from the module's root), the text
// from, which must occur exactly once, becomes to; the packages pkgs
// (patterns for go test, from the module's root) run with -run run must
// then fail.
type mutant struct {
	name     string
	file     string
	from, to string
	run      string
	pkgs     []string
}

// moduleRoot is the module's root, two levels above this package.
func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("%s is not the module's root: %v", root, err)
	}
	return root
}

// mutate returns the mutated text of m's file, or why it cannot.
func mutate(root string, m mutant) ([]byte, error) {
	src, err := os.ReadFile(filepath.Join(root, m.file))
	if err != nil {
		return nil, err
	}
	switch c := bytes.Count(src, []byte(m.from)); {
	case m.from == "" || m.from == m.to:
		return nil, fmt.Errorf("the original text is empty or the same as the mutated one")
	case c != 1:
		return nil, fmt.Errorf("the original text occurs %d times in %s, want exactly once (the code moved: update the row)", c, m.file)
	}
	return bytes.Replace(src, []byte(m.from), []byte(m.to), 1), nil
}

// testNames lists the top-level test functions of the package in dir.
func testNames(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, path := range files {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names, nil
}

// TestMutantRows checks the rows without running them, in the default
// tier, so that a stale row fails quickly: names are unique, each file
// exists and holds its original text exactly once, the mutated file still
// parses (a mutant must build: one that does not is caught by the
// compiler, not by a test), and each pattern's top level names a test,
// not a long one, of one of its packages.
func TestMutantRows(t *testing.T) {
	root := moduleRoot(t)
	seen := map[string]bool{}
	for _, m := range mutants {
		if m.name == "" || seen[m.name] {
			t.Errorf("mutant %q: the name is empty or used twice", m.name)
		}
		seen[m.name] = true
		src, err := mutate(root, m)
		if err != nil {
			t.Errorf("mutant %q: %v", m.name, err)
			continue
		}
		if _, err := parser.ParseFile(token.NewFileSet(), m.file, src, parser.SkipObjectResolution); err != nil {
			t.Errorf("mutant %q: the mutated %s does not parse: %v", m.name, m.file, err)
		}
		if len(m.pkgs) == 0 {
			t.Errorf("mutant %q: no packages to run", m.name)
		}
		top, _, _ := strings.Cut(m.run, "/")
		re, err := regexp.Compile(top)
		if err != nil || m.run == "" {
			t.Errorf("mutant %q: -run %q: %v", m.name, m.run, err)
			continue
		}
		matched := 0
		for _, pkg := range m.pkgs {
			names, err := testNames(filepath.Join(root, pkg))
			if err != nil {
				t.Errorf("mutant %q: package %s: %v", m.name, pkg, err)
			}
			for _, n := range names {
				if re.MatchString(n) {
					matched++
					// The child runs without the long tier: a TestLong… would
					// only skip.
					if strings.HasPrefix(n, "TestLong") {
						t.Errorf("mutant %q: -run %q matches %s, a long test, which skips in the run", m.name, m.run, n)
					}
				}
			}
		}
		if matched == 0 {
			t.Errorf("mutant %q: -run %q matches no test of %v", m.name, m.run, m.pkgs)
		}
	}
	if len(mutants) < 20 {
		t.Errorf("only %d mutants", len(mutants))
	}
	for _, e := range equivalent {
		if seen[e.name] || e.why == "" {
			t.Errorf("equivalent mutant %q: a row of that name, or no argument", e.name)
		}
		seen[e.name] = true
		if _, err := mutate(root, e.mutant); err != nil {
			t.Errorf("equivalent mutant %q: %v", e.name, err)
		}
	}
}

// outcome is what one mutant's run gave.
type outcome struct {
	caught    []string // the top-level tests that failed
	wall, cpu time.Duration
	problem   string // a bad row, or a mutant that survived
}

var failLine = regexp.MustCompile(`(?m)^--- FAIL: (\S+)`)

// goCommand is the go command that runs the children: go test puts the
// GOROOT/bin of the go command that runs this test first on PATH.
const goCommand = "go"

// childTimeout is the -timeout of a mutant's go test: a mutant that makes
// a test loop forever is caught by it.
const childTimeout = 3 * time.Minute

// run runs the kill tests of m against its mutated file, writing the
// file and the overlay into dir. It runs on its own goroutine, so it
// reports every problem in the outcome.
func run(ctx context.Context, dir, root string, m mutant) outcome {
	src, err := mutate(root, m)
	if err != nil {
		return outcome{problem: err.Error()}
	}
	mutated := filepath.Join(dir, filepath.Base(m.file))
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, m.file): mutated}})
	if err != nil {
		return outcome{problem: err.Error()}
	}
	ovl := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(mutated, src, 0o644); err != nil {
		return outcome{problem: err.Error()}
	}
	if err := os.WriteFile(ovl, overlay, 0o644); err != nil {
		return outcome{problem: err.Error()}
	}
	pattern, pkgs := m.run, m.pkgs
	if *survey {
		pattern = "."
		if pkgs, err = importers(root, filepath.Dir(m.file)); err != nil || len(pkgs) == 0 {
			return outcome{problem: fmt.Sprintf("no package's tests build %s (%v)", filepath.Dir(m.file), err)}
		}
	}
	// -count=1: a cached pass of the unmutated tests would hide the
	// mutant (the cache keys on the overlay too, but a result is never
	// worth trusting here); -vet=off: vet's findings are not a test.
	args := append([]string{"test", "-overlay", ovl, "-count=1", "-vet=off", "-timeout", childTimeout.String(), "-run", pattern}, pkgs...)
	cmd := exec.CommandContext(ctx, goCommand, args...)
	cmd.Dir = root
	// The children run the default tier only: the long tier's tests
	// would multiply the run's time, and a kill test must be quick.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, testenv.LongVar+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	o := outcome{wall: time.Since(start)}
	if cmd.ProcessState != nil {
		// The go command waits for the compiler, linker and test
		// binaries, so its usage includes theirs.
		o.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	text := string(out)
	switch {
	case ctx.Err() != nil:
		o.problem = "the run did not finish in time: " + ctx.Err().Error()
	case err == nil:
		o.problem = "survived: every test passed"
	case strings.Contains(text, "[build failed]") || strings.Contains(text, "[setup failed]"):
		o.problem = "the mutant does not build (a bad row):\n" + tail(text, 20)
	case strings.Contains(text, "panic: test timed out"):
		o.caught = []string{"(a test ran past " + childTimeout.String() + ")"}
	default:
		if _, ok := err.(*exec.ExitError); !ok {
			o.problem = "go test did not run: " + err.Error()
			break
		}
		for _, sm := range failLine.FindAllStringSubmatch(text, -1) {
			if name, _, _ := strings.Cut(sm[1], "/"); !slices.Contains(o.caught, name) {
				o.caught = append(o.caught, name)
			}
		}
		// certify's TestMain fails the run when the independent checker
		// refuses a proof of the analysis, whichever test asked for it.
		if strings.Contains(text, "FAIL: the independent checker refused") {
			o.caught = append(o.caught, "the checker")
		}
		if len(o.caught) == 0 {
			o.problem = "go test failed, but no test did:\n" + tail(text, 20)
		}
	}
	return o
}

var (
	listOnce sync.Once
	listed   []string // go list -test: "import path|its dependencies"
	listErr  error
)

// importers lists, as go test patterns from the module's root, the
// packages whose tests build the package in dir (itself included): those
// whose test binary has it among its dependencies.
func importers(root, dir string) ([]string, error) {
	listOnce.Do(func() {
		cmd := exec.Command(goCommand, "list", "-test", "-f", "{{.ImportPath}}|{{.Module.Path}}|{{join .Deps \" \"}}", "./...")
		cmd.Dir = root
		var out []byte
		if out, listErr = cmd.Output(); listErr == nil {
			listed = strings.Split(strings.TrimSpace(string(out)), "\n")
		}
	})
	if listErr != nil {
		return nil, fmt.Errorf("go list: %v", listErr)
	}
	var pkgs []string
	for _, line := range listed {
		path, rest, _ := strings.Cut(line, "|")
		module, deps, _ := strings.Cut(rest, "|")
		target := module + "/" + filepath.ToSlash(dir)
		// The test binaries: "p.test", whose dependencies are those of
		// p's tests, internal and external.
		p, ok := strings.CutSuffix(path, ".test")
		if !ok || !(p == target || slices.Contains(strings.Fields(deps), target)) {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		pkgs = append(pkgs, "./"+rel+"/")
	}
	return pkgs, nil
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestLongSourceMutants runs every mutant (see the package's doc) and
// requires each to be caught by a failing test, two at a time. It prints
// a table: the mutant, the tests that caught it, the wall and CPU time of
// its run.
func TestLongSourceMutants(t *testing.T) {
	testenv.Long(t)
	root := moduleRoot(t)
	var filter *regexp.Regexp
	if *only != "" {
		filter = regexp.MustCompile(*only)
	}
	// Build once without a mutant, so that the runs below compile only
	// the mutated package and what imports it.
	warm := exec.Command(goCommand, "test", "-count=1", "-vet=off", "-run", "^$", "./certify/", "./exact/cpwl/", "./frontier/")
	warm.Dir = root
	if out, err := warm.CombinedOutput(); err != nil {
		t.Fatalf("the tree does not build: %v\n%s", err, out)
	}
	outcomes := make([]outcome, len(mutants))
	ran := make([]bool, len(mutants))
	chosen := sampled(len(mutants), *sample, *sampleSeed)
	if *sample > 0 {
		t.Logf("a sample of %d of the %d mutants, seed %d (-mutation.seed)", min(*sample, len(mutants)), len(mutants), *sampleSeed)
	}
	slots := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))
	var wg sync.WaitGroup
	start := time.Now()
	cpu0, _ := testenv.ProcessCPU()
	for k, m := range mutants {
		if !chosen[k] || filter != nil && !filter.MatchString(m.name) {
			continue
		}
		ran[k] = true
		dir := t.TempDir()
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			ctx, cancel := context.WithTimeout(context.Background(), childTimeout+2*time.Minute)
			defer cancel()
			o := run(ctx, dir, root, m)
			outcomes[k] = o
			// Each outcome as it comes: a long run says where it is.
			by := strings.Join(o.caught, ", ")
			if o.problem != "" {
				by = "NOT CAUGHT: " + strings.SplitN(o.problem, "\n", 2)[0]
			}
			t.Logf("%s: %s (%.1f s)", m.name, by, o.wall.Seconds())
		}()
	}
	wg.Wait()
	var tab strings.Builder
	w := tabwriter.NewWriter(&tab, 2, 8, 2, ' ', 0)
	fmt.Fprintln(w, "mutant\tfile\tcaught by\twall\tCPU")
	var cpu time.Duration
	caught, total := 0, 0
	for k, m := range mutants {
		if !ran[k] {
			continue
		}
		o := outcomes[k]
		total++
		cpu += o.cpu
		by := strings.Join(o.caught, ", ")
		if o.problem != "" {
			by = "NOT CAUGHT"
			t.Errorf("mutant %q (%s): %s", m.name, m.file, o.problem)
		} else {
			caught++
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%.1fs\t%.1fs\n", m.name, m.file, by, o.wall.Seconds(), o.cpu.Seconds())
	}
	w.Flush()
	self, _ := testenv.ProcessCPU()
	t.Logf("source mutants%s:\n%s%d of %d caught in %.0f s (%.0f s of CPU in the runs, %.1f s here)",
		map[bool]string{true: " (survey: go test ./...)"}[*survey], tab.String(), caught, total,
		time.Since(start).Seconds(), cpu.Seconds(), (self - cpu0).Seconds())
}

// TestMutantSample holds the sample CI runs to its size, to its seed (a
// seed that chose nothing new would run the same mutants every day) and
// to the whole set when no sample is asked for.
func TestMutantSample(t *testing.T) {
	count := func(in []bool) (k int) {
		for _, b := range in {
			if b {
				k++
			}
		}
		return k
	}
	for _, tc := range []struct{ n, k, want int }{{53, 18, 18}, {53, 0, 53}, {53, 60, 53}, {1, 1, 1}} {
		if got := count(sampled(tc.n, tc.k, 7)); got != tc.want {
			t.Errorf("sampled(%d, %d): %d mutants, want %d", tc.n, tc.k, got, tc.want)
		}
	}
	if slices.Equal(sampled(53, 18, 1), sampled(53, 18, 2)) {
		t.Error("seeds 1 and 2 choose the same mutants")
	}
	if !slices.Equal(sampled(53, 18, 5), sampled(53, 18, 5)) {
		t.Error("one seed chose two samples")
	}
}
