package numeric

// Golden-value tests of exp, log, sqrt, erf and tanh in every backend.
//
// The expected values come from testdata/golden/*.txt, which
// testdata/gen_golden.py computes with mpmath, independently of this
// package: each line gives an argument exactly representable at a
// precision and the exact value of the function rounded once to that
// precision, to nearest with ties to even (with the IEEE formats'
// subnormals, overflow and special values). The lines of the bit-count
// precisions also give the true value rounded down and up to 64 more bits,
// which an interval enclosure must contain. See the script for how the
// values and the hard cases (true values within 2^-20 ulps of a midpoint
// between two neighbours at the bit-count precisions, down to 2^-1002 ulps
// for constructed ones) were obtained.
//
// Checked here:
//   - BigFloat at 24, 53, 113 and 1000 bits, Float64, Float32 and the
//     emulated fp16, bf16, fp8-e4m3 and fp8-e5m2: the result equals the
//     golden value exactly (as a rational through the backend's Rat, and
//     bit for bit for NaN, ±Inf and the sign of zero);
//   - Intervals at 24, 53, 113 and 1000 bits: the enclosure of f at the
//     point argument contains the true value and is at most
//     goldenMaxWidthUlps ulps wide (ulps of the correctly rounded result at
//     that precision);
//   - Exact: the functions return the value where it is rational and an
//     error wrapping ErrIrrational elsewhere.

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// goldenMaxWidthUlps bounds the width of an interval result, in ulps of the
// correctly rounded result at the interval's precision.
const goldenMaxWidthUlps = 4

// goldenValue is a number of a golden file: a special value (nan, inf,
// -inf, -0) or an exact rational.
type goldenValue struct {
	special string   // "", "nan", "inf", "-inf" or "-0"
	r       *big.Rat // when special == ""
}

func (v goldenValue) String() string {
	if v.special != "" {
		return v.special
	}
	return goldenHex(v.r)
}

// float64 returns v as a float64 and whether that is exact.
func (v goldenValue) float64() (float64, bool) {
	switch v.special {
	case "nan":
		return math.NaN(), true
	case "inf":
		return math.Inf(1), true
	case "-inf":
		return math.Inf(-1), true
	case "-0":
		return math.Copysign(0, -1), true
	}
	return v.r.Float64()
}

type goldenCase struct {
	pos    string // file:line
	prec   string // "24", "53", "113", "1000", "fp64", ...
	fn     string // exp, log, sqrt, erf, tanh
	arg    goldenValue
	want   goldenValue
	lo, hi *big.Rat // the true value rounded down and up at prec+64 bits (bit-count precs only)
	note   string
}

func (c goldenCase) String() string {
	s := fmt.Sprintf("%s %s(%s) at %s", c.pos, c.fn, c.arg, c.prec)
	if c.note != "" {
		s += " [" + c.note + "]"
	}
	return s
}

// goldenHex writes a rational with a power-of-two denominator as the
// golden files do, [-]0xMpE with M odd; other rationals as a/b.
func goldenHex(r *big.Rat) string {
	if r.Sign() == 0 {
		return "0"
	}
	d := r.Denom()
	if d.BitLen()-1 != int(d.TrailingZeroBits()) {
		return r.RatString()
	}
	n := new(big.Int).Abs(r.Num())
	e := -(d.BitLen() - 1)
	tz := n.TrailingZeroBits()
	n.Rsh(n, tz)
	e += int(tz)
	sign := ""
	if r.Sign() < 0 {
		sign = "-"
	}
	return fmt.Sprintf("%s0x%sp%d", sign, n.Text(16), e)
}

func parseGoldenValue(s string) (goldenValue, error) {
	switch s {
	case "nan", "inf", "-inf", "-0":
		return goldenValue{special: s}, nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return goldenValue{}, fmt.Errorf("bad number %q", s)
	}
	return goldenValue{r: r}, nil
}

var (
	goldenOnce  sync.Once
	goldenAll   []goldenCase
	goldenError error
)

// goldenCases returns every case of testdata/golden/*.txt, read once.
func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	goldenOnce.Do(func() { goldenAll, goldenError = readGolden() })
	if goldenError != nil {
		t.Fatal(goldenError)
	}
	if len(goldenAll) == 0 {
		t.Fatal("no golden cases in testdata/golden")
	}
	return goldenAll
}

func readGolden() ([]goldenCase, error) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.txt"))
	if err != nil {
		return nil, err
	}
	var out []goldenCase
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			note := ""
			if i := strings.Index(line, "#"); i >= 0 {
				line, note = line[:i], strings.TrimSpace(line[i+1:])
			}
			fields := strings.Fields(line)
			if len(fields) == 0 {
				continue
			}
			pos := fmt.Sprintf("%s:%d", filepath.Base(name), n)
			if len(fields) != 4 && len(fields) != 6 {
				f.Close()
				return nil, fmt.Errorf("%s: want 4 or 6 fields, got %d", pos, len(fields))
			}
			c := goldenCase{pos: pos, prec: fields[0], fn: fields[1], note: note}
			if c.arg, err = parseGoldenValue(fields[2]); err == nil {
				c.want, err = parseGoldenValue(fields[3])
			}
			if err == nil && len(fields) == 6 {
				var lo, hi goldenValue
				if lo, err = parseGoldenValue(fields[4]); err == nil {
					hi, err = parseGoldenValue(fields[5])
				}
				if err == nil && (lo.r == nil || hi.r == nil || lo.r.Cmp(hi.r) > 0) {
					err = errors.New("bad bounds")
				}
				if err == nil {
					c.lo, c.hi = lo.r, hi.r
				}
			}
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %v", pos, err)
			}
			out = append(out, c)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
	}
	return out, nil
}

// goldenApply calls the backend's function named fn.
func goldenApply[T any](b Backend[T], fn string, x T) (T, error) {
	z := b.New()
	switch fn {
	case "exp":
		return b.Exp(z, x)
	case "log":
		return b.Log(z, x)
	case "sqrt":
		return b.Sqrt(z, x)
	case "erf":
		return b.Erf(z, x)
	case "tanh":
		return b.Tanh(z, x)
	}
	panic("golden: unknown function " + fn)
}

// goldenGroups splits the cases by precision and function, in file order.
func goldenGroups(cases []goldenCase, keep func(goldenCase) bool) (keys []string, groups map[string][]goldenCase) {
	groups = map[string][]goldenCase{}
	for _, c := range cases {
		if !keep(c) {
			continue
		}
		k := c.prec + "/" + c.fn
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c)
	}
	return keys, groups
}

// goldenBits reports whether prec is a bit count (BigFloat, Intervals).
func goldenBits(prec string) (uint, bool) {
	n, err := strconv.ParseUint(prec, 10, 32)
	return uint(n), err == nil
}

// TestGoldenRounded checks the rounding backends: the result must be the
// golden correctly rounded value, exactly.
func TestGoldenRounded(t *testing.T) {
	t.Parallel()
	cases := goldenCases(t)
	keys, groups := goldenGroups(cases, func(goldenCase) bool { return true })
	seen := map[string]bool{}
	for _, k := range keys {
		group := groups[k]
		seen[group[0].prec] = true
		t.Run(k, func(t *testing.T) {
			t.Parallel()
			prec := group[0].prec
			if p, ok := goldenBits(prec); ok {
				checkGoldenBigFloat(t, NewBigFloat(p), group)
				return
			}
			switch prec {
			case "fp64":
				checkGoldenIEEE(t, Backend[float64](NewFloat64()), group,
					func(x float64) (float64, bool) { return x, true },
					func(x float64) float64 { return x })
			case "fp32":
				checkGoldenIEEE(t, Backend[float32](NewFloat32()), group,
					func(x float64) (float32, bool) {
						y := float32(x)
						return y, float64(y) == x || x != x
					},
					func(x float32) float64 { return float64(x) })
			default:
				f, ok := namedFormats[prec]
				if !ok {
					t.Fatalf("%s: unknown precision %q", group[0].pos, prec)
				}
				checkGoldenIEEE(t, Backend[float64](NewEmulated(f)), group,
					func(x float64) (float64, bool) { return x, f.Contains(x) },
					func(x float64) float64 { return x })
			}
		})
	}
	// Every precision the task promises is present in the files.
	for _, p := range []string{"24", "53", "113", "1000", "fp64", "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2"} {
		if !seen[p] {
			t.Errorf("no golden cases at precision %s", p)
		}
	}
}

func checkGoldenBigFloat(t *testing.T, b BigFloat, cases []goldenCase) {
	for _, c := range cases {
		if c.arg.r == nil || c.want.r == nil {
			t.Errorf("%v: special values have no BigFloat case", c)
			continue
		}
		x := b.SetRat(nil, c.arg.r)
		if r, _ := b.Rat(x); r.Cmp(c.arg.r) != 0 {
			t.Errorf("%v: argument not representable at %d bits (golden file wrong)", c, b.Prec())
			continue
		}
		y, err := goldenApply[*big.Float](b, c.fn, x)
		if err != nil {
			t.Errorf("%v: error %v, want %s", c, err, c.want)
			continue
		}
		got, err := b.Rat(y)
		if err != nil {
			t.Errorf("%v: got %s (%v), want %s", c, b.Format(y), err, c.want)
			continue
		}
		if got.Cmp(c.want.r) != 0 {
			t.Errorf("%v:\n\tgot  %s\n\twant %s", c, goldenHex(got), c.want)
		}
	}
}

func checkGoldenIEEE[T any](t *testing.T, b Backend[T], cases []goldenCase,
	from func(float64) (T, bool), to func(T) float64) {
	for _, c := range cases {
		xf, exact := c.arg.float64()
		x, ok := from(xf)
		if !exact || !ok {
			t.Errorf("%v: argument not representable (golden file wrong)", c)
			continue
		}
		y, err := goldenApply(b, c.fn, x)
		if err != nil {
			t.Errorf("%v: error %v, want %s", c, err, c.want)
			continue
		}
		if msg := goldenIEEEMismatch(b, y, to(y), c.want); msg != "" {
			t.Errorf("%v:\n\tgot  %s\n\twant %s", c, msg, c.want)
		}
	}
}

// goldenIEEEMismatch returns "" when y (yf as a float64) is want, else a
// description of y.
func goldenIEEEMismatch[T any](b Backend[T], y T, yf float64, want goldenValue) string {
	desc := func() string {
		if math.IsNaN(yf) || math.IsInf(yf, 0) || yf == 0 {
			return strconv.FormatFloat(yf, 'g', -1, 64)
		}
		r, _ := b.Rat(y)
		if r == nil {
			return b.Format(y)
		}
		return goldenHex(r) + " = " + b.Format(y)
	}
	switch want.special {
	case "nan":
		if math.IsNaN(yf) {
			return ""
		}
		return desc()
	case "inf", "-inf":
		if math.IsInf(yf, 1) == (want.special == "inf") && math.IsInf(yf, 0) {
			return ""
		}
		return desc()
	case "-0":
		if yf == 0 && math.Signbit(yf) {
			return ""
		}
		return desc()
	}
	if math.IsNaN(yf) || math.IsInf(yf, 0) {
		return desc()
	}
	r, err := b.Rat(y)
	if err != nil {
		return desc() + " (" + err.Error() + ")"
	}
	if r.Cmp(want.r) != 0 || (yf == 0 && math.Signbit(yf)) {
		return desc()
	}
	return ""
}

// TestGoldenIntervals checks that the interval enclosure of f at a point
// contains the true value (golden [LO, HI], the true value rounded down and
// up at 64 more bits) and is at most goldenMaxWidthUlps ulps wide.
func TestGoldenIntervals(t *testing.T) {
	t.Parallel()
	cases := goldenCases(t)
	keys, groups := goldenGroups(cases, func(c goldenCase) bool {
		_, ok := goldenBits(c.prec)
		return ok && c.lo != nil
	})
	if len(keys) == 0 {
		t.Fatal("no interval cases")
	}
	for _, k := range keys {
		group := groups[k]
		t.Run(k, func(t *testing.T) {
			t.Parallel()
			p, _ := goldenBits(group[0].prec)
			b := NewIntervals(p)
			widest, at := 0.0, ""
			for _, c := range group {
				if w := checkGoldenInterval(t, b, c); w > widest {
					widest, at = w, c.pos
				}
			}
			t.Logf("widest enclosure %.3g ulps (%s)", widest, at)
		})
	}
}

// checkGoldenInterval returns the width of the enclosure in ulps.
func checkGoldenInterval(t *testing.T, b Intervals, c goldenCase) float64 {
	p := b.Prec()
	x := b.SetRat(nil, c.arg.r)
	if x.Lo.Cmp(x.Hi) != 0 {
		t.Errorf("%v: argument not representable at %d bits (golden file wrong)", c, p)
		return 0
	}
	y, err := goldenApply[*Interval](b, c.fn, x)
	if err != nil {
		t.Errorf("%v: interval:%d error %v", c, p, err)
		return 0
	}
	lo, hi, err := b.Bounds(y)
	if err != nil {
		t.Errorf("%v: interval:%d got %s: %v", c, p, b.Format(y), err)
		return 0
	}
	if lo.Cmp(c.lo) > 0 || hi.Cmp(c.hi) < 0 {
		t.Errorf("%v: interval:%d enclosure misses the true value:\n\tgot   [%s, %s]\n\ttrue in [%s, %s]",
			c, p, goldenHex(lo), goldenHex(hi), goldenHex(c.lo), goldenHex(c.hi))
		return 0
	}
	width := new(big.Rat).Sub(hi, lo)
	if c.want.r.Sign() == 0 {
		if width.Sign() != 0 {
			t.Errorf("%v: interval:%d got [%s, %s], want the point 0", c, p, goldenHex(lo), goldenHex(hi))
		}
		return 0
	}
	// ulp of the rounded result: 2^(e-p+1) where 2^e ≤ |want| < 2^(e+1).
	e := new(big.Float).SetRat(new(big.Rat).Abs(c.want.r)).MantExp(nil) - 1
	ulp := goldenPow2(e - int(p) + 1)
	w, _ := new(big.Rat).Quo(width, ulp).Float64()
	if limit := new(big.Rat).Mul(ulp, big.NewRat(goldenMaxWidthUlps, 1)); width.Cmp(limit) > 0 {
		t.Errorf("%v: interval:%d enclosure %.3g ulps wide (limit %d):\n\tgot [%s, %s]",
			c, p, w, goldenMaxWidthUlps, goldenHex(lo), goldenHex(hi))
	}
	return w
}

// goldenPow2 is 2^k as a rational.
func goldenPow2(k int) *big.Rat {
	one := big.NewInt(1)
	if k >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(one, uint(k)))
	}
	return new(big.Rat).SetFrac(one, new(big.Int).Lsh(one, uint(-k)))
}

// TestGoldenExact checks the exact backend on every argument of the
// bit-count golden cases: the golden file marks a rational value by LO = HI
// (then Exact must return it), and every other value is irrational (then
// Exact must fail with ErrIrrational). Explicit cases add non-dyadic
// arguments and the square roots of the task.
func TestGoldenExact(t *testing.T) {
	t.Parallel()
	b := NewExact()
	type exactCase struct {
		pos, fn string
		x       *big.Rat
		want    *big.Rat // nil: irrational
	}
	var cases []exactCase
	seen := map[string]bool{}
	for _, c := range goldenCases(t) {
		if c.lo == nil {
			continue
		}
		k := c.fn + " " + c.arg.r.String()
		if seen[k] {
			continue
		}
		seen[k] = true
		ec := exactCase{pos: c.pos, fn: c.fn, x: c.arg.r}
		if c.lo.Cmp(c.hi) == 0 {
			ec.want = c.lo
		}
		cases = append(cases, ec)
	}
	// Sorted for stable failure output.
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].fn < cases[j].fn })
	r := func(s string) *big.Rat {
		v, ok := new(big.Rat).SetString(s)
		if !ok {
			panic(s)
		}
		return v
	}
	for _, c := range []struct{ fn, x, want string }{
		{"sqrt", "9/4", "3/2"},
		{"sqrt", "4/9", "2/3"},
		{"sqrt", "0", "0"},
		{"sqrt", "1000000", "1000"},
		{"sqrt", "2", ""},
		{"sqrt", "1/3", ""},
		{"sqrt", "8/9", ""},
		{"sqrt", "9/8", ""},
		{"exp", "0", "1"},
		{"exp", "1/3", ""},
		{"exp", "-7", ""},
		{"log", "1", "0"},
		{"log", "10", ""},
		{"log", "1/3", ""},
		{"erf", "0", "0"},
		{"erf", "1/3", ""},
		{"erf", "-100", ""},
		{"tanh", "0", "0"},
		{"tanh", "-2/3", ""},
		{"tanh", "1000", ""},
	} {
		ec := exactCase{pos: "explicit", fn: c.fn, x: r(c.x)}
		if c.want != "" {
			ec.want = r(c.want)
		}
		cases = append(cases, ec)
	}
	for _, c := range cases {
		y, err := goldenApply[*big.Rat](b, c.fn, c.x)
		switch {
		case c.want == nil && !errors.Is(err, ErrIrrational):
			t.Errorf("%s: exact %s(%s) = %v, %v; want an error wrapping ErrIrrational",
				c.pos, c.fn, c.x.RatString(), y, err)
		case c.want == nil:
			var oe *OpError
			if !errors.As(err, &oe) || oe.Op != c.fn {
				t.Errorf("%s: exact %s(%s): error %v does not name the operation", c.pos, c.fn, c.x.RatString(), err)
			}
		case err != nil:
			t.Errorf("%s: exact %s(%s): error %v, want %s", c.pos, c.fn, c.x.RatString(), err, c.want.RatString())
		case y.Cmp(c.want) != 0:
			t.Errorf("%s: exact %s(%s) = %s, want %s", c.pos, c.fn, c.x.RatString(), y.RatString(), c.want.RatString())
		}
	}
	// The domain errors are not irrationality.
	for _, c := range []struct{ fn, x string }{{"sqrt", "-1"}, {"log", "0"}, {"log", "-1/2"}} {
		_, err := goldenApply[*big.Rat](b, c.fn, r(c.x))
		if !errors.Is(err, ErrDomain) {
			t.Errorf("exact %s(%s): error %v, want ErrDomain", c.fn, c.x, err)
		}
	}
}
