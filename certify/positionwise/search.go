package positionwise

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// Problem is one position-wise construction at one precision.
type Problem struct {
	// Model is the construction (exact parameters), run at Precision; it
	// must be one the analysis treats (Applicable).
	Model     *model.Model
	Precision numeric.Precision
	// Round is what the format stores for a rational (model.Runner's
	// Round): the parameters as the run holds them.
	Round func(*big.Rat) (*big.Rat, error)
	// Inputs are the stream components that hold a position's input
	// (indices into Model.Components), named Names; the others start at 0.
	Inputs []int
	Names  []string
	// Domain is the claimed domain in the paper's words ("x, y ∈ ℝ").
	Domain string
	// Ranges, when set, bound each component as the claimed domain does
	// (Valid still decides each point).
	Ranges []Range
	// Finite, when set, is every input of one position (Boolean inputs).
	Finite [][]*big.Rat
	// Valid reports a point outside the claimed domain (nil: all of ℝ^k).
	Valid func(x []*big.Rat) error
	// Check runs the model at the precision on the points, one position
	// each, and judges every position's output against the recipe's
	// reference as the checker does: the index of the first point that
	// fails and why (−1: none). A point judged neither right nor wrong
	// before any fails is an *UndecidedError: no verdict that every input
	// is right stands then (Undecided), and the search goes on past it.
	Check func(points [][]*big.Rat) (bad int, why string, err error)
	// Reference, when set, is the recipe's exact output at each point
	// where the checker's comparison of it is exact equality of values
	// (ok false: it is not, and the enumeration runs every point through
	// Check): what lets the enumeration run the fast evaluator (fast.go).
	Reference func(points [][]*big.Rat) (want [][]*big.Rat, ok bool)
	// MaxEnumerate: a domain of at most this many points is enumerated
	// rather than split into boxes (0: DefaultMaxEnumerate; negative:
	// never).
	MaxEnumerate int64
	// MaxBoxes bounds the boxes analysed (0: DefaultMaxBoxes).
	MaxBoxes int
	// Seed draws the points tried in boxes the analysis cannot prove.
	Seed uint64
	// keep, for tests, receives every box proved exact (keepWide on the
	// wide grid).
	keep     func(lo, hi []int64)
	keepWide func(lo, hi []*big.Int)
}

// Defaults: 2^17 points hold every one-input 16-bit domain (65,279 bf16
// values, 63,487 fp16 ones) and every two-input fp8 one (64,009 pairs);
// 2^18 boxes take a few seconds.
const (
	DefaultMaxEnumerate = 1 << 17
	DefaultMaxBoxes     = 1 << 18
	// OpaqueMaxBoxes is the default bound where the program is opaque
	// (program.opaque): no box can be proved, and each costs its points'
	// runs by the engine.
	OpaqueMaxBoxes = 1 << 10
	// leafPoints: a box of at most this many points the analysis cannot
	// prove is run point by point.
	leafPoints = 64
	// tries is the number of points run in a box the analysis cannot
	// prove, before it is split.
	tries = 8
)

// Verdict is what the analysis concluded of a cell.
type Verdict string

const (
	// Run: every input of the domain was run and is right (the recipe's
	// reference, the checker's comparison).
	Run Verdict = "run"
	// Proved: every input of the domain is right: on each box the
	// analysis proved the format computes the construction's exact value
	// (Faithful), and the inputs of the boxes it could not prove were run.
	Proved Verdict = "proved"
	// Fails: an input of the domain fails (Counterexample).
	Fails Verdict = "fails"
	// Undecided: the analysis stopped (Why) with neither.
	Undecided Verdict = "undecided"
)

// Result is the analysis of one cell.
type Result struct {
	Verdict Verdict
	// Domain states the inputs covered, precisely.
	Domain string
	// Points is the number of inputs run; Boxes the boxes analysed,
	// ProvedBoxes those proved exact, RunBoxes those run point by point.
	Points                       int64
	Boxes, ProvedBoxes, RunBoxes int
	// Counterexample is a failing input (Fails), Why says why it fails,
	// or why the analysis is undecided.
	Counterexample []*big.Rat
	Why            string
	// Unreachable says the counterexample's exact output is no finite
	// value of the format (x + y for most x, y; an output beyond the
	// largest value): the format could not hold it, whatever the
	// construction. Otherwise the construction loses a value the format
	// holds.
	Unreachable bool
	// Length is the length a result of AnalyseLength covers (0: a
	// position-wise result, which covers every length).
	Length int
	// Premise, when set, says why the model analysed stands for the
	// construction (ZeroValues: its heads add exactly 0); Statement
	// begins with it.
	Premise string
	// undecidedAt is the first point whose comparison was undecided
	// (UndecidedError), why undecidedWhy.
	undecidedAt  []*big.Rat
	undecidedWhy string
}

// Statement is what the result proves, for a report: what holds, over
// which domain, and how it was established.
func (r *Result) Statement() string {
	if r.Premise != "" {
		return r.Premise + ": " + r.statement()
	}
	return r.statement()
}

func (r *Result) statement() string {
	if r.Length > 0 {
		return r.lengthStatement()
	}
	switch r.Verdict {
	case Run:
		return fmt.Sprintf("every input %s, was run (%s), each right; positions do not interact (no attention), so every input of every length is right", r.Domain, plural.Of(int(r.Points), "input"))
	case Proved:
		s := fmt.Sprintf("every input %s, is right: on %s covering them the analysis proved every operation exact, so the format computes the construction's exact value", r.Domain, plural.Of(r.ProvedBoxes, "box"))
		if r.RunBoxes > 0 {
			s += fmt.Sprintf("; the %s of %s it could not prove were run, each right", plural.Of(int(r.Points), "input"), plural.Of(r.RunBoxes, "box"))
		}
		return s + "; positions do not interact (no attention), so every length holds"
	case Fails:
		s := fmt.Sprintf("fails on the inputs %s: at (%s), %s", r.Domain, ratsText(r.Counterexample), r.Why)
		if r.Unreachable {
			s += "; the exact output there is no finite value of the format, so no computation in it could be right"
		}
		return s
	}
	return fmt.Sprintf("undecided on the inputs %s: %s", r.Domain, r.Why)
}

func ratsText(xs []*big.Rat) string {
	parts := make([]string, len(xs))
	for k, x := range xs {
		parts[k] = x.RatString()
	}
	return strings.Join(parts, ", ")
}

// Analyse decides the cell: every input of the domain enumerated where
// it is small, else split into boxes the analysis proves exact, runs, or
// finds a failing input in.
func Analyse(pr Problem) (*Result, error) {
	if pr.Precision.Kind == numeric.KindBigFloat && pr.Precision.Bits > 53 {
		return settled(analyseWide(pr))
	}
	g, err := gridOf(pr.Precision)
	if err != nil {
		return nil, err
	}
	return settled(analyseOn(pr, g))
}

// UndecidedError is what Problem.Check returns for a point whose
// comparison neither confirms nor refutes it (a real reference whose
// enclosure straddles a rounding boundary of the format): the point at
// Index, why. The points before it are right; those after it are not
// yet checked, and the search checks them next.
type UndecidedError struct {
	Index int
	Why   string
}

func (e *UndecidedError) Error() string {
	return fmt.Sprintf("point %d undecided: %s", e.Index, e.Why)
}

// settled is a result with its undecided points counted: where every
// other input was proved or run right, the verdict is Undecided, not
// Run or Proved.
func settled(res *Result, err error) (*Result, error) {
	if err != nil || res == nil || res.undecidedAt == nil || res.Verdict != Run && res.Verdict != Proved {
		return res, err
	}
	res.Verdict = Undecided
	res.Why = fmt.Sprintf("every other input is right, but at (%s) the comparison is undecided: %s", ratsText(res.undecidedAt), res.undecidedWhy)
	return res, nil
}

// analyseOn is Analyse on the grid g: the format's, or its integers
// (AnalyseIntegers).
func analyseOn(pr Problem, g *grid) (*Result, error) {
	var err error
	s := &search{pr: pr, g: g, rng: rand.New(rand.NewPCG(pr.Seed, 0x9e3779b97f4a7c15))}
	res := &Result{Domain: s.domainText()}
	s.res = res
	if pr.Finite != nil {
		return res, s.enumerateFinite()
	}
	limit := pr.MaxEnumerate
	if limit == 0 {
		limit = DefaultMaxEnumerate
	}
	if s.prog, err = compile(pr.Model, pr.Round); err != nil {
		return nil, err
	}
	if s.prog.hasNorm() {
		// The rule of lnorm.go runs the runner's own norm.
		s.normRun, _ = newNormRunner(pr.Precision, pr.Model) // nil: norms are top
	}
	if pr.Reference != nil && !s.prog.hasNorm() && !s.prog.opaque() {
		// The fast evaluator has no layer norm and no other activation:
		// elsewhere the engine runs every point.
		s.fast = fastRound(pr.Precision)
	}
	if n := s.domainPoints(); n <= float64(limit) {
		if round := s.fast; round != nil {
			switch err := s.enumerateFast(round); {
			case err == errStop:
				return res, nil
			case err == nil:
				res.Verdict = Run
				return res, nil
			case err != errNoReference:
				return nil, err
			}
			res.Points = 0
		}
		return res, s.enumerate()
	}
	return res, s.boxes()
}

type search struct {
	pr Problem
	g  *grid
	w  *wgrid // the wide grid, where g is nil (wide.go)
	// normRun is the runner's own layer norm (lnorm.go; nil: none).
	normRun normRunner
	prog    *program
	// stacked, when set, is the program of a length (attend.go), which
	// decides the boxes in place of prog.
	stacked *stacked
	// fast is the rounding of the fast evaluator where it runs (fast.go).
	fast func(float64) float64
	rng  *rand.Rand
	res  *Result
}

// domainText states the domain: the claimed one, intersected with the
// format's finite values.
func (s *search) domainText() string {
	names := strings.Join(s.pr.Names, ", ")
	if len(s.pr.Names) > 1 {
		names = "(" + names + ")"
	}
	if s.pr.Finite != nil {
		return fmt.Sprintf("%s, the %s of the claimed domain %s", names, plural.Of(len(s.pr.Finite), "point"), s.pr.Domain)
	}
	var what string
	switch {
	case s.g != nil && s.g.integers:
		what = fmt.Sprintf("integer components of magnitude at most %d (2^%d)", s.g.maxOrd, bitsLen(s.g.maxOrd)-1)
	case s.w != nil && s.w.integers:
		what = fmt.Sprintf("integer components of magnitude at most 2^%d", s.w.maxOrd.BitLen()-1)
	case s.w != nil:
		what = s.w.name + " components in float64's normal range (2^-1022 ≤ |x| < 2^1024) or 0"
	case !s.g.sub:
		what = s.g.name + " components in float64's normal range (2^-1022 ≤ |x| < 2^1024) or 0"
	default:
		what = "finite " + s.g.name + " components"
	}
	return fmt.Sprintf("%s with %s, in the claimed domain %s", names, what, s.pr.Domain)
}

// domainPoints is the number of points of the grid's whole box.
func (s *search) domainPoints() float64 {
	total := 0.0
	for _, b := range s.initialBoxes() {
		n := 1.0
		for k := range b[0] {
			n *= float64(width(b[0][k], b[1][k])) + 1
		}
		total += n
	}
	return total
}

// Range is what the claimed domain allows of one component: the listed
// Values, or the interval [Lo, Hi] (a nil end: unbounded).
type Range struct {
	Values []*big.Rat
	Lo, Hi *big.Rat
}

// initialBoxes are the boxes the search starts from: the product of each
// component's ranges of ordinals (Problem.Ranges; every finite value
// where none is given). Points outside the claimed domain inside them
// are still filtered by Valid.
func (s *search) initialBoxes() [][2][]int64 {
	d := len(s.pr.Names)
	per := make([][][2]int64, d)
	for k := range per {
		per[k] = [][2]int64{{-s.g.maxOrd, s.g.maxOrd}}
		if k >= len(s.pr.Ranges) {
			continue
		}
		r := s.pr.Ranges[k]
		switch {
		case r.Values != nil:
			per[k] = nil
			for _, v := range r.Values {
				if o, ok := s.g.ordOf(v); ok {
					per[k] = append(per[k], [2]int64{o, o})
				}
			}
		default:
			lo, hi := -s.g.maxOrd, s.g.maxOrd
			if r.Lo != nil {
				lo = s.g.ceilOrd(r.Lo)
			}
			if r.Hi != nil {
				hi = s.g.floorOrd(r.Hi)
			}
			per[k] = nil
			// ceilOrd and floorOrd clamp to the grid's ends: a range
			// beyond them (Lo above the largest integer of the domain)
			// holds no value of it.
			inside := (r.Lo == nil || rat(s.g.value(lo)).Cmp(r.Lo) >= 0) && (r.Hi == nil || rat(s.g.value(hi)).Cmp(r.Hi) <= 0)
			if lo <= hi && inside {
				per[k] = [][2]int64{{lo, hi}}
			}
		}
	}
	boxes := [][2][]int64{{nil, nil}}
	for k := range per {
		var next [][2][]int64
		for _, b := range boxes {
			for _, r := range per[k] {
				next = append(next, [2][]int64{append(append([]int64(nil), b[0]...), r[0]), append(append([]int64(nil), b[1]...), r[1])})
			}
		}
		boxes = next
	}
	return boxes
}

var (
	errStop        = errors.New("stop")
	errNoReference = errors.New("no exact reference")
)

// runPoints runs the points that lie in the claimed domain, recording a
// failure.
func (s *search) runPoints(points [][]*big.Rat) error {
	if s.pr.Valid != nil {
		in := points[:0:0]
		for _, x := range points {
			if s.pr.Valid(x) == nil {
				in = append(in, x)
			}
		}
		points = in
	}
	if len(points) == 0 {
		return nil
	}
	if s.fast != nil && len(points) > 1 {
		// The fast evaluator screens the points; the engine runs the
		// first it finds wrong, and decides.
		if bad, ok, err := s.screen(points); ok {
			if err != nil || bad < 0 {
				s.res.Points += int64(len(points))
				return err
			}
			s.res.Points += int64(bad)
			points = points[bad : bad+1]
		}
	}
	bad, why, err := s.pr.Check(points)
	for u := (*UndecidedError)(nil); errors.As(err, &u) && u.Index >= 0 && u.Index < len(points); u = nil {
		// Neither right nor refuted: remembered (no verdict of every
		// input right stands), and the search goes on past it.
		if s.res.undecidedAt == nil {
			s.res.undecidedAt, s.res.undecidedWhy = points[u.Index], u.Why
		}
		s.res.Points += int64(u.Index + 1)
		points = points[u.Index+1:]
		if len(points) == 0 {
			return nil
		}
		bad, why, err = s.pr.Check(points)
	}
	if err != nil {
		return err
	}
	s.res.Points += int64(len(points))
	if bad >= 0 {
		x, why := s.shrink(points[bad], why)
		s.res.Verdict, s.res.Counterexample, s.res.Why = Fails, x, why
		s.res.Unreachable = s.unreachable(x)
		return errStop
	}
	return nil
}

func (s *search) enumerateFinite() error {
	if err := s.runPoints(s.pr.Finite); err != nil && err != errStop {
		return err
	}
	if s.res.Verdict == "" {
		s.res.Verdict = Run
	}
	return nil
}

// enumerate runs every point of the grid's box, in batches.
func (s *search) enumerate() error {
	for _, b := range s.initialBoxes() {
		err := s.runBox(b[0], b[1])
		if err == errStop {
			break
		}
		if err != nil {
			return err
		}
	}
	if s.res.Verdict == "" {
		s.res.Verdict = Run
	}
	return nil
}

// runBox runs every point of the box lo … hi (ordinals), in batches of
// 4096, the last coordinate fastest.
func (s *search) runBox(lo, hi []int64) error {
	const batch = 4096
	cur := append([]int64(nil), lo...)
	var points [][]*big.Rat
	for {
		x := make([]*big.Rat, len(cur))
		for k, o := range cur {
			x[k] = rat(s.g.value(o))
		}
		points = append(points, x)
		if len(points) == batch {
			if err := s.runPoints(points); err != nil {
				return err
			}
			points = points[:0]
		}
		k := len(cur) - 1
		for k >= 0 && cur[k] == hi[k] {
			cur[k] = lo[k]
			k--
		}
		if k < 0 {
			break
		}
		cur[k]++
	}
	return s.runPoints(points)
}

// unreachable reports whether some exact output at x is no finite value
// of the format (false where the reference is not exact values). The
// format's values, not the domain's: on the integers, 1/2 is an output
// the format holds.
func (s *search) unreachable(x []*big.Rat) bool {
	if s.pr.Reference == nil {
		return false
	}
	want, ok := s.pr.Reference([][]*big.Rat{x})
	if !ok {
		return false
	}
	g, wg := s.g, s.w
	switch {
	case wg != nil && wg.integers:
		wg = newWgrid(wg.name, wg.p)
	case g != nil && g.integers:
		var err error
		if g, err = gridOf(s.pr.Precision); err != nil {
			return false
		}
	}
	for _, w := range want[0] {
		if wg != nil {
			if !wg.onGrid(w) {
				return true
			}
			continue
		}
		if _, on := g.ordOf(w); !on {
			return true
		}
	}
	return false
}
