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
	"fmt"
	"hash/fnv"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
)

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
