package numeric

// Property-based tests (gopter) of the arithmetic of every backend.
//
// No expected value comes from the code under test. The exact result of an
// operation is computed with big.Rat from the operands' exact values (from
// big.Rat.SetFloat64, or the backend's Rat, which TestArithRatRoundTrip
// checks), and rounded by an independent correct rounding: big.Rat.Float64 for fp64,
// big.Rat.Float32 for fp32, big.Float.SetRat at P bits for BigFloat, and
// the table oracle of format_test.go (roundOracle, built from the reference
// decoder refDecode) for the emulated formats. Where the code under test is
// itself one of those library calls (Float64.SetRat is big.Rat.Float64,
// BigFloat.SetRat is big.Float.SetRat), arithGrid.round, written below from
// the definition of a binary floating-point format, is the oracle instead.
// The square root of a non-square is irrational and cannot be rounded as a
// rational: a result is accepted iff the exact root lies between the
// midpoints around it, which squaring the midpoints decides exactly.
//
// Random generators rarely hit the values where rounding goes wrong (exact
// ties, the overflow threshold, half the smallest subnormal, 2^24 + 1 in
// fp32), so every generator draws a share of its values from explicit edge
// lists. The generators are written directly against gopter.GenParameters
// with their own shrinkers, because Gen.Map drops shrinking and derived
// generators can shrink a denominator to zero (gopter issue #81): here a
// rational is always built from a denominator ≥ 1, and a value of a format
// shrinks only to values of the same format.
//
// Each property runs with its own gopter.DefaultTestParametersWithSeed,
// derived from its test's logged seed and its name, so a failure
// reproduces when the test runs alone. NUMERIC_PROP_SEED replaces the
// fixed seeds and NUMERIC_PROP_SCALE multiplies the number of cases, to
// search further than CI does.

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// ---------------------------------------------------------------------------
// Running properties.

// arithSeed returns the seed of a test, logged so that a failure can be
// reproduced.
func arithSeed(t *testing.T, def int64) int64 {
	t.Helper()
	seed := def
	if s := os.Getenv("NUMERIC_PROP_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("NUMERIC_PROP_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (set NUMERIC_PROP_SEED to change it)", seed)
	return seed
}

func arithScale() int {
	if v, err := strconv.Atoi(os.Getenv("NUMERIC_PROP_SCALE")); err == nil && v > 0 {
		return v
	}
	return 1
}

// tLogWriter sends gopter's report to the test log, so that it shows with
// the failure it explains and not on stdout of a passing run.
type tLogWriter struct{ t *testing.T }

func (w tLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// runProp checks p on n generated cases (times NUMERIC_PROP_SCALE). The
// property's own seed mixes the test's seed with the test's name, so that
// sibling properties (the same checks on different formats) draw different
// cases, yet rerunning with the same seed reproduces every one of them.
func runProp(t *testing.T, seed int64, n int, p gopter.Prop) {
	t.Helper()
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	params := gopter.DefaultTestParametersWithSeed(seed ^ int64(h.Sum64()>>1))
	params.MinSuccessfulTests = n * arithScale()
	params.MaxShrinkCount = 200
	props := gopter.NewProperties(params)
	props.Property(t.Name(), p)
	props.TestingRun(t, gopter.NewFormatedReporter(false, 200, tLogWriter{t}))
}

// ---------------------------------------------------------------------------
// Comparisons.

var (
	// ratEqual compares rationals by value.
	ratEqual = cmp.Comparer(func(a, b *big.Rat) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.Cmp(b) == 0
	})
	// bigFloatEqual compares BigFloat results: the value, and also the
	// precision P and mode ToNearestEven that the backend gives every
	// result, since big.Float methods called on the result later (and
	// math/big-style reuse of it as a destination) round with them.
	bigFloatEqual = cmp.Comparer(func(a, b *big.Float) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.Cmp(b) == 0 && a.Prec() == b.Prec() && a.Mode() == b.Mode()
	})
	// endpointEqual compares interval endpoints by value and precision;
	// their rounding modes are an implementation detail.
	endpointEqual = cmp.Comparer(func(a, b *big.Float) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.Cmp(b) == 0 && a.Prec() == b.Prec()
	})
)

// sameBits reports whether two float64s are the same value of a format:
// both NaN (payloads are not specified), or identical bits, so that −0 and
// +0 differ.
func sameBits(a, b float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

// fx prints a float64 in decimal and in exact hexadecimal.
func fx(v float64) string { return fmt.Sprintf("%v [%x]", v, v) }

func ratStr(r *big.Rat) string {
	if r == nil {
		return "<nil>"
	}
	if len(r.Num().String())+len(r.Denom().String()) > 60 {
		f, _ := new(big.Float).SetPrec(80).SetRat(r).Float64()
		return fmt.Sprintf("%s (≈%.17g)", r.RatString(), f)
	}
	return r.RatString()
}

func ratOf(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

func ratSum(a, b *big.Rat) *big.Rat       { return new(big.Rat).Add(a, b) }
func ratDiff(a, b *big.Rat) *big.Rat      { return new(big.Rat).Sub(a, b) }
func ratProd(a, b *big.Rat) *big.Rat      { return new(big.Rat).Mul(a, b) }
func ratQuo(a, b *big.Rat) *big.Rat       { return new(big.Rat).Quo(a, b) }
func ratFrac(a, b int64) *big.Rat         { return big.NewRat(a, b) }
func ratInt(a int64) *big.Rat             { return big.NewRat(a, 1) }
func ratNeg(a *big.Rat) *big.Rat          { return new(big.Rat).Neg(a) }
func ratAbs(a *big.Rat) *big.Rat          { return new(big.Rat).Abs(a) }
func ratScale(a *big.Rat, k int) *big.Rat { return ratProd(a, pow2Rat(k)) }

// ---------------------------------------------------------------------------
// An independent rounding, from the definition of a binary format.

// arithGrid is a set of binary floating-point numbers, from the definition
// (IEEE 754-2019 §3.3; OFP8 v1.0 §5.1 for E4M3): ±m × 2^q with an integer
// m < 2^p and, when the grid is bounded, q ≥ emin − p + 1 (the subnormals)
// and a magnitude at most max.
type arithGrid struct {
	name    string
	p       int
	bounded bool
	emin    int
	emax    int
	max     *big.Rat // the largest finite value, when bounded
	hasInf  bool     // overflow gives ±Inf; otherwise NaN (E4M3)
}

func ieeeGrid(name string, p, emin, emax int) arithGrid {
	// max = (2 − 2^(1−p)) × 2^emax = (2^p − 1) × 2^(emax−p+1).
	m := new(big.Rat).SetInt(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(p)), big.NewInt(1)))
	return arithGrid{name: name, p: p, bounded: true, emin: emin, emax: emax,
		max: ratScale(m, emax-p+1), hasInf: true}
}

var (
	gridFP64 = ieeeGrid("fp64", 53, -1022, 1023)
	gridFP32 = ieeeGrid("fp32", 24, -126, 127)
	gridFP16 = ieeeGrid("fp16", 11, -14, 15)
	gridBF16 = ieeeGrid("bf16", 8, -126, 127)
	gridE5M2 = ieeeGrid("fp8-e5m2", 3, -14, 15)
	// E4M3's exponent field 1111 holds normal numbers (emax = 8) except
	// S.1111.111, which is NaN: the largest value is 1.75 × 2^8 = 448 and
	// there is no infinity.
	gridE4M3 = arithGrid{name: "fp8-e4m3", p: 4, bounded: true, emin: -6, emax: 8,
		max: big.NewRat(448, 1)}
)

// gridOf returns the grid of a named format.
func gridOf(f *Format) arithGrid {
	for _, g := range []arithGrid{gridFP64, gridFP32, gridFP16, gridBF16, gridE5M2, gridE4M3} {
		if g.name == f.Name {
			return g
		}
	}
	panic("no grid for " + f.Name)
}

// unboundedGrid is the grid of a p-bit big.Float (its exponent range is far
// beyond anything these tests reach).
func unboundedGrid(p int) arithGrid { return arithGrid{name: fmt.Sprintf("%d-bit", p), p: p} }

type arithMode int

const (
	nearestEven arithMode = iota
	towardZero
	towardNegInf
	towardPosInf
)

// round returns x rounded to the grid's precision (and subnormal spacing)
// in the given direction. It ignores the overflow threshold: callers compare
// the result with max.
func (g arithGrid) round(x *big.Rat, mode arithMode) *big.Rat {
	if x.Sign() == 0 {
		return new(big.Rat)
	}
	neg := x.Sign() < 0
	n := new(big.Int).Abs(x.Num())
	d := new(big.Int).Set(x.Denom())
	// n/d lies in (2^(e−1), 2^(e+1)) for this e; one comparison with 2^e
	// gives e = ⌊log2(n/d)⌋.
	e := n.BitLen() - d.BitLen()
	if lsh(n, -e).Cmp(lsh(d, e)) < 0 {
		e--
	}
	if g.bounded && e < g.emin {
		e = g.emin
	}
	q := e - g.p + 1 // the spacing of the grid near x is 2^q
	m, rem := new(big.Int).QuoRem(lsh(n, -q), lsh(d, q), new(big.Int))
	if rem.Sign() != 0 {
		den := lsh(d, q)
		up := false
		switch mode {
		case nearestEven:
			c := new(big.Int).Lsh(rem, 1).Cmp(den)
			up = c > 0 || c == 0 && m.Bit(0) == 1
		case towardPosInf:
			up = !neg
		case towardNegInf:
			up = neg
		}
		if up {
			m.Add(m, big.NewInt(1))
		}
	}
	r := ratScale(new(big.Rat).SetInt(m), q)
	if neg {
		r.Neg(r)
	}
	return r
}

// lsh returns a × 2^k for k ≥ 0 and a unchanged (as a copy) for k < 0: it
// scales whichever side of a comparison or quotient needs the factor.
func lsh(a *big.Int, k int) *big.Int {
	if k <= 0 {
		return new(big.Int).Set(a)
	}
	return new(big.Int).Lsh(a, uint(k))
}

// overflows reports whether a rounded value lies beyond the grid.
func (g arithGrid) overflows(r *big.Rat) bool {
	return g.bounded && ratAbs(r).Cmp(g.max) > 0
}

// roundIEEE rounds x to nearest, ties to even, with the format's overflow
// (±Inf, or NaN for E4M3) and the sign of x on zero results (IEEE 754 §6.3).
func (g arithGrid) roundIEEE(x *big.Rat) float64 {
	r := g.round(x, nearestEven)
	if g.overflows(r) {
		if !g.hasInf {
			return math.NaN()
		}
		return math.Inf(x.Sign())
	}
	f, exact := r.Float64()
	if !exact {
		panic(fmt.Sprintf("%s value %v is not a float64", g.name, r))
	}
	if f == 0 && x.Sign() < 0 {
		return math.Copysign(0, -1)
	}
	return f
}

// contains reports whether the rational v is a value of the grid.
func (g arithGrid) contains(v *big.Rat) bool {
	return g.round(v, towardZero).Cmp(v) == 0 && !g.overflows(v)
}

func (g arithGrid) containsFloat(v float64) bool {
	switch {
	case math.IsNaN(v):
		return g.bounded
	case math.IsInf(v, 0):
		return g.bounded && g.hasInf
	}
	return g.contains(ratOf(v))
}

// snap returns the value of the grid nearest to x toward zero, clamped to
// the largest finite value: generators use it to land on the grid without
// calling the code under test.
func (g arithGrid) snap(x *big.Rat) *big.Rat {
	r := g.round(x, towardZero)
	if g.overflows(r) {
		r = new(big.Rat).Set(g.max)
		if x.Sign() < 0 {
			r.Neg(r)
		}
	}
	return r
}

// nudges returns r × (1 ± 1/(3 × 2^(p+k))) for k = 8 and k = 100: off r
// by non-dyadic amounts far below the grid's spacing, so that a tie at r
// becomes a clear decision. The second offset lies beyond the P + 64 bits
// at which Format.RoundRat first rounds to odd, so it tests that rounding's
// sticky bit.
func (g arithGrid) nudges(r *big.Rat) []*big.Rat {
	var out []*big.Rat
	for _, k := range []int{8, 100} {
		d := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(3), uint(g.p+k)))
		out = append(out, ratProd(r, ratSum(ratInt(1), d)), ratProd(r, ratDiff(ratInt(1), d)))
	}
	return out
}

// edgeRats lists rationals where rounding to g is easy to get wrong: exact
// ties (1 + 2^−p, 2^p + 1: 1 + 2^−24 and 2^24 + 1 in fp32, 2^53 + 1 in
// fp64), the overflow threshold max + ulp/2, the underflow tie
// MinSubnormal/2, the subnormal/normal boundary, and values a hair either
// side of each tie; in both signs.
func (g arithGrid) edgeRats() []*big.Rat {
	p := g.p
	one := ratInt(1)
	var rs []*big.Rat
	add := func(xs ...*big.Rat) { rs = append(rs, xs...) }
	tie := func(r *big.Rat) { add(r); add(g.nudges(r)...) }
	add(new(big.Rat), one, ratInt(3), ratFrac(1, 3), ratFrac(2, 3), ratFrac(1, 10), ratFrac(22, 7))
	tie(ratSum(one, pow2Rat(-p)))             // 1 (even) or 1 + 2^(1−p)
	tie(ratSum(one, ratScale(ratInt(3), -p))) // 1 + 2^(2−p) (even)
	tie(ratDiff(one, pow2Rat(-p-1)))          // 1 − 2^−p (odd) or 1
	tie(ratSum(pow2Rat(p), one))              // 2^p (even) or 2^p + 2
	tie(ratSum(pow2Rat(p), ratInt(3)))        // 2^p + 4 (even)
	tie(ratDiff(pow2Rat(p+1), ratInt(1)))     // 2^(p+1) − 2 (odd) or 2^(p+1): spacing 2 below
	add(ratSum(pow2Rat(p+1), one), ratDiff(pow2Rat(p), one), pow2Rat(p))
	if g.bounded {
		minSub := pow2Rat(g.emin - p + 1)
		tie(ratScale(minSub, -1))                           // 0 or MinSubnormal
		tie(ratProd(minSub, ratFrac(3, 2)))                 // 2 MinSubnormal (even)
		tie(ratDiff(pow2Rat(g.emin), ratScale(minSub, -1))) // largest subnormal (odd) or 2^emin
		add(minSub, ratScale(minSub, -2), pow2Rat(g.emin), ratDiff(pow2Rat(g.emin), minSub))
		ulpTop := pow2Rat(g.emax - p + 1)
		tie(ratSum(g.max, ratScale(ulpTop, -1))) // overflow threshold
		add(g.max, ratSum(g.max, ratScale(ulpTop, -2)), pow2Rat(g.emax+1), ratScale(g.max, 1))
	} else {
		tie(ratProd(ratSum(one, pow2Rat(-p)), pow2Rat(-700)))
		tie(ratProd(ratSum(pow2Rat(p), one), pow2Rat(700)))
		add(pow2Rat(1000), pow2Rat(-1000))
	}
	out := make([]*big.Rat, 0, 2*len(rs))
	for _, r := range rs {
		out = append(out, r)
		if r.Sign() != 0 {
			out = append(out, ratNeg(r))
		}
	}
	return out
}

// edgeValues lists values of the grid that make good operands: they give
// ties, cancellations, overflow and underflow when combined (2^24 − 1,
// 2^24, 1 and 2^−24 in fp32, and so on).
func (g arithGrid) edgeValues() []*big.Rat {
	p := g.p
	one := ratInt(1)
	cands := []*big.Rat{
		new(big.Rat), one, ratInt(2), ratInt(3), ratFrac(1, 2), ratFrac(3, 4),
		ratDiff(pow2Rat(p), one), pow2Rat(p), ratSum(pow2Rat(p), ratInt(2)), ratSum(pow2Rat(p-1), one),
		pow2Rat(-p), pow2Rat(1 - p), ratSum(one, pow2Rat(1-p)), ratDiff(one, pow2Rat(-p)),
		ratScale(ratInt(3), -p), ratSum(pow2Rat(p/2), one), ratDiff(pow2Rat(p/2), one),
	}
	if g.bounded {
		minSub := pow2Rat(g.emin - p + 1)
		ulpTop := pow2Rat(g.emax - p + 1)
		cands = append(cands, minSub, ratScale(minSub, 1), ratScale(ratInt(3), g.emin-p+1),
			ratDiff(pow2Rat(g.emin), minSub), pow2Rat(g.emin), ratSum(pow2Rat(g.emin), minSub),
			g.max, ratDiff(g.max, ulpTop), pow2Rat(g.emax), pow2Rat(g.emax/2), pow2Rat(g.emin/2),
			pow2Rat((g.emin-p)/2))
	} else {
		cands = append(cands, pow2Rat(200), pow2Rat(-200), ratDiff(pow2Rat(300), pow2Rat(300-p)))
	}
	var out []*big.Rat
	seen := map[string]bool{}
	for _, c := range cands {
		for _, v := range []*big.Rat{c, ratNeg(c)} {
			if k := v.RatString(); g.contains(v) && !seen[k] {
				seen[k] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// sqrtRoundedOK reports ("" if so) whether r is √x (x > 0) rounded to
// nearest, ties to even, on the p-bit grid of normal numbers. √x may be
// irrational, so r is checked rather than computed: r must be a p-bit
// number, and x must lie between the squares of the midpoints from r to its
// neighbours, with equality (√x exactly a midpoint) only when r is even.
func sqrtRoundedOK(x, r *big.Rat, p int) string {
	if r.Sign() <= 0 {
		return fmt.Sprintf("√%s gave %s, not positive", ratStr(x), ratStr(r))
	}
	if !unboundedGrid(p).contains(r) {
		return fmt.Sprintf("√%s gave %s, which has more than %d significant bits", ratStr(x), ratStr(r), p)
	}
	// r = m × 2^q with 2^(p−1) ≤ m < 2^p.
	e := r.Num().BitLen() - r.Denom().BitLen() // r is dyadic: exact ⌊log2 r⌋
	q := e - p + 1
	m := ratScale(r, -q)
	if !m.IsInt() {
		panic("sqrtRoundedOK: significand is not an integer")
	}
	mi := m.Num()
	even := mi.Bit(0) == 0
	// Midpoint above: (2m + 1) × 2^(q−1). Below: (2m − 1) × 2^(q−1), or
	// (4m − 1) × 2^(q−2) when r = 2^e, whose predecessor lies in the binade
	// below with half the spacing.
	up := ratScale(new(big.Rat).SetInt(new(big.Int).Add(new(big.Int).Lsh(mi, 1), big.NewInt(1))), q-1)
	var down *big.Rat
	if mi.Cmp(new(big.Int).Lsh(big.NewInt(1), uint(p-1))) == 0 {
		down = ratScale(new(big.Rat).SetInt(new(big.Int).Sub(new(big.Int).Lsh(mi, 2), big.NewInt(1))), q-2)
	} else {
		down = ratScale(new(big.Rat).SetInt(new(big.Int).Sub(new(big.Int).Lsh(mi, 1), big.NewInt(1))), q-1)
	}
	cu := x.Cmp(ratProd(up, up))
	cd := x.Cmp(ratProd(down, down))
	if (cd > 0 || cd == 0 && even) && (cu < 0 || cu == 0 && even) {
		return ""
	}
	return fmt.Sprintf("√%s gave %s, but the root is not within the midpoints %s and %s (x vs their squares: %d, %d)",
		ratStr(x), ratStr(r), ratStr(down), ratStr(up), cd, cu)
}

// ---------------------------------------------------------------------------
// The table oracle of format_test.go for each small format, built once.

var (
	smallOraclesMu sync.Mutex
	smallOracles   = map[*Format]*roundOracle{}
)

func smallFormatOf(f *Format) smallFormat {
	for _, sf := range smallFormats() {
		if sf.f == f {
			return sf
		}
	}
	panic("not a small format: " + f.Name)
}

func oracleFor(t *testing.T, f *Format) *roundOracle {
	smallOraclesMu.Lock()
	defer smallOraclesMu.Unlock()
	if o, ok := smallOracles[f]; ok {
		return o
	}
	o := newRoundOracle(t, smallFormatOf(f))
	smallOracles[f] = o
	return o
}

// ---------------------------------------------------------------------------
// The IEEE-style backends (fp64, fp32 and the emulated formats), seen
// through float64.

type ieeeCase struct {
	name string
	g    arithGrid
	// roundMag is the independent correct rounding of a ≥ 0 used as the
	// oracle of the operations: ±Inf or NaN on overflow.
	roundMag func(a *big.Rat) float64
	// decode returns the value of a random bit pattern, without the code
	// under test.
	decode func(bits uint64) float64

	add, sub, mul, max, min func(x, y float64) float64
	div                     func(x, y float64) (float64, error)
	sqrt                    func(x float64) (float64, error)
	neg, abs                func(x float64) float64
	cmp                     func(x, y float64) Order
	sign                    func(x float64) Order
	setRat                  func(r *big.Rat) float64
	setInt64                func(n int64) float64
	rat                     func(x float64) (*big.Rat, error)
	finite                  func(x float64) bool
}

// viewIEEE fills c's operations from a float64 or float32 backend. Values
// of the format convert between float32 and float64 exactly.
func viewIEEE[T float32 | float64](c *ieeeCase, b Backend[T]) {
	c.add = func(x, y float64) float64 { return float64(b.Add(0, T(x), T(y))) }
	c.sub = func(x, y float64) float64 { return float64(b.Sub(0, T(x), T(y))) }
	c.mul = func(x, y float64) float64 { return float64(b.Mul(0, T(x), T(y))) }
	c.max = func(x, y float64) float64 { return float64(b.Max(0, T(x), T(y))) }
	c.min = func(x, y float64) float64 { return float64(b.Min(0, T(x), T(y))) }
	c.div = func(x, y float64) (float64, error) { v, err := b.Div(0, T(x), T(y)); return float64(v), err }
	c.sqrt = func(x float64) (float64, error) { v, err := b.Sqrt(0, T(x)); return float64(v), err }
	c.neg = func(x float64) float64 { return float64(b.Neg(0, T(x))) }
	c.abs = func(x float64) float64 { return float64(b.Abs(0, T(x))) }
	c.cmp = func(x, y float64) Order { return b.Cmp(T(x), T(y)) }
	c.sign = func(x float64) Order { return b.Sign(T(x)) }
	c.setRat = func(r *big.Rat) float64 { return float64(b.SetRat(0, r)) }
	c.setInt64 = func(n int64) float64 { return float64(b.SetInt64(0, n)) }
	c.rat = func(x float64) (*big.Rat, error) { return b.Rat(T(x)) }
	c.finite = func(x float64) bool { return b.Finite(T(x)) }
}

func fp64Case() *ieeeCase {
	c := &ieeeCase{name: "fp64", g: gridFP64,
		roundMag: func(a *big.Rat) float64 { v, _ := a.Float64(); return v },
		decode:   math.Float64frombits}
	viewIEEE[float64](c, NewFloat64())
	return c
}

func fp32Case() *ieeeCase {
	c := &ieeeCase{name: "fp32", g: gridFP32,
		roundMag: func(a *big.Rat) float64 { v, _ := a.Float32(); return float64(v) },
		decode:   func(b uint64) float64 { return float64(math.Float32frombits(uint32(b))) }}
	viewIEEE[float32](c, NewFloat32())
	return c
}

func emulatedCase(t *testing.T, f *Format) *ieeeCase {
	o := oracleFor(t, f)
	sf := smallFormatOf(f)
	c := &ieeeCase{name: f.Name, g: gridOf(f), roundMag: o.round,
		decode: func(b uint64) float64 {
			return refDecode(b&(1<<(1+sf.w+sf.t)-1), sf.w, sf.t, sf.e4m3).float64()
		}}
	viewIEEE[float64](c, NewEmulated(f))
	return c
}

func ieeeCases(t *testing.T) []*ieeeCase {
	cs := []*ieeeCase{fp64Case(), fp32Case()}
	for _, f := range []*Format{Binary16, BFloat16, FP8E4M3, FP8E5M2} {
		cs = append(cs, emulatedCase(t, f))
	}
	return cs
}

// roundSigned rounds the exact nonzero r with the oracle, keeping the sign
// of r on underflow to zero (IEEE 754 §6.3).
func (c *ieeeCase) roundSigned(r *big.Rat) float64 {
	m := c.roundMag(ratAbs(r))
	if r.Sign() < 0 {
		return negate(m)
	}
	return m
}

// want returns the IEEE 754 result of x op y for values of c's format: the
// special cases of §6 and §7 (NaN propagation, ∞ − ∞, 0 × ∞, x/0, the sign
// of zero), and otherwise the exact result rounded by the oracle. In E4M3,
// which has no infinities, every ±∞ becomes NaN (OFP8 §5.3).
func (c *ieeeCase) want(op string, x, y float64) float64 {
	nan := math.NaN()
	inf := func(neg bool) float64 {
		switch {
		case !c.g.hasInf:
			return nan
		case neg:
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	zero := func(neg bool) float64 {
		if neg {
			return math.Copysign(0, -1)
		}
		return 0
	}
	if math.IsNaN(x) || math.IsNaN(y) {
		return nan
	}
	xi, yi := math.IsInf(x, 0), math.IsInf(y, 0)
	sx, sy := math.Signbit(x), math.Signbit(y)
	switch op {
	case "add", "sub":
		if op == "sub" { // x − y is x + (−y), signs of zeros included
			y, sy = negate(y), !sy
		}
		switch {
		case xi && yi && sx != sy:
			return nan
		case xi:
			return inf(sx)
		case yi:
			return inf(sy)
		}
		r := ratSum(ratOf(x), ratOf(y))
		if r.Sign() == 0 {
			// An exact zero sum is +0 when rounding to nearest, except
			// (−0) + (−0) = −0.
			return zero(sx && sy)
		}
		return c.roundSigned(r)
	case "mul":
		s := sx != sy
		if xi || yi {
			if x == 0 || y == 0 {
				return nan
			}
			return inf(s)
		}
		r := ratProd(ratOf(x), ratOf(y))
		if r.Sign() == 0 {
			return zero(s)
		}
		return c.roundSigned(r)
	case "div":
		s := sx != sy
		switch {
		case xi && yi:
			return nan
		case xi:
			return inf(s)
		case yi:
			return zero(s)
		case y == 0 && x == 0:
			return nan
		case y == 0:
			return inf(s)
		}
		r := ratQuo(ratOf(x), ratOf(y))
		if r.Sign() == 0 {
			return zero(s)
		}
		return c.roundSigned(r)
	}
	panic("unknown op " + op)
}

// checkBinary checks x op y against want ("" if correct).
func (c *ieeeCase) checkBinary(op string, x, y float64) string {
	var got float64
	var err error
	switch op {
	case "add":
		got = c.add(x, y)
	case "sub":
		got = c.sub(x, y)
	case "mul":
		got = c.mul(x, y)
	case "div":
		got, err = c.div(x, y)
	default:
		panic("unknown op " + op)
	}
	if err != nil {
		return fmt.Sprintf("%s %s(%s, %s): error %v, but IEEE arithmetic never fails", c.name, op, fx(x), fx(y), err)
	}
	want := c.want(op, x, y)
	if sameBits(got, want) {
		return ""
	}
	exact := ""
	if !math.IsNaN(x) && !math.IsInf(x, 0) && !math.IsNaN(y) && !math.IsInf(y, 0) && !(op == "div" && y == 0) {
		var r *big.Rat
		switch op {
		case "add":
			r = ratSum(ratOf(x), ratOf(y))
		case "sub":
			r = ratDiff(ratOf(x), ratOf(y))
		case "mul":
			r = ratProd(ratOf(x), ratOf(y))
		case "div":
			r = ratQuo(ratOf(x), ratOf(y))
		}
		exact = " (exact " + ratStr(r) + ")"
	}
	return fmt.Sprintf("%s %s(%s, %s) = %s, want %s%s", c.name, op, fx(x), fx(y), fx(got), fx(want), exact)
}

// checkSqrt checks √x: the IEEE special cases (√−0 = −0, √(x<0) = NaN,
// √+∞ = +∞), and otherwise correct rounding by sqrtRoundedOK. The root of a
// positive value of any of these formats is at least √MinSubnormal, which
// is a normal number, so the p-bit grid of sqrtRoundedOK applies.
func (c *ieeeCase) checkSqrt(x float64) string {
	got, err := c.sqrt(x)
	if err != nil {
		return fmt.Sprintf("%s sqrt(%s): error %v, but IEEE arithmetic never fails", c.name, fx(x), err)
	}
	var want float64
	switch {
	case math.IsNaN(x) || x < 0:
		want = math.NaN()
	case x == 0 || math.IsInf(x, 1):
		want = x
	default:
		if !c.g.containsFloat(got) || math.IsInf(got, 0) || math.IsNaN(got) {
			return fmt.Sprintf("%s sqrt(%s) = %s, not a finite value of the format", c.name, fx(x), fx(got))
		}
		if msg := sqrtRoundedOK(ratOf(x), ratOf(got), c.g.p); msg != "" {
			return fmt.Sprintf("%s sqrt(%s) = %s: %s", c.name, fx(x), fx(got), msg)
		}
		return ""
	}
	if !sameBits(got, want) {
		return fmt.Sprintf("%s sqrt(%s) = %s, want %s", c.name, fx(x), fx(got), fx(want))
	}
	return ""
}

// checkNegAbs checks that Neg flips and Abs clears the sign bit, zeros and
// infinities included (IEEE 754 §5.5.1), and that both keep NaN a NaN.
func (c *ieeeCase) checkNegAbs(x float64) string {
	wantNeg, wantAbs := negate(x), math.Copysign(x, 1)
	if math.IsNaN(x) {
		wantNeg, wantAbs = x, x
	}
	if got := c.neg(x); !sameBits(got, wantNeg) {
		return fmt.Sprintf("%s neg(%s) = %s, want %s", c.name, fx(x), fx(got), fx(wantNeg))
	}
	if got := c.abs(x); !sameBits(got, wantAbs) {
		return fmt.Sprintf("%s abs(%s) = %s, want %s", c.name, fx(x), fx(got), fx(wantAbs))
	}
	return ""
}

// ieeeOrder is the order of two non-NaN values of a format. Comparing
// float64s is exact (the values are float64s exactly), and −0 = +0.
func ieeeOrder(x, y float64) Order {
	switch {
	case x < y:
		return Less
	case x > y:
		return Greater
	}
	return Equal
}

// checkOrder checks Max, Min, Cmp and Sign: with a NaN operand Max and Min
// are NaN and Cmp is Unordered; otherwise Max and Min return one of the
// operands, the larger and the smaller, and Cmp agrees with the exact order
// (−0 = +0).
func (c *ieeeCase) checkOrder(x, y float64) string {
	mx, mn, o := c.max(x, y), c.min(x, y), c.cmp(x, y)
	if math.IsNaN(x) || math.IsNaN(y) {
		if !math.IsNaN(mx) || !math.IsNaN(mn) || o != Unordered {
			return fmt.Sprintf("%s with NaN: max(%s, %s) = %s, min = %s, cmp = %v; want NaN, NaN, unordered",
				c.name, fx(x), fx(y), fx(mx), fx(mn), o)
		}
		return ""
	}
	want := ieeeOrder(x, y)
	if o != want {
		return fmt.Sprintf("%s cmp(%s, %s) = %v, want %v", c.name, fx(x), fx(y), o, want)
	}
	isOperand := func(v float64) bool { return sameBits(v, x) || sameBits(v, y) }
	if !isOperand(mx) || ieeeOrder(mx, x) == Less || ieeeOrder(mx, y) == Less {
		return fmt.Sprintf("%s max(%s, %s) = %s", c.name, fx(x), fx(y), fx(mx))
	}
	if !isOperand(mn) || ieeeOrder(mn, x) == Greater || ieeeOrder(mn, y) == Greater {
		return fmt.Sprintf("%s min(%s, %s) = %s", c.name, fx(x), fx(y), fx(mn))
	}
	if wantSign := ieeeOrder(x, 0); c.sign(x) != wantSign {
		return fmt.Sprintf("%s sign(%s) = %v, want %v", c.name, fx(x), c.sign(x), wantSign)
	}
	return ""
}

// ---------------------------------------------------------------------------
// Generators and shrinkers.

// sliceShrink streams the given candidates.
func sliceShrink(vs []interface{}) gopter.Shrink {
	i := 0
	return func() (interface{}, bool) {
		if i >= len(vs) {
			return nil, false
		}
		i++
		return vs[i-1], true
	}
}

func ratSize(r *big.Rat) int { return r.Num().BitLen() + r.Denom().BitLen() }

// shrinkRats returns simpler rationals than r: 0, |r|, ±1, the integer
// part, halved numerator or denominator, the numerator without its lowest
// set bit, r × 2^±1 where that cancels a factor. Every candidate has fewer
// bits than r (or is |r| for a negative r), so shrinking terminates, and
// every denominator is ≥ 1 by construction.
func shrinkRats(r *big.Rat) []*big.Rat {
	if r.Sign() == 0 {
		return nil
	}
	num, den := r.Num(), r.Denom()
	two := big.NewInt(2)
	cands := []*big.Rat{
		new(big.Rat),
		ratAbs(r),
		ratInt(int64(r.Sign())),
		new(big.Rat).SetInt(new(big.Int).Quo(num, den)),
		new(big.Rat).SetFrac(new(big.Int).Quo(num, two), den),
	}
	if den.Cmp(big.NewInt(1)) > 0 {
		cands = append(cands, new(big.Rat).SetFrac(num, new(big.Int).Quo(den, two)))
	}
	a := new(big.Int).Abs(num)
	low := new(big.Int).SetBit(new(big.Int), int(a.TrailingZeroBits()), 1)
	a.Sub(a, low)
	if num.Sign() < 0 {
		a.Neg(a)
	}
	cands = append(cands, new(big.Rat).SetFrac(a, den), ratScale(r, 1), ratScale(r, -1))
	size := ratSize(r)
	var out []*big.Rat
	seen := map[string]bool{}
	for _, c := range cands {
		s := ratSize(c)
		if s < size || s == size && r.Sign() < 0 && c.Sign() > 0 && c.Cmp(ratAbs(r)) == 0 {
			if k := c.RatString(); !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
		}
	}
	return out
}

func ratShrinker(v interface{}) gopter.Shrink {
	var out []interface{}
	for _, c := range shrinkRats(v.(*big.Rat)) {
		out = append(out, c)
	}
	return sliceShrink(out)
}

// randBig returns a random nonnegative integer below 2^bits.
func randBig(p *gopter.GenParameters, bits int) *big.Int {
	z := new(big.Int)
	for n := 0; n < bits; n += 63 {
		z.Lsh(z, 63).Or(z, big.NewInt(p.Rng.Int63()))
	}
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits)), big.NewInt(1))
	return z.And(z, mask)
}

// randSignificand returns a random p-bit significand m ∈ [2^(p−1), 2^p):
// uniform, sparse (few bits set, which makes products and sums land on
// ties), or nearly all ones (which makes them carry into the next binade).
func randSignificand(p *gopter.GenParameters, bits int) *big.Int {
	top := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
	switch p.Rng.Intn(4) {
	case 0, 1:
		return new(big.Int).Or(top, randBig(p, bits-1))
	case 2:
		m := new(big.Int).Set(top)
		for k := p.Rng.Intn(3); k > 0 && bits > 1; k-- {
			m.SetBit(m, p.Rng.Intn(bits-1), 1)
		}
		return m
	default:
		m := new(big.Int).Sub(new(big.Int).Lsh(top, 1), big.NewInt(1))
		if bits > 1 {
			m.SetBit(m, p.Rng.Intn(bits-1), 0)
		}
		return m
	}
}

func randSign(p *gopter.GenParameters, r *big.Rat) *big.Rat {
	if p.Rng.Intn(2) == 0 {
		return r.Neg(r)
	}
	return r
}

// genGridRat draws a finite value of g: an edge value, a p-bit significand
// near 1 (exponent within ±(p+2), where operands interact), or one
// anywhere in the range, subnormals and the top binade included.
func genGridRat(p *gopter.GenParameters, g arithGrid, edges []*big.Rat) *big.Rat {
	switch p.Rng.Intn(5) {
	case 0:
		return new(big.Rat).Set(edges[p.Rng.Intn(len(edges))])
	case 1, 2:
		e := p.Rng.Intn(2*g.p+5) - g.p - 2
		m := new(big.Rat).SetInt(randSignificand(p, g.p))
		return g.snap(randSign(p, ratScale(m, e-g.p+1)))
	default:
		lo, hi := -400, 400
		if g.bounded {
			lo, hi = g.emin-g.p, g.emax+1
		}
		e := lo + p.Rng.Intn(hi-lo+1)
		m := new(big.Rat).SetInt(randSignificand(p, g.p))
		return g.snap(randSign(p, ratScale(m, e-g.p+1)))
	}
}

// partner returns a value of g to combine with x so that the result of an
// operation falls where rounding is delicate, which independent operands
// rarely do: an odd multiple of half x's spacing (x + y is then a tie), a
// value that nearly cancels x, a sparse significand (1 + 2^−j makes x·y
// a tie for the sparse x that randSignificand produces), or x itself
// scaled by a power of two.
func partner(p *gopter.GenParameters, g arithGrid, x *big.Rat) *big.Rat {
	e := 0
	if x.Sign() != 0 {
		e = x.Num().BitLen() - x.Denom().BitLen() // ⌊log2 |x|⌋: x is dyadic
	}
	if g.bounded && e < g.emin {
		e = g.emin
	}
	q := e - g.p + 1 // x's spacing is 2^q
	var y *big.Rat
	switch p.Rng.Intn(4) {
	case 0:
		y = ratScale(ratInt(int64(2*p.Rng.Intn(4)+1)), q-1-p.Rng.Intn(2))
	case 1:
		d := ratScale(ratAbs(x), -1-p.Rng.Intn(g.p+2))
		if p.Rng.Intn(2) == 0 {
			d.Neg(d)
		}
		y = ratNeg(ratSum(x, d))
	case 2:
		j := 1 + p.Rng.Intn(g.p)
		y = ratScale(ratSum(ratInt(1), pow2Rat(-j)), p.Rng.Intn(9)-4)
	default:
		y = ratScale(x, p.Rng.Intn(9)-4)
	}
	return g.snap(randSign(p, y))
}

// ieeePair is a pair of operands; the generator draws them together so
// that one can be chosen to interact with the other.
type ieeePair struct{ X, Y float64 }

func (pr ieeePair) String() string { return fmt.Sprintf("(%s, %s)", fx(pr.X), fx(pr.Y)) }

// drawIEEE draws a value of c's format: grid values (see genGridRat),
// random bit patterns (NaNs and infinities included), and the special
// values ±0, ±Inf, NaN.
func drawIEEE(p *gopter.GenParameters, c *ieeeCase, edges []*big.Rat) float64 {
	specials := []float64{math.Copysign(0, -1), math.NaN()}
	if c.g.hasInf {
		specials = append(specials, math.Inf(1), math.Inf(-1))
	}
	switch k := p.Rng.Intn(10); {
	case k == 0:
		return specials[p.Rng.Intn(len(specials))]
	case k <= 2:
		return c.decode(p.NextUint64())
	}
	v, _ := genGridRat(p, c.g, edges).Float64()
	return v
}

// shrinkValue returns simpler values of c's format than x.
func (c *ieeeCase) shrinkValue(x float64) []float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return []float64{0, 1}
	case x == 0 && math.Signbit(x):
		return []float64{0}
	}
	var out []float64
	for _, r := range shrinkRats(ratOf(x)) {
		if c.g.contains(r) {
			f, _ := r.Float64()
			out = append(out, f)
		}
	}
	return out
}

// genIEEE generates values of c's format as float64s (see drawIEEE); a
// value shrinks to simpler values of the same format.
func genIEEE(c *ieeeCase) gopter.Gen {
	edges := c.g.edgeValues()
	shrinker := func(v interface{}) gopter.Shrink {
		var out []interface{}
		for _, s := range c.shrinkValue(v.(float64)) {
			out = append(out, s)
		}
		return sliceShrink(out)
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(drawIEEE(p, c, edges), shrinker)
	}
}

// drawIEEEPair draws two independent values or a value and its partner.
func drawIEEEPair(p *gopter.GenParameters, c *ieeeCase, edges []*big.Rat) ieeePair {
	if p.Rng.Intn(2) == 0 {
		return ieeePair{drawIEEE(p, c, edges), drawIEEE(p, c, edges)}
	}
	x := genGridRat(p, c.g, edges)
	pr := ieeePair{}
	pr.X, _ = x.Float64()
	pr.Y, _ = partner(p, c.g, x).Float64()
	if p.Rng.Intn(2) == 0 {
		pr.X, pr.Y = pr.Y, pr.X
	}
	return pr
}

// genIEEEPair generates operand pairs; a pair shrinks one side at a time.
func genIEEEPair(c *ieeeCase) gopter.Gen {
	edges := c.g.edgeValues()
	shrinker := func(v interface{}) gopter.Shrink {
		pr := v.(ieeePair)
		var out []interface{}
		for _, s := range c.shrinkValue(pr.X) {
			out = append(out, ieeePair{s, pr.Y})
		}
		for _, s := range c.shrinkValue(pr.Y) {
			out = append(out, ieeePair{pr.X, s})
		}
		return sliceShrink(out)
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(drawIEEEPair(p, c, edges), shrinker)
	}
}

// genRatValue draws an arbitrary rational (not only dyadic ones): small
// fractions, int32 and int64 numerators over random denominators ≥ 1,
// dyadic fractions, and edge values.
func genRatValue(p *gopter.GenParameters) *big.Rat {
	rng := p.Rng
	switch rng.Intn(6) {
	case 0:
		return ratFrac(rng.Int63n(25)-12, rng.Int63n(12)+1)
	case 1:
		return ratFrac(rng.Int63n(1<<32)-1<<31, rng.Int63n(1<<31)+1)
	case 2:
		return ratFrac(p.NextInt64(), rng.Int63n(1<<62)+1)
	case 3:
		return new(big.Rat).SetFrac(big.NewInt(p.NextInt64()), new(big.Int).Lsh(big.NewInt(1), uint(rng.Intn(63))))
	case 4:
		return ratFrac(rng.Int63n(2001)-1000, rng.Int63n(1000)+1)
	default:
		edges := []*big.Rat{
			new(big.Rat), ratInt(1), ratInt(-1), ratFrac(1, 2), ratFrac(-1, 3),
			ratInt(math.MaxInt64), ratInt(-math.MaxInt64), ratFrac(1, math.MaxInt64),
			ratFrac(1<<62+1, 1<<62-1), ratFrac(-(1<<62 - 1), 1<<62+1),
		}
		return new(big.Rat).Set(edges[rng.Intn(len(edges))])
	}
}

// genRat generates arbitrary rationals.
func genRat() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(genRatValue(p), ratShrinker)
	}
}

// genRatFor generates rationals to round to g: arbitrary rationals scaled
// across g's range and a little beyond it, and g's edge rationals.
func genRatFor(g arithGrid) gopter.Gen {
	edges := g.edgeRats()
	lo, hi := -300, 300
	if g.bounded {
		lo, hi = g.emin-g.p-4, g.emax+4
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		var r *big.Rat
		if p.Rng.Intn(4) == 0 {
			r = new(big.Rat).Set(edges[p.Rng.Intn(len(edges))])
		} else {
			r = genRatValue(p)
			// Bring r near 1 before scaling, so that the scale decides
			// the magnitude.
			k := r.Num().BitLen() - r.Denom().BitLen()
			r = ratScale(r, lo+p.Rng.Intn(hi-lo+1)-k)
		}
		return gopter.NewGenResult(r, ratShrinker)
	}
}

// genUnit generates rationals in [0, 1], the ends and 1/2 included.
func genUnit() gopter.Gen {
	shrinker := func(v interface{}) gopter.Shrink {
		var out []interface{}
		for _, c := range shrinkRats(v.(*big.Rat)) {
			if c.Sign() >= 0 && c.Cmp(ratInt(1)) <= 0 {
				out = append(out, c)
			}
		}
		return sliceShrink(out)
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		var r *big.Rat
		switch p.Rng.Intn(5) {
		case 0:
			r = new(big.Rat)
		case 1:
			r = ratInt(1)
		case 2:
			r = ratFrac(1, 2)
		default:
			a, b := p.Rng.Int63n(1<<40), p.Rng.Int63n(1<<40)
			r = ratFrac(a, a+b+1)
		}
		return gopter.NewGenResult(r, shrinker)
	}
}

// ---------------------------------------------------------------------------
// The BigFloat backend.

// bigPrecs are the BigFloat and Interval precisions under test: the tiny
// ones, where every operation rounds and ties are common, and the IEEE
// significand widths.
var bigPrecs = []uint{2, 3, 11, 24, 53, 113}

type bigCase struct {
	p uint
	b BigFloat
	g arithGrid
}

func newBigCase(p uint) bigCase { return bigCase{p: p, b: NewBigFloat(p), g: unboundedGrid(int(p))} }

// nearest is the oracle: big.Float.SetRat rounds once, to nearest even.
func (c bigCase) nearest(r *big.Rat) *big.Float {
	return new(big.Float).SetPrec(c.p).SetMode(big.ToNearestEven).SetRat(r)
}

func (c bigCase) fromRat(r *big.Rat) *big.Float {
	f := c.nearest(r)
	if f.Acc() != big.Exact {
		panic(fmt.Sprintf("%v is not a %d-bit value", r, c.p))
	}
	return f
}

// genBigFloat generates p-bit values (precision p, nearest-even mode, as
// the backend's own values have), shrinking to simpler p-bit values.
func genBigFloat(c bigCase) gopter.Gen {
	edges := c.g.edgeValues()
	shrinker := func(v interface{}) gopter.Shrink {
		var out []interface{}
		for _, s := range c.shrinkValue(v.(*big.Float)) {
			out = append(out, s)
		}
		return sliceShrink(out)
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(c.fromRat(genGridRat(p, c.g, edges)), shrinker)
	}
}

func (c bigCase) shrinkValue(x *big.Float) []*big.Float {
	var out []*big.Float
	for _, s := range shrinkRats(mustRat(x)) {
		if c.g.contains(s) {
			out = append(out, c.fromRat(s))
		}
	}
	return out
}

// bigPair is a pair of BigFloat operands, drawn together like ieeePair.
type bigPair struct{ X, Y *big.Float }

func (pr bigPair) String() string {
	return fmt.Sprintf("(%s, %s)", pr.X.Text('p', 0), pr.Y.Text('p', 0))
}

func genBigPair(c bigCase) gopter.Gen {
	edges := c.g.edgeValues()
	shrinker := func(v interface{}) gopter.Shrink {
		pr := v.(bigPair)
		var out []interface{}
		for _, s := range c.shrinkValue(pr.X) {
			out = append(out, bigPair{s, pr.Y})
		}
		for _, s := range c.shrinkValue(pr.Y) {
			out = append(out, bigPair{pr.X, s})
		}
		return sliceShrink(out)
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		x := genGridRat(p, c.g, edges)
		var y *big.Rat
		if p.Rng.Intn(2) == 0 {
			y = genGridRat(p, c.g, edges)
		} else {
			y = partner(p, c.g, x)
			if p.Rng.Intn(2) == 0 {
				x, y = y, x
			}
		}
		return gopter.NewGenResult(bigPair{c.fromRat(x), c.fromRat(y)}, shrinker)
	}
}

// dirtyZ is a destination with another precision, mode and value: a
// backend must not let any of them leak into the result.
func dirtyZ() *big.Float { return new(big.Float).SetPrec(7).SetMode(big.ToZero).SetInt64(-99) }

func (c bigCase) call(op string, z, x, y *big.Float) (*big.Float, error) {
	switch op {
	case "add":
		return c.b.Add(z, x, y), nil
	case "sub":
		return c.b.Sub(z, x, y), nil
	case "mul":
		return c.b.Mul(z, x, y), nil
	case "div":
		return c.b.Div(z, x, y)
	case "sqrt":
		return c.b.Sqrt(z, x)
	case "neg":
		return c.b.Neg(z, x), nil
	case "abs":
		return c.b.Abs(z, x), nil
	}
	panic("unknown op " + op)
}

// check checks op on x (and y for binary ops) with three destinations: nil,
// a dirty one, and x itself (math/big-style aliasing). The result must be
// the exact result rounded by big.Float.SetRat (for sqrt: pass
// sqrtRoundedOK), with precision p and mode ToNearestEven; x/0 and √(x<0)
// must fail with ErrDivByZero and ErrDomain; operands other than z must be
// left alone.
func (c bigCase) check(op string, x, y *big.Float) string {
	rx, err := c.b.Rat(x)
	if err != nil {
		return fmt.Sprintf("%d-bit Rat(%v): %v", c.p, x, err)
	}
	ry := new(big.Rat)
	if y != nil {
		if ry, err = c.b.Rat(y); err != nil {
			return fmt.Sprintf("%d-bit Rat(%v): %v", c.p, y, err)
		}
	}
	var exact *big.Rat // nil for sqrt, whose root is checked by sqrtRoundedOK
	var wantErr error
	switch op {
	case "add":
		exact = ratSum(rx, ry)
	case "sub":
		exact = ratDiff(rx, ry)
	case "mul":
		exact = ratProd(rx, ry)
	case "div":
		if ry.Sign() == 0 {
			wantErr = ErrDivByZero
		} else {
			exact = ratQuo(rx, ry)
		}
	case "sqrt":
		if rx.Sign() < 0 {
			wantErr = ErrDomain
		}
	case "neg":
		exact = ratNeg(rx)
	case "abs":
		exact = ratAbs(rx)
	}
	var want *big.Float
	if exact != nil {
		want = c.nearest(exact)
	}
	args := x.Text('p', 0)
	if y != nil {
		args += ", " + y.Text('p', 0)
	}
	for v, where := range []string{"z = nil", "z of another precision and mode", "z aliasing the first operand"} {
		xc := new(big.Float).Copy(x)
		var yc *big.Float
		if y != nil {
			yc = new(big.Float).Copy(y)
		}
		var z *big.Float
		switch v {
		case 1:
			z = dirtyZ()
		case 2:
			z = xc
		}
		got, err := c.call(op, z, xc, yc)
		if wantErr != nil {
			var oe *OpError
			if !errors.Is(err, wantErr) || !errors.As(err, &oe) || oe.Op != op {
				return fmt.Sprintf("%d-bit %s(%s) [%s]: error %v, want an *OpError for %s wrapping %v", c.p, op, args, where, err, op, wantErr)
			}
			continue
		}
		if err != nil || got == nil {
			return fmt.Sprintf("%d-bit %s(%s) [%s]: %v, %v", c.p, op, args, where, got, err)
		}
		if want != nil {
			if d := cmp.Diff(want, got, bigFloatEqual); d != "" {
				return fmt.Sprintf("%d-bit %s(%s) [%s] = %s (prec %d, %v), want %s (exact %s)",
					c.p, op, args, where, got.Text('p', 0), got.Prec(), got.Mode(), want.Text('p', 0), ratStr(exact))
			}
		} else { // sqrt
			if got.Prec() != c.p || got.Mode() != big.ToNearestEven {
				return fmt.Sprintf("%d-bit sqrt(%s) [%s] has precision %d and mode %v", c.p, args, where, got.Prec(), got.Mode())
			}
			gr, _ := got.Rat(nil)
			if rx.Sign() == 0 {
				if gr.Sign() != 0 {
					return fmt.Sprintf("%d-bit sqrt(0) [%s] = %s", c.p, where, got.Text('p', 0))
				}
			} else if msg := sqrtRoundedOK(rx, gr, int(c.p)); msg != "" {
				return fmt.Sprintf("%d-bit sqrt [%s]: %s", c.p, where, msg)
			}
		}
		if v != 2 && xc.Cmp(x) != 0 {
			return fmt.Sprintf("%d-bit %s(%s) [%s] modified its first operand to %v", c.p, op, args, where, xc)
		}
		if yc != nil && yc.Cmp(y) != 0 {
			return fmt.Sprintf("%d-bit %s(%s) [%s] modified its second operand to %v", c.p, op, args, where, yc)
		}
	}
	return ""
}

func mustRat(x *big.Float) *big.Rat {
	r, _ := x.Rat(nil)
	return r
}

// ---------------------------------------------------------------------------
// Exact: the field laws hold exactly.

// TestArithExactFieldLaws checks the laws that make Exact the reference
// every rounding backend is measured against: if any failed, "exact" would
// not mean exact.
func TestArithExactFieldLaws(t *testing.T) {
	seed := arithSeed(t, 1)
	e := NewExact()
	g := genRat()
	zero, one := new(big.Rat), ratInt(1)
	diff := func(what string, got, want *big.Rat) string {
		if d := cmp.Diff(want, got, ratEqual); d != "" {
			return fmt.Sprintf("%s: got %s, want %s", what, ratStr(got), ratStr(want))
		}
		return ""
	}
	first := func(msgs ...string) string {
		for _, m := range msgs {
			if m != "" {
				return m
			}
		}
		return ""
	}
	div := func(x, y *big.Rat) *big.Rat {
		q, err := e.Div(nil, x, y)
		if err != nil {
			panic(err)
		}
		return q
	}
	laws := []struct {
		name string
		p    gopter.Prop
	}{
		{"commutative", prop.ForAll(func(x, y *big.Rat) string {
			return first(
				diff("x+y vs y+x", e.Add(nil, x, y), e.Add(nil, y, x)),
				diff("x·y vs y·x", e.Mul(nil, x, y), e.Mul(nil, y, x)))
		}, g, g)},
		{"associative", prop.ForAll(func(x, y, z *big.Rat) string {
			return first(
				diff("(x+y)+z vs x+(y+z)", e.Add(nil, e.Add(nil, x, y), z), e.Add(nil, x, e.Add(nil, y, z))),
				diff("(x·y)·z vs x·(y·z)", e.Mul(nil, e.Mul(nil, x, y), z), e.Mul(nil, x, e.Mul(nil, y, z))))
		}, g, g, g)},
		{"distributive", prop.ForAll(func(x, y, z *big.Rat) string {
			return first(
				diff("x·(y+z) vs x·y+x·z", e.Mul(nil, x, e.Add(nil, y, z)), e.Add(nil, e.Mul(nil, x, y), e.Mul(nil, x, z))),
				diff("(y−z)·x vs y·x−z·x", e.Mul(nil, e.Sub(nil, y, z), x), e.Sub(nil, e.Mul(nil, y, x), e.Mul(nil, z, x))))
		}, g, g, g)},
		{"identities and inverses", prop.ForAll(func(x, y *big.Rat) string {
			msg := first(
				diff("x+0", e.Add(nil, x, zero), x),
				diff("x·1", e.Mul(nil, x, one), x),
				diff("x·0", e.Mul(nil, x, zero), zero),
				diff("x+(−x)", e.Add(nil, x, e.Neg(nil, x)), zero),
				diff("x−x", e.Sub(nil, x, x), zero),
				diff("x−y vs x+(−y)", e.Sub(nil, x, y), e.Add(nil, x, e.Neg(nil, y))),
				diff("−(−x)", e.Neg(nil, e.Neg(nil, x)), x))
			if msg == "" && x.Sign() != 0 {
				msg = first(
					diff("x·(1/x)", e.Mul(nil, x, div(one, x)), one),
					diff("x/x", div(x, x), one))
			}
			if msg == "" && y.Sign() != 0 {
				msg = diff("(x/y)·y", e.Mul(nil, div(x, y), y), x)
			}
			return msg
		}, g, g)},
		{"division by zero fails", prop.ForAll(func(x *big.Rat) string {
			q, err := e.Div(nil, x, new(big.Rat))
			if !errors.Is(err, ErrDivByZero) || q != nil {
				return fmt.Sprintf("%s/0 = %v, %v; want nil, ErrDivByZero", ratStr(x), q, err)
			}
			return ""
		}, g)},
		{"order compatible with + and ×", prop.ForAll(func(x, y, z *big.Rat) string {
			o := e.Cmp(x, y)
			if o != Order(x.Cmp(y)) || e.Cmp(y, x) != -o {
				return fmt.Sprintf("cmp(%s, %s) = %v, cmp(y, x) = %v", ratStr(x), ratStr(y), o, e.Cmp(y, x))
			}
			if s := e.Sign(e.Sub(nil, x, y)); s != o {
				return fmt.Sprintf("sign(x−y) = %v but cmp(x, y) = %v", s, o)
			}
			if o2 := e.Cmp(e.Add(nil, x, z), e.Add(nil, y, z)); o2 != o {
				return fmt.Sprintf("cmp(x+z, y+z) = %v but cmp(x, y) = %v (x=%s y=%s z=%s)", o2, o, ratStr(x), ratStr(y), ratStr(z))
			}
			if s := z.Sign(); s != 0 {
				if o3 := e.Cmp(e.Mul(nil, x, z), e.Mul(nil, y, z)); o3 != o*Order(s) {
					return fmt.Sprintf("cmp(x·z, y·z) = %v, cmp(x, y) = %v, sign(z) = %d", o3, o, s)
				}
			}
			return ""
		}, g, g, g)},
		{"max and min", prop.ForAll(func(x, y *big.Rat) string {
			mx, mn := e.Max(nil, x, y), e.Min(nil, x, y)
			if (mx.Cmp(x) != 0 && mx.Cmp(y) != 0) || mx.Cmp(x) < 0 || mx.Cmp(y) < 0 {
				return fmt.Sprintf("max(%s, %s) = %s", ratStr(x), ratStr(y), ratStr(mx))
			}
			if (mn.Cmp(x) != 0 && mn.Cmp(y) != 0) || mn.Cmp(x) > 0 || mn.Cmp(y) > 0 {
				return fmt.Sprintf("min(%s, %s) = %s", ratStr(x), ratStr(y), ratStr(mn))
			}
			return first(
				diff("max+min vs x+y", e.Add(nil, mx, mn), e.Add(nil, x, y)),
				diff("max(x, y) vs max(y, x)", mx, e.Max(nil, y, x)),
				diff("abs(x) vs max(x, −x)", e.Abs(nil, x), e.Max(nil, x, e.Neg(nil, x))),
				diff("min(x, −x) vs −abs(x)", e.Min(nil, x, e.Neg(nil, x)), e.Neg(nil, e.Abs(nil, x))))
		}, g, g)},
		{"sqrt", prop.ForAll(func(x *big.Rat) string {
			// √(x²) = |x|; 2x² is not a square for x ≠ 0, so √(2x²) is
			// irrational; √ of a negative number is outside the domain.
			sq := e.Mul(nil, x, x)
			r, err := e.Sqrt(nil, sq)
			if err != nil {
				return fmt.Sprintf("sqrt(%s): %v", ratStr(sq), err)
			}
			if m := diff("sqrt(x²)", r, e.Abs(nil, x)); m != "" {
				return m
			}
			if x.Sign() == 0 {
				return ""
			}
			if _, err := e.Sqrt(nil, e.Mul(nil, sq, ratInt(2))); !errors.Is(err, ErrIrrational) {
				return fmt.Sprintf("sqrt(2·%s): error %v, want ErrIrrational", ratStr(sq), err)
			}
			if _, err := e.Sqrt(nil, e.Neg(nil, sq)); !errors.Is(err, ErrDomain) {
				return fmt.Sprintf("sqrt(−%s): error %v, want ErrDomain", ratStr(sq), err)
			}
			return ""
		}, g)},
		{"results are fresh and operands untouched", prop.ForAll(func(x, y *big.Rat) string {
			// Values are pointers: a result must not share storage with
			// an operand, and z = x must work as in math/big.
			x0, y0 := new(big.Rat).Set(x), new(big.Rat).Set(y)
			results := []*big.Rat{e.Add(nil, x, y), e.Sub(nil, x, y), e.Mul(nil, x, y), e.Neg(nil, x),
				e.Abs(nil, x), e.Max(nil, x, y), e.Min(nil, x, y), e.Set(nil, x), e.SetRat(nil, x)}
			for i, r := range results {
				if r == x || r == y {
					return fmt.Sprintf("result %d aliases an operand", i)
				}
			}
			if m := first(diff("x after ops", x, x0), diff("y after ops", y, y0)); m != "" {
				return m
			}
			want := ratSum(x, y)
			xc := new(big.Rat).Set(x)
			return diff("Add(z = x, x, y)", e.Add(xc, xc, y), want)
		}, g, g)},
	}
	for _, law := range laws {
		t.Run(law.name, func(t *testing.T) { runProp(t, seed, 500, law.p) })
	}
}

// ---------------------------------------------------------------------------
// Rounding backends: every operation is the correctly rounded exact result.

// TestArithIEEECorrectlyRounded checks that fp64, fp32 and the emulated
// formats return the correctly rounded exact result, with IEEE special
// values, for operands that favour ties, overflow, underflow and
// cancellation (see genIEEEPair).
func TestArithIEEECorrectlyRounded(t *testing.T) {
	seed := arithSeed(t, 2)
	for _, c := range ieeeCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g, gp := genIEEE(c), genIEEEPair(c)
			for _, op := range []string{"add", "sub", "mul", "div"} {
				t.Run(op, func(t *testing.T) {
					runProp(t, seed, 3000, prop.ForAll(func(pr ieeePair) string { return c.checkBinary(op, pr.X, pr.Y) }, gp))
				})
			}
			t.Run("sqrt", func(t *testing.T) {
				runProp(t, seed, 2000, prop.ForAll(c.checkSqrt, g))
			})
			t.Run("neg,abs", func(t *testing.T) {
				runProp(t, seed, 500, prop.ForAll(c.checkNegAbs, g))
			})
			t.Run("max,min,cmp", func(t *testing.T) {
				runProp(t, seed, 1000, prop.ForAll(func(pr ieeePair) string { return c.checkOrder(pr.X, pr.Y) }, gp))
			})
		})
	}
}

// TestArithBigFloatCorrectlyRounded checks BigFloat at precisions from 2
// bits (where nearly every result rounds, often on a tie) to 113, with the
// three kinds of destination z that callers pass.
func TestArithBigFloatCorrectlyRounded(t *testing.T) {
	seed := arithSeed(t, 3)
	for _, p := range bigPrecs {
		c := newBigCase(p)
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			t.Parallel()
			g, gp := genBigFloat(c), genBigPair(c)
			for _, op := range []string{"add", "sub", "mul", "div"} {
				t.Run(op, func(t *testing.T) {
					runProp(t, seed, 1000, prop.ForAll(func(pr bigPair) string { return c.check(op, pr.X, pr.Y) }, gp))
				})
			}
			for _, op := range []string{"sqrt", "neg", "abs"} {
				t.Run(op, func(t *testing.T) {
					runProp(t, seed, 600, prop.ForAll(func(x *big.Float) string { return c.check(op, x, nil) }, g))
				})
			}
		})
	}
}

// ---------------------------------------------------------------------------
// SetRat: the correctly rounded value of an arbitrary rational.

// TestArithSetRatCorrectlyRounded checks SetRat on arbitrary rationals
// (non-dyadic ones included) across each format's range, against arithGrid:
// SetRat is how every constant and input enters a computation, so an
// error there shifts every result.
func TestArithSetRatCorrectlyRounded(t *testing.T) {
	seed := arithSeed(t, 4)
	for _, c := range ieeeCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var table *roundOracle
			if c.name != "fp64" && c.name != "fp32" {
				table = oracleFor(t, formatNamed(c.name))
			}
			runProp(t, seed, 3000, prop.ForAll(func(r *big.Rat) string {
				got := c.setRat(r)
				want := c.g.roundIEEE(r)
				if !sameBits(got, want) {
					return fmt.Sprintf("%s SetRat(%s) = %s, want %s", c.name, ratStr(r), fx(got), fx(want))
				}
				if table != nil { // a second oracle, from the table of all values
					w2 := table.round(ratAbs(r))
					if r.Sign() < 0 {
						w2 = negate(w2)
					}
					if !sameBits(got, w2) {
						return fmt.Sprintf("%s SetRat(%s) = %s, table oracle gives %s", c.name, ratStr(r), fx(got), fx(w2))
					}
				}
				return ""
			}, genRatFor(c.g)))
		})
	}
	for _, p := range bigPrecs {
		c := newBigCase(p)
		t.Run(fmt.Sprintf("bigfloat-%d", p), func(t *testing.T) {
			t.Parallel()
			runProp(t, seed, 1000, prop.ForAll(func(r *big.Rat) string {
				want := new(big.Float).SetPrec(p).SetMode(big.ToNearestEven).SetRat(c.g.round(r, nearestEven))
				for _, z := range []*big.Float{nil, dirtyZ()} {
					if d := cmp.Diff(want, c.b.SetRat(z, r), bigFloatEqual); d != "" {
						return fmt.Sprintf("%d-bit SetRat(%s): %s", p, ratStr(r), d)
					}
				}
				return ""
			}, genRatFor(c.g)))
		})
		t.Run(fmt.Sprintf("interval-%d", p), func(t *testing.T) {
			t.Parallel()
			b := NewIntervals(p)
			runProp(t, seed, 1000, prop.ForAll(func(r *big.Rat) string {
				// The tightest enclosure: r rounded down and up.
				want := &Interval{
					Lo: new(big.Float).SetPrec(p).SetRat(c.g.round(r, towardNegInf)),
					Hi: new(big.Float).SetPrec(p).SetRat(c.g.round(r, towardPosInf)),
				}
				if d := cmp.Diff(want, b.SetRat(nil, r), endpointEqual); d != "" {
					return fmt.Sprintf("interval:%d SetRat(%s): %s", p, ratStr(r), d)
				}
				return ""
			}, genRatFor(c.g)))
		})
	}
	t.Run("exact", func(t *testing.T) {
		e := NewExact()
		runProp(t, seed, 500, prop.ForAll(func(r *big.Rat) string {
			got := e.SetRat(nil, r)
			if got == r || got.Cmp(r) != 0 {
				return fmt.Sprintf("exact SetRat(%s) = %s (same pointer: %v)", ratStr(r), ratStr(got), got == r)
			}
			return ""
		}, genRat()))
	})
}

// formatNamed returns the emulated format with the given name.
func formatNamed(name string) *Format {
	for _, f := range []*Format{Binary16, BFloat16, FP8E4M3, FP8E5M2, Binary32, Binary64} {
		if f.Name == name {
			return f
		}
	}
	panic("no format " + name)
}

// TestArithSetInt64 checks SetInt64 against the rounding of the integer as
// a rational: in particular integers above 2^53, which a conversion through
// float64 would round twice.
func TestArithSetInt64(t *testing.T) {
	seed := arithSeed(t, 5)
	ints := []int64{0, 1, -1, 1<<24 + 1, 1<<24 + 3, 1<<53 + 1, -(1<<53 + 1), 1<<53 + 1<<29 + 1,
		1<<62 + 1<<38 + 1, 1<<62 + 1<<39 + 1<<38, math.MaxInt64, math.MinInt64, math.MinInt64 + 1,
		65519, 65520, 464, 465, 61440, 61439}
	gi := gen.OneGenOf(gen.Int64(), gen.Int64Range(-1<<30, 1<<30), gen.OneConstOf(toIfaces(ints)...))
	for _, c := range ieeeCases(t) {
		t.Run(c.name, func(t *testing.T) {
			runProp(t, seed, 1000, prop.ForAll(func(n int64) string {
				if got, want := c.setInt64(n), c.g.roundIEEE(ratInt(n)); !sameBits(got, want) {
					return fmt.Sprintf("%s SetInt64(%d) = %s, want %s", c.name, n, fx(got), fx(want))
				}
				return ""
			}, gi))
		})
	}
	for _, p := range bigPrecs {
		c := newBigCase(p)
		iv := NewIntervals(p)
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			runProp(t, seed, 500, prop.ForAll(func(n int64) string {
				r := ratInt(n)
				want := new(big.Float).SetPrec(p).SetMode(big.ToNearestEven).SetRat(c.g.round(r, nearestEven))
				if d := cmp.Diff(want, c.b.SetInt64(dirtyZ(), n), bigFloatEqual); d != "" {
					return fmt.Sprintf("%d-bit SetInt64(%d): %s", p, n, d)
				}
				wantIv := &Interval{Lo: new(big.Float).SetPrec(p).SetRat(c.g.round(r, towardNegInf)),
					Hi: new(big.Float).SetPrec(p).SetRat(c.g.round(r, towardPosInf))}
				if d := cmp.Diff(wantIv, iv.SetInt64(nil, n), endpointEqual); d != "" {
					return fmt.Sprintf("interval:%d SetInt64(%d): %s", p, n, d)
				}
				return ""
			}, gi))
		})
	}
}

func toIfaces[T any](xs []T) []interface{} {
	out := make([]interface{}, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// ---------------------------------------------------------------------------
// Monotonicity: x ≤ y implies SetRat(x) ≤ SetRat(y).

// TestArithSetRatMonotone checks that rounding never reverses an order:
// comparisons made in a rounding backend can then only lose strictness,
// never flip.
func TestArithSetRatMonotone(t *testing.T) {
	seed := arithSeed(t, 6)
	// Pairs: y = x + |x| × u × 2^−j with u ∈ [0, 1) and j up to p + 8, so
	// that x and y often straddle a rounding boundary, and unrelated pairs.
	type check func(x, y *big.Rat) string
	run := func(t *testing.T, g arithGrid, c check) {
		near := prop.ForAll(func(x, d *big.Rat, j int) string {
			u := ratAbs(d)
			u.Quo(u, ratSum(u, ratInt(1)))
			step := ratAbs(x)
			if step.Sign() == 0 {
				step = pow2Rat(-j)
			}
			y := ratSum(x, ratScale(ratProd(step, u), -j))
			return c(x, y)
		}, genRatFor(g), genRat(), gen.IntRange(0, g.p+8))
		apart := prop.ForAll(func(x, y *big.Rat) string {
			if x.Cmp(y) > 0 {
				x, y = y, x
			}
			return c(x, y)
		}, genRatFor(g), genRatFor(g))
		t.Run("near", func(t *testing.T) { runProp(t, seed, 1500, near) })
		t.Run("apart", func(t *testing.T) { runProp(t, seed, 500, apart) })
	}
	for _, c := range ieeeCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			run(t, c.g, func(x, y *big.Rat) string {
				// NaN (E4M3 overflow) is unordered; "never greater" still
				// holds.
				fx1, fy1 := c.setRat(x), c.setRat(y)
				if fx1 > fy1 {
					return fmt.Sprintf("%s: %s ≤ %s but SetRat gives %s > %s", c.name, ratStr(x), ratStr(y), fx(fx1), fx(fy1))
				}
				return ""
			})
		})
	}
	for _, p := range bigPrecs {
		bf, iv := NewBigFloat(p), NewIntervals(p)
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			t.Parallel()
			run(t, unboundedGrid(int(p)), func(x, y *big.Rat) string {
				if a, b := bf.SetRat(nil, x), bf.SetRat(nil, y); a.Cmp(b) > 0 {
					return fmt.Sprintf("%d-bit: %s ≤ %s but SetRat gives %v > %v", p, ratStr(x), ratStr(y), a, b)
				}
				a, b := iv.SetRat(nil, x), iv.SetRat(nil, y)
				if a.Lo.Cmp(b.Lo) > 0 || a.Hi.Cmp(b.Hi) > 0 {
					return fmt.Sprintf("interval:%d: %s ≤ %s but SetRat gives %s, %s", p, ratStr(x), ratStr(y), iv.Format(a), iv.Format(b))
				}
				return ""
			})
		})
	}
	t.Run("exact", func(t *testing.T) {
		e := NewExact()
		run(t, unboundedGrid(64), func(x, y *big.Rat) string {
			if e.Cmp(e.SetRat(nil, x), e.SetRat(nil, y)) > 0 {
				return fmt.Sprintf("exact: %s ≤ %s but SetRat reverses them", ratStr(x), ratStr(y))
			}
			return ""
		})
	})
}

// ---------------------------------------------------------------------------
// Round trips through rationals.

// checkRoundTrip checks, for a value v of c's format: Rat(v) is v's
// exact value (an error for ±Inf and NaN), SetRat(Rat(v)) is v (−0 comes
// back as +0: a rational has no signed zero), and Finite agrees.
func (c *ieeeCase) checkRoundTrip(v float64) string {
	r, err := c.rat(v)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		if !errors.Is(err, ErrNotFinite) || c.finite(v) {
			return fmt.Sprintf("%s Rat(%v) = %v, %v; Finite = %v; want ErrNotFinite, false", c.name, v, r, err, c.finite(v))
		}
		return ""
	}
	if err != nil || !c.finite(v) {
		return fmt.Sprintf("%s Rat(%s): %v; Finite = %v", c.name, fx(v), err, c.finite(v))
	}
	if r.Cmp(ratOf(v)) != 0 {
		return fmt.Sprintf("%s Rat(%s) = %s, want %s", c.name, fx(v), ratStr(r), ratStr(ratOf(v)))
	}
	want := v
	if v == 0 {
		want = 0
	}
	// With Rat(v) = r, this also gives Rat(SetRat(r)) = r for every
	// representable r.
	if got := c.setRat(r); !sameBits(got, want) {
		return fmt.Sprintf("%s SetRat(Rat(%s)) = %s", c.name, fx(v), fx(got))
	}
	return ""
}

// TestArithRatRoundTrip checks that Rat gives a value's exact value and
// SetRat gives it back: the oracles above read operands through Rat, and
// results are compared and printed through these conversions.
func TestArithRatRoundTrip(t *testing.T) {
	seed := arithSeed(t, 7)
	// The small formats are enumerated in TestArithSmallFormatsRoundTrip.
	for _, c := range []*ieeeCase{fp64Case(), fp32Case()} {
		t.Run(c.name, func(t *testing.T) {
			runProp(t, seed, 3000, prop.ForAll(c.checkRoundTrip, genIEEE(c)))
		})
	}
	for _, p := range bigPrecs {
		c := newBigCase(p)
		iv := NewIntervals(p)
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			runProp(t, seed, 1000, prop.ForAll(func(v *big.Float) string {
				r, err := c.b.Rat(v)
				if err != nil || r.Cmp(mustRat(v)) != 0 {
					return fmt.Sprintf("%d-bit Rat(%v) = %v, %v", p, v, r, err)
				}
				if d := cmp.Diff(v, c.b.SetRat(nil, r), bigFloatEqual); d != "" {
					return fmt.Sprintf("%d-bit SetRat(Rat(%v)): %s", p, v, d)
				}
				// A representable rational is a point interval, whose
				// Rat and Bounds give it back.
				pt := iv.SetRat(nil, r)
				ir, err := iv.Rat(pt)
				if err != nil || ir.Cmp(r) != 0 {
					return fmt.Sprintf("interval:%d Rat(SetRat(%s)) = %v, %v", p, ratStr(r), ir, err)
				}
				lo, hi, err := iv.Bounds(pt)
				if err != nil || lo.Cmp(r) != 0 || hi.Cmp(r) != 0 {
					return fmt.Sprintf("interval:%d Bounds(SetRat(%s)) = %v, %v, %v", p, ratStr(r), lo, hi, err)
				}
				// A non-representable one is not a point.
				off := ratSum(r, ratScale(ratAbs(r), -int(p)-3))
				if r.Sign() == 0 {
					off = ratFrac(1, 3)
				}
				if _, err := iv.Rat(iv.SetRat(nil, off)); !errors.Is(err, ErrNotPoint) {
					return fmt.Sprintf("interval:%d Rat(SetRat(%s)): error %v, want ErrNotPoint", p, ratStr(off), err)
				}
				return ""
			}, genBigFloat(c)))
		})
	}
	t.Run("exact", func(t *testing.T) {
		e := NewExact()
		runProp(t, seed, 500, prop.ForAll(func(r *big.Rat) string {
			v := e.SetRat(nil, r)
			back, err := e.Rat(v)
			lo, hi, berr := e.Bounds(v)
			if err != nil || berr != nil || back.Cmp(r) != 0 || lo.Cmp(r) != 0 || hi.Cmp(r) != 0 {
				return fmt.Sprintf("exact: Rat, Bounds of SetRat(%s) = %v, %v, %v (%v, %v)", ratStr(r), back, lo, hi, err, berr)
			}
			// Rat must return a copy: the caller may modify it.
			if back == v || lo == v || hi == v {
				return "exact: Rat or Bounds returned the value itself"
			}
			return ""
		}, genRat()))
	})
}

// ---------------------------------------------------------------------------
// Intervals: every result encloses the exact result at every point.

type ivCase struct {
	p uint
	b Intervals
	g arithGrid
}

// encloses reports ("" if so) whether iv is a finite interval with p-bit
// endpoints that contains v.
func (c ivCase) encloses(op string, iv *Interval, v *big.Rat) string {
	if iv == nil || iv.Lo == nil || iv.Hi == nil {
		return fmt.Sprintf("%s: no interval", op)
	}
	if iv.Lo.Prec() != c.p || iv.Hi.Prec() != c.p {
		return fmt.Sprintf("%s = %s has endpoint precisions %d, %d, want %d", op, c.b.Format(iv), iv.Lo.Prec(), iv.Hi.Prec(), c.p)
	}
	lo, hi, err := c.b.Bounds(iv)
	if err != nil {
		return fmt.Sprintf("%s = %s: %v", op, c.b.Format(iv), err)
	}
	if lo.Cmp(v) > 0 || hi.Cmp(v) < 0 {
		return fmt.Sprintf("%s = %s does not contain the exact %s", op, c.b.Format(iv), ratStr(v))
	}
	return ""
}

func (c ivCase) checkEnclosure(x, y *Interval, px, py *big.Rat) string {
	b := c.b
	xlo, _, _ := b.Bounds(x)
	ylo, yhi, _ := b.Bounds(y)
	tag := fmt.Sprintf("x = %s ∋ %s, y = %s ∋ %s: ", b.Format(x), ratStr(px), b.Format(y), ratStr(py))
	checks := []struct {
		op  string
		got *Interval
		v   *big.Rat
	}{
		{"x+y", b.Add(nil, x, y), ratSum(px, py)},
		{"x−y", b.Sub(nil, x, y), ratDiff(px, py)},
		{"x·y", b.Mul(nil, x, y), ratProd(px, py)},
		{"−x", b.Neg(nil, x), ratNeg(px)},
		{"|x|", b.Abs(nil, x), ratAbs(px)},
		{"max(x, y)", b.Max(nil, x, y), maxRat(px, py)},
		{"min(x, y)", b.Min(nil, x, y), minRat(px, py)},
	}
	for _, ch := range checks {
		if m := c.encloses(ch.op, ch.got, ch.v); m != "" {
			return tag + m
		}
	}
	q, err := b.Div(nil, x, y)
	if ylo.Sign() <= 0 && yhi.Sign() >= 0 {
		if !errors.Is(err, ErrDivByZero) {
			return tag + fmt.Sprintf("x/y with 0 in y: %v, %v; want ErrDivByZero", q, err)
		}
	} else if err != nil {
		return tag + fmt.Sprintf("x/y: %v", err)
	} else if m := c.encloses("x/y", q, ratQuo(px, py)); m != "" {
		return tag + m
	}
	s, err := b.Sqrt(nil, x)
	if xlo.Sign() < 0 {
		if !errors.Is(err, ErrDomain) {
			return tag + fmt.Sprintf("√x with x < 0 in it: %v, %v; want ErrDomain", s, err)
		}
		return ""
	}
	if err != nil {
		return tag + fmt.Sprintf("√x: %v", err)
	}
	// √px is irrational in general: lo ≤ √px ≤ hi iff (lo ≤ 0 or lo² ≤ px)
	// and hi ≥ 0 and hi² ≥ px.
	if s.Lo.Prec() != c.p || s.Hi.Prec() != c.p {
		return tag + fmt.Sprintf("√x = %s has endpoint precisions %d, %d", b.Format(s), s.Lo.Prec(), s.Hi.Prec())
	}
	lo, hi, err := b.Bounds(s)
	if err != nil || (lo.Sign() > 0 && ratProd(lo, lo).Cmp(px) > 0) || hi.Sign() < 0 || ratProd(hi, hi).Cmp(px) < 0 {
		return tag + fmt.Sprintf("√x = %s (%v) does not contain √%s", b.Format(s), err, ratStr(px))
	}
	return ""
}

func maxRat(a, b *big.Rat) *big.Rat {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

func minRat(a, b *big.Rat) *big.Rat {
	if a.Cmp(b) <= 0 {
		return a
	}
	return b
}

// checkCmp checks that Cmp and Sign never claim an order that some points
// of the intervals contradict, and that they do report a certain one.
func (c ivCase) checkCmp(x, y *Interval, px, py *big.Rat) string {
	b := c.b
	xlo, xhi, _ := b.Bounds(x)
	ylo, yhi, _ := b.Bounds(y)
	o := b.Cmp(x, y)
	var want Order
	switch {
	case xhi.Cmp(ylo) < 0:
		want = Less
	case xlo.Cmp(yhi) > 0:
		want = Greater
	case xlo.Cmp(xhi) == 0 && ylo.Cmp(yhi) == 0 && xlo.Cmp(ylo) == 0:
		want = Equal
	default:
		want = Unordered
	}
	if o != want {
		return fmt.Sprintf("cmp(%s, %s) = %v, want %v", b.Format(x), b.Format(y), o, want)
	}
	// Soundness at the chosen points, independent of the bounds reasoning.
	if o != Unordered && Order(px.Cmp(py)) != o {
		return fmt.Sprintf("cmp(%s, %s) = %v but the points %s, %s compare %d", b.Format(x), b.Format(y), o, ratStr(px), ratStr(py), px.Cmp(py))
	}
	s := b.Sign(x)
	if s != Unordered && Order(px.Sign()) != s {
		return fmt.Sprintf("sign(%s) = %v but it contains %s", b.Format(x), s, ratStr(px))
	}
	if (xlo.Sign() > 0 && s != Greater) || (xhi.Sign() < 0 && s != Less) {
		return fmt.Sprintf("sign(%s) = %v", b.Format(x), s)
	}
	return ""
}

// intervalProp builds x = [c1, c1 + w1] and y (near x when near is set,
// which makes overlaps and shared points frequent), both rounded outward
// by SetBounds, picks a point in each (t = 0 and 1 give the endpoints), and
// hands them to check.
func (c ivCase) intervalProp(check func(x, y *Interval, px, py *big.Rat) string) gopter.Prop {
	point := func(iv *Interval, t *big.Rat) *big.Rat {
		lo, hi, _ := c.b.Bounds(iv)
		return ratSum(lo, ratProd(t, ratDiff(hi, lo)))
	}
	width := func(w *big.Rat, k int) *big.Rat {
		if k >= 48 {
			return new(big.Rat) // a point
		}
		return ratScale(ratAbs(w), -k)
	}
	return prop.ForAll(func(c1, w1, t1, d, w2, t2 *big.Rat, k1, k2 int, near bool) string {
		x := c.b.SetBounds(nil, c1, ratSum(c1, width(w1, k1)))
		c2 := d
		if near {
			c2 = ratSum(c1, ratProd(d, width(w1, k1)))
		}
		y := c.b.SetBounds(nil, c2, ratSum(c2, width(w2, k2)))
		return check(x, y, point(x, t1), point(y, t2))
	}, genRat(), genRat(), genUnit(), genRat(), genRat(), genUnit(),
		gen.IntRange(0, 64), gen.IntRange(0, 64), gen.Bool())
}

// TestArithIntervalEnclosure checks the guarantee that proofs rest on: the
// exact result at any points of the operands lies in the result interval,
// and Cmp reports an order only when every point agrees.
func TestArithIntervalEnclosure(t *testing.T) {
	seed := arithSeed(t, 8)
	for _, p := range []uint{2, 11, 24, 53, 113} {
		c := ivCase{p: p, b: NewIntervals(p), g: unboundedGrid(int(p))}
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			t.Parallel()
			t.Run("enclosure", func(t *testing.T) { runProp(t, seed, 800, c.intervalProp(c.checkEnclosure)) })
			t.Run("cmp", func(t *testing.T) { runProp(t, seed, 800, c.intervalProp(c.checkCmp)) })
		})
	}
}

// TestArithIntervalPointsTight checks that on point intervals the results
// are the tightest enclosures: the exact result rounded down and up (for
// √, two adjacent p-bit numbers around the root, or the root itself).
func TestArithIntervalPointsTight(t *testing.T) {
	seed := arithSeed(t, 9)
	for _, p := range []uint{2, 11, 24, 53, 113} {
		c := ivCase{p: p, b: NewIntervals(p), g: unboundedGrid(int(p))}
		bc := newBigCase(p)
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			t.Parallel()
			runProp(t, seed, 800, prop.ForAll(func(pr bigPair) string {
				rx, ry := mustRat(pr.X), mustRat(pr.Y)
				x, y := c.b.SetRat(nil, rx), c.b.SetRat(nil, ry)
				tight := func(r *big.Rat) *Interval {
					return &Interval{Lo: new(big.Float).SetPrec(p).SetRat(c.g.round(r, towardNegInf)),
						Hi: new(big.Float).SetPrec(p).SetRat(c.g.round(r, towardPosInf))}
				}
				checks := []struct {
					op   string
					got  *Interval
					want *big.Rat
				}{
					{"add", c.b.Add(nil, x, y), ratSum(rx, ry)},
					{"sub", c.b.Sub(nil, x, y), ratDiff(rx, ry)},
					{"mul", c.b.Mul(nil, x, y), ratProd(rx, ry)},
					{"neg", c.b.Neg(nil, x), ratNeg(rx)},
					{"abs", c.b.Abs(nil, x), ratAbs(rx)},
					{"max", c.b.Max(nil, x, y), maxRat(rx, ry)},
					{"min", c.b.Min(nil, x, y), minRat(rx, ry)},
				}
				if ry.Sign() != 0 {
					q, err := c.b.Div(nil, x, y)
					if err != nil {
						return fmt.Sprintf("interval:%d div(%s, %s): %v", p, ratStr(rx), ratStr(ry), err)
					}
					checks = append(checks, struct {
						op   string
						got  *Interval
						want *big.Rat
					}{"div", q, ratQuo(rx, ry)})
				}
				for _, ch := range checks {
					if d := cmp.Diff(tight(ch.want), ch.got, endpointEqual); d != "" {
						return fmt.Sprintf("interval:%d %s(%s, %s) = %s, want %s", p, ch.op, ratStr(rx), ratStr(ry),
							c.b.Format(ch.got), c.b.Format(tight(ch.want)))
					}
				}
				if rx.Sign() < 0 {
					return ""
				}
				s, err := c.b.Sqrt(nil, x)
				if err != nil {
					return fmt.Sprintf("interval:%d sqrt(%s): %v", p, ratStr(rx), err)
				}
				lo, hi := mustRat(s.Lo), mustRat(s.Hi)
				// lo ≤ √x ≤ hi, and hi is lo (an exact root) or the
				// successor of lo.
				if lo.Sign() < 0 || ratProd(lo, lo).Cmp(rx) > 0 || ratProd(hi, hi).Cmp(rx) < 0 {
					return fmt.Sprintf("interval:%d sqrt(%s) = %s does not contain the root", p, ratStr(rx), c.b.Format(s))
				}
				if lo.Cmp(hi) != 0 {
					if next := c.g.round(ratSum(lo, ratScale(ratAbs(lo), -int(p)-2)), towardPosInf); next.Cmp(hi) != 0 {
						return fmt.Sprintf("interval:%d sqrt(%s) = %s is not tight (the successor of lo is %s)", p, ratStr(rx), c.b.Format(s), ratStr(next))
					}
					if ratProd(lo, lo).Cmp(rx) == 0 {
						return fmt.Sprintf("interval:%d sqrt(%s) = %s is not a point though the root is exact", p, ratStr(rx), c.b.Format(s))
					}
				}
				return ""
			}, genBigPair(bc)))
		})
	}
}

// ---------------------------------------------------------------------------
// The oracles agree with each other.

// TestArithOraclesAgree cross-checks the independent roundings the other
// tests rely on: arithGrid (from the definition) against big.Rat.Float64,
// big.Rat.Float32, big.Float.SetRat and the table oracle of format_test.go.
// A disagreement is a bug in the tests, not in the backends.
func TestArithOraclesAgree(t *testing.T) {
	seed := arithSeed(t, 10)
	for _, c := range ieeeCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runProp(t, seed, 2000, prop.ForAll(func(r *big.Rat) string {
				if got, want := c.g.roundIEEE(r), c.roundSigned(r); r.Sign() != 0 && !sameBits(got, want) {
					return fmt.Sprintf("%s: arithGrid rounds %s to %s, the operation oracle to %s", c.name, ratStr(r), fx(got), fx(want))
				}
				return ""
			}, genRatFor(c.g)))
		})
	}
	for _, p := range bigPrecs {
		g := unboundedGrid(int(p))
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			t.Parallel()
			runProp(t, seed, 1000, prop.ForAll(func(r *big.Rat) string {
				for _, m := range []struct {
					mode arithMode
					bm   big.RoundingMode
				}{{nearestEven, big.ToNearestEven}, {towardZero, big.ToZero}, {towardNegInf, big.ToNegativeInf}, {towardPosInf, big.ToPositiveInf}} {
					want := mustRat(new(big.Float).SetPrec(p).SetMode(m.bm).SetRat(r))
					if got := g.round(r, m.mode); got.Cmp(want) != 0 {
						return fmt.Sprintf("%d bits, %v: arithGrid rounds %s to %s, big.Float to %s", p, m.bm, ratStr(r), ratStr(got), ratStr(want))
					}
				}
				return ""
			}, genRatFor(g)))
		})
	}
}
