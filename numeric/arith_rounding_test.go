package numeric

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

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
