package bigmath

import (
	"bufio"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"strings"
	"sync"
	"testing"
)

// refCase is one line of testdata/series.txt: lo ≤ fn(x) ≤ hi, from mpmath.
type refCase struct {
	fn        string
	x, lo, hi *big.Float
}

func parseHex(t *testing.T, s string) *big.Float {
	t.Helper()
	f, _, err := big.ParseFloat(s, 0, 1000, big.ToNearestEven)
	if err != nil {
		t.Fatalf("bad number %q: %v", s, err)
	}
	return f
}

func loadSeries(t *testing.T) []refCase {
	t.Helper()
	file, err := os.Open("testdata/series.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var cases []refCase
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if f[0] == "const" {
			cases = append(cases, refCase{fn: f[1], lo: parseHex(t, f[2]), hi: parseHex(t, f[3])})
			continue
		}
		cases = append(cases, refCase{fn: f[0], x: parseHex(t, f[1]), lo: parseHex(t, f[2]), hi: parseHex(t, f[3])})
	}
	if len(cases) < 40 {
		t.Fatalf("only %d reference cases", len(cases))
	}
	return cases
}

// encloses reports whether iv contains [lo, hi] (hence the true value) and
// whether it is at most 2^(slack) ulps of w bits wide relative to |hi|.
func encloses(iv Interval, c refCase) bool {
	return iv.Lo.Cmp(c.lo) <= 0 && c.hi.Cmp(iv.Hi) <= 0
}

func tight(iv Interval, c refCase, w uint, ulps int) bool {
	width := new(big.Float).SetPrec(0).Sub(iv.Hi, iv.Lo)
	width.Abs(width)
	mag := new(big.Float).Abs(c.hi)
	if mag.Sign() == 0 {
		return width.Sign() == 0
	}
	// ulp of mag at w bits is 2^(exp(mag) − w).
	ulp := new(big.Float).SetMantExp(big.NewFloat(1), mag.MantExp(nil)-int(w))
	return width.Cmp(new(big.Float).Mul(ulp, big.NewFloat(float64(ulps)))) <= 0
}

var funcs = map[string]Func{"exp": FExp, "log": FLog, "erf": FErf, "tanh": FTanh, "sin": FSin, "cos": FCos}

// TestEncloseContainsReference: each enclosure contains mpmath's value and
// is at most 4 ulps wide. The low precisions matter most: there the series
// stop after a few terms and the truncation bound carries the enclosure;
// had a bound stated in a comment been too small, the value would fall
// outside.
func TestEncloseContainsReference(t *testing.T) {
	for _, c := range loadSeries(t) {
		if c.x == nil {
			continue
		}
		for _, w := range []uint{2, 3, 4, 6, 8, 12, 16, 24, 53, 64, 113, 200} {
			iv, st := Enclose(funcs[c.fn], c.x, w)
			if st != Normal {
				t.Errorf("%s(%s) at %d bits: status %d", c.fn, c.x.Text('g', 10), w, st)
			}
			if !encloses(iv, c) {
				t.Errorf("%s(%s) at %d bits: [%s, %s] misses the reference [%s, %s]", c.fn,
					c.x.Text('g', 10), w, iv.Lo.Text('g', 20), iv.Hi.Text('g', 20), c.lo.Text('g', 20), c.hi.Text('g', 20))
			}
			if !tight(iv, c, w, 4) {
				t.Errorf("%s(%s) at %d bits: [%s, %s] wider than 4 ulps", c.fn, c.x.Text('g', 10), w,
					iv.Lo.Text('g', 20), iv.Hi.Text('g', 20))
			}
		}
	}
}

// TestSeriesDirect calls the series on the arguments they are summed for,
// bypassing argument reduction, at working precisions where each stops
// after few terms: their truncation bounds are then what keeps the true
// value inside.
func TestSeriesDirect(t *testing.T) {
	half := big.NewFloat(0.5)
	for _, c := range loadSeries(t) {
		if c.x == nil {
			continue
		}
		for _, w := range []uint{4, 8, 16, 32, 64} {
			var iv Interval
			switch {
			case c.fn == "exp" && new(big.Float).Abs(c.x).Cmp(half) <= 0:
				iv = expSeries(exactPoint(c.x), w)
			case c.fn == "erf" && c.x.Sign() > 0:
				iv = erfSeries(c.x, w)
			// sinSeries and cosSeries are summed for |r| < 0.786.
			case c.fn == "sin" && new(big.Float).Abs(c.x).Cmp(big.NewFloat(0.78)) <= 0:
				iv = sinSeries(exactPoint(c.x), w)
			case c.fn == "cos" && new(big.Float).Abs(c.x).Cmp(big.NewFloat(0.78)) <= 0:
				iv = cosSeries(exactPoint(c.x), w)
			default:
				continue
			}
			// The series' own rounding at w bits makes them a few ulps wide;
			// containment is the claim.
			if !encloses(iv, c) {
				t.Errorf("%s series at %s, %d bits: [%s, %s] misses the reference", c.fn, c.x.Text('g', 10), w,
					iv.Lo.Text('g', 20), iv.Hi.Text('g', 20))
			}
		}
	}
	// expm1Series: e^t − 1 for 0 < t ≤ 1, checked against exp's reference.
	for _, c := range loadSeries(t) {
		if c.fn != "exp" || c.x.Sign() <= 0 || c.x.Cmp(big.NewFloat(1)) > 0 {
			continue
		}
		one := big.NewFloat(1)
		ref := refCase{lo: new(big.Float).SetPrec(400).Sub(c.lo, one), hi: new(big.Float).SetPrec(400).Sub(c.hi, one)}
		for _, w := range []uint{4, 8, 16, 32, 64} {
			if iv := expm1Series(c.x, w); !encloses(iv, ref) {
				t.Errorf("expm1 series at %s, %d bits misses the reference", c.x.Text('g', 10), w)
			}
		}
	}
}

// TestConstants checks π and log 2 (whose fixed-point sums carry the error
// bound 2K + 2 of arctanInv) at many precisions, and that concurrent use of
// their caches is safe (go test -race).
func TestConstants(t *testing.T) {
	refs := map[string]refCase{}
	for _, c := range loadSeries(t) {
		if c.x == nil {
			refs[c.fn] = c
		}
	}
	var wg sync.WaitGroup
	for _, w := range []uint{2, 5, 17, 53, 64, 113, 200, 250} {
		wg.Add(1)
		go func(w uint) {
			defer wg.Done()
			for name, f := range map[string]func(uint) Interval{"pi": PiInterval, "log2": Ln2Interval} {
				iv := f(w)
				if !encloses(iv, refs[name]) || !tight(iv, refs[name], w, 2) {
					t.Errorf("%s at %d bits: [%s, %s]", name, w, iv.Lo.Text('g', 30), iv.Hi.Text('g', 30))
				}
			}
		}(w)
	}
	wg.Wait()
}

// TestSqrtDirected: Sqrt is correctly rounded in every mode, which
// big.Float.Sqrt is not in directed modes. The check is exact: r is the
// rounding of √x down iff r² ≤ x < (r + ulp)².
func TestSqrtDirected(t *testing.T) {
	modes := []big.RoundingMode{big.ToNegativeInf, big.ToPositiveInf, big.ToZero, big.AwayFromZero, big.ToNearestEven}
	for _, prec := range []uint{2, 3, 8, 24, 53, 100} {
		for _, xs := range []string{"2", "3", "4", "0.25", "9", "1e-300", "1e300", "0x1p-1000", "12345.678", "0x3p-1075"} {
			x, _, _ := big.ParseFloat(xs, 0, 200, big.ToNearestEven)
			for _, mode := range modes {
				r := Sqrt(x, prec, mode)
				if err := checkSqrt(x, r, prec, mode); err != nil {
					t.Errorf("Sqrt(%s) at %d bits, %v: %v", xs, prec, mode, err)
				}
			}
		}
	}
}

// checkSqrt verifies by exact rational squaring that r is √x rounded at
// prec bits in mode: r and its neighbour on the side of √x bracket the root.
func checkSqrt(x, r *big.Float, prec uint, mode big.RoundingMode) error {
	rat := func(v *big.Float) *big.Rat { q, _ := v.Rat(nil); return q }
	xr, rr := rat(x), rat(r)
	sq := func(q *big.Rat) *big.Rat { return new(big.Rat).Mul(q, q) }
	c := sq(rr).Cmp(xr)
	if c == 0 {
		return nil // exact root
	}
	below := c < 0
	ulp := rat(new(big.Float).SetMantExp(big.NewFloat(1), r.MantExp(nil)-int(prec)))
	other := new(big.Rat).Add(rr, ulp)
	if !below {
		// Going down from a power of two, the spacing halves.
		if rr.Cmp(rat(new(big.Float).SetMantExp(big.NewFloat(0.5), r.MantExp(nil)))) == 0 {
			ulp.Quo(ulp, big.NewRat(2, 1))
		}
		other = new(big.Rat).Sub(rr, ulp)
	}
	if (sq(other).Cmp(xr) < 0) == below {
		return fmt.Errorf("r = %s is not adjacent to the root", r.Text('g', 20))
	}
	switch mode {
	case big.ToNegativeInf, big.ToZero:
		if !below {
			return fmt.Errorf("r = %s is above the root", r.Text('g', 20))
		}
	case big.ToPositiveInf, big.AwayFromZero:
		if below {
			return fmt.Errorf("r = %s is below the root", r.Text('g', 20))
		}
	case big.ToNearestEven, big.ToNearestAway:
		// r is right iff the root lies on r's side of the midpoint m; √x
		// never equals m, whose square has more bits than x, so the two
		// modes agree.
		m := new(big.Rat).Add(rr, other)
		m.Quo(m, big.NewRat(2, 1))
		if (sq(m).Cmp(xr) > 0) != below {
			return fmt.Errorf("r = %s is not the nearest", r.Text('g', 20))
		}
	}
	return nil
}

// TestExpRange: arguments far beyond the format never hang (ALTree's Exp
// does on Exp(1e8) at 53 bits) and report overflow and underflow.
func TestExpRange(t *testing.T) {
	tests := []struct {
		x    string
		want Status
	}{
		{"1e8", Normal}, {"-1e8", Normal}, {"1.5e9", Overflow}, {"-1.5e9", Underflow},
		{"1e300", Overflow}, {"-1e300", Underflow}, {"0x1p-100000", Normal},
	}
	for _, tc := range tests {
		x, _, _ := big.ParseFloat(tc.x, 0, 64, big.ToNearestEven)
		iv, st := Exp(x, 53)
		if st != tc.want {
			t.Errorf("Exp(%s): status %d, want %d", tc.x, st, tc.want)
		}
		if iv.Lo.Cmp(iv.Hi) > 0 {
			t.Errorf("Exp(%s): empty enclosure", tc.x)
		}
	}
}

// TestFixDirected: big.Float returns ±Inf and ±0 on exponent overflow and
// underflow whatever the rounding mode; the directed operations must not.
func TestFixDirected(t *testing.T) {
	huge := new(big.Float).SetMantExp(big.NewFloat(1), big.MaxExp-1)
	tiny := new(big.Float).SetMantExp(big.NewFloat(0.5), big.MinExp)
	if r := Mul(huge, big.NewFloat(4), 53, Down); r.IsInf() {
		t.Errorf("rounding an overflow down gave %v, want the largest float", r)
	}
	if r := Mul(huge, big.NewFloat(4), 53, Up); !r.IsInf() {
		t.Errorf("rounding an overflow up gave %v, want +Inf", r)
	}
	if r := Mul(tiny, tiny, 53, Up); r.Sign() <= 0 {
		t.Errorf("rounding an underflow up gave %v, want the smallest positive float", r)
	}
	if r := Mul(tiny, tiny, 53, Down); r.Sign() != 0 {
		t.Errorf("rounding an underflow down gave %v, want 0", r)
	}
}

// TestExtremes: MaxFloat has all prec significand bits set at the top
// exponent, SmallestFloat is 2^(MinExp−1), and both carry precision prec.
func TestExtremes(t *testing.T) {
	for _, prec := range []uint{2, 24, 53, 54, 200} {
		m := MaxFloat(prec)
		if m.IsInf() || m.MinPrec() != prec || m.MantExp(nil) != big.MaxExp || m.Prec() != prec {
			t.Errorf("MaxFloat(%d) = %s (min prec %d, exp %d, prec %d)", prec, m.Text('p', 0), m.MinPrec(), m.MantExp(nil), m.Prec())
		}
		s := SmallestFloat(prec)
		if s.Sign() <= 0 || s.MinPrec() != 1 || s.MantExp(nil) != big.MinExp || s.Prec() != prec {
			t.Errorf("SmallestFloat(%d) = %s", prec, s.Text('p', 0))
		}
		// MulPow2 rounds to prec bits in its direction.
		x := new(big.Float).SetPrec(300).SetRat(big.NewRat(1, 3))
		lo, hi := MulPow2(x, 3, prec, Down), MulPow2(x, 3, prec, Up)
		if lo.Prec() != prec || hi.Prec() != prec || lo.Cmp(hi) >= 0 {
			t.Errorf("MulPow2(1/3, 3) at %d bits: [%s, %s] precisions %d, %d", prec, lo.Text('g', 30), hi.Text('g', 30), lo.Prec(), hi.Prec())
		}
	}
}

// TestIsqrt: SqrtTo's integer square root against big.Int.Sqrt on the
// integers where a start or a stop could go wrong: perfect squares and
// their neighbours, powers of two and their neighbours (odd and even bit
// lengths, across the 106 bits read as a float64), and seeded random
// integers of 1 to 2,000 bits.
func TestIsqrt(t *testing.T) {
	var ms []*big.Int
	one := big.NewInt(1)
	for bits := 1; bits <= 600; bits++ {
		p := new(big.Int).Lsh(one, uint(bits))
		root := new(big.Int).Lsh(one, uint(bits/2))
		root.Add(root, big.NewInt(int64(bits)))
		sq := new(big.Int).Mul(root, root)
		for _, base := range []*big.Int{p, sq} {
			for d := int64(-2); d <= 2; d++ {
				if m := new(big.Int).Add(base, big.NewInt(d)); m.Sign() > 0 {
					ms = append(ms, m)
				}
			}
		}
	}
	rng := rand.New(rand.NewSource(7))
	for range 3000 {
		m := new(big.Int).Rand(rng, new(big.Int).Lsh(one, uint(1+rng.Intn(2000))))
		if m.Sign() > 0 {
			ms = append(ms, m)
		}
	}
	s := new(sqrtScratch)
	for _, m := range ms {
		want := new(big.Int).Sqrt(m)
		if got := s.isqrt(new(big.Int).Set(m)); got.Cmp(want) != 0 {
			t.Fatalf("isqrt(%s) = %s, want %s", m, got, want)
		}
	}
	t.Logf("%d integers", len(ms))
}

// TestSqrtToShared: SqrtTo from several goroutines at once (its scratch
// integers are pooled), into a destination that is its operand too and
// holds another precision and mode, for operands of 1 to 300 bits and
// results of 2 to 300 bits in every rounding mode; each root is checked
// exactly.
func TestSqrtToShared(t *testing.T) {
	modes := []big.RoundingMode{big.ToNearestEven, big.ToNearestAway, big.ToZero, big.AwayFromZero, big.ToNegativeInf, big.ToPositiveInf}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			one := big.NewInt(1)
			for range 400 {
				prec, mode := uint(2+rng.Intn(299)), modes[rng.Intn(len(modes))]
				m := new(big.Int).Rand(rng, new(big.Int).Lsh(one, uint(1+rng.Intn(300))))
				m.Add(m, one)
				x := new(big.Float).SetPrec(uint(m.BitLen())).SetInt(m) // exact
				x.SetMantExp(x, rng.Intn(2000)-1000)
				want := Sqrt(x, prec, mode)
				if err := checkSqrt(x, want, prec, mode); err != nil {
					t.Errorf("Sqrt(%s) at %d bits, %v: %v", x.Text('p', 0), prec, mode, err)
					return
				}
				z := new(big.Float).Copy(x).SetMode(modes[rng.Intn(len(modes))])
				if got := SqrtTo(z, z, prec, mode); got != z || got.Cmp(want) != 0 || got.Prec() != prec || got.Mode() != mode {
					t.Errorf("SqrtTo(x, x) of %s at %d bits, %v: %s (precision %d, %v), want %s", x.Text('p', 0), prec, mode,
						got.Text('p', 0), got.Prec(), got.Mode(), want.Text('p', 0))
					return
				}
			}
		}()
	}
	wg.Wait()
}
