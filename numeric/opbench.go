package numeric

import (
	"fmt"
	"math"
	"math/big"
)

// OpBenchOps are the operations that OpBench and BareOpBench measure:
// muladd is z = x × y followed by acc = acc + z, one multiply-add of a dot
// product.
var OpBenchOps = []string{"add", "mul", "div", "sqrt", "muladd"}

// opBenchVals are the preset operands: eight pairs, read in turn, so that
// no result is a constant the compiler could fold and none is trivially
// exact. Every value is positive (for sqrt) and near 1, so that neither the
// results nor the accumulator of muladd reach the subnormals, where native
// float64 arithmetic slows down, or overflow. The y values alternate in
// sign in muladd (see opBenchSigned), which keeps the accumulator bounded.
var opBenchVals = [8][2]*big.Rat{
	{big.NewRat(1, 3), big.NewRat(5, 7)},
	{big.NewRat(7, 5), big.NewRat(2, 3)},
	{big.NewRat(9, 11), big.NewRat(13, 10)},
	{big.NewRat(3, 2), big.NewRat(11, 13)},
	{big.NewRat(5, 9), big.NewRat(17, 12)},
	{big.NewRat(12, 7), big.NewRat(3, 5)},
	{big.NewRat(4, 3), big.NewRat(7, 9)},
	{big.NewRat(6, 13), big.NewRat(9, 7)},
}

// opBenchSigned returns the y operand of pair i for muladd: alternately
// +y and −y.
func opBenchSigned(r *big.Rat, i int) *big.Rat {
	if i%2 == 1 {
		return new(big.Rat).Neg(r)
	}
	return r
}

// OpBench returns a function that performs n operations op (one of
// OpBenchOps) through the backend of p, called as the engine calls it:
// through the generic interface Backend[T], with results in reused
// destinations. The operands are eight preset pairs of values of the
// format, read in turn. Time it with testing.Benchmark:
//
//	f, err := numeric.OpBench(p, "mul")
//	r := testing.Benchmark(func(b *testing.B) { b.ReportAllocs(); f(b.N) })
//
// It fails for an unknown op and for an op the backend refuses on these
// operands (sqrt in Exact, whose roots here are irrational).
func OpBench(p Precision, op string) (func(n int), error) {
	if !knownBenchOp(op) {
		return nil, fmt.Errorf("numeric: OpBench: unknown operation %q (want one of %v)", op, OpBenchOps)
	}
	v := &opBenchVisitor{op: op}
	if err := Visit(p, v); err != nil {
		return nil, err
	}
	return v.f, nil
}

func knownBenchOp(op string) bool {
	for _, o := range OpBenchOps {
		if o == op {
			return true
		}
	}
	return false
}

type opBenchVisitor struct {
	op string
	f  func(n int)
}

func (v *opBenchVisitor) Rat(b Backend[*big.Rat]) (err error) {
	v.f, err = opBenchLoop(b, v.op)
	return err
}
func (v *opBenchVisitor) BigFloat(b Backend[*big.Float]) (err error) {
	v.f, err = opBenchLoop(b, v.op)
	return err
}
func (v *opBenchVisitor) Float64(b Backend[float64]) (err error) {
	v.f, err = opBenchLoop(b, v.op)
	return err
}
func (v *opBenchVisitor) Float32(b Backend[float32]) (err error) {
	v.f, err = opBenchLoop(b, v.op)
	return err
}
func (v *opBenchVisitor) Interval(b Backend[*Interval]) (err error) {
	v.f, err = opBenchLoop(b, v.op)
	return err
}

// opBenchOperands returns the preset operands in b's format.
func opBenchOperands[T any](b Backend[T], op string) (xs, ys [8]T) {
	for i, pr := range opBenchVals {
		y := pr[1]
		if op == "muladd" {
			y = opBenchSigned(y, i)
		}
		xs[i] = b.SetRat(b.New(), pr[0])
		ys[i] = b.SetRat(b.New(), y)
	}
	return xs, ys
}

// opBenchLoop builds OpBench's function for one backend. Each loop keeps
// its destinations in locals and publishes them once at the end, so that
// the work cannot be discarded.
func opBenchLoop[T any](b Backend[T], op string) (func(n int), error) {
	xs, ys := opBenchOperands(b, op)
	z, acc := b.New(), b.New()
	// Try every pair once, so that a refusal is reported now and not
	// ignored in the loop.
	for i := range xs {
		var err error
		switch op {
		case "div":
			_, err = b.Div(b.New(), xs[i], ys[i])
		case "sqrt":
			_, err = b.Sqrt(b.New(), xs[i])
		}
		if err != nil {
			return nil, err
		}
	}
	switch op {
	case "add":
		return func(n int) {
			r := z
			for i := 0; i < n; i++ {
				r = b.Add(r, xs[i&7], ys[i&7])
			}
			z = r
		}, nil
	case "mul":
		return func(n int) {
			r := z
			for i := 0; i < n; i++ {
				r = b.Mul(r, xs[i&7], ys[i&7])
			}
			z = r
		}, nil
	case "div":
		return func(n int) {
			r := z
			for i := 0; i < n; i++ {
				r, _ = b.Div(r, xs[i&7], ys[i&7])
			}
			z = r
		}, nil
	case "sqrt":
		return func(n int) {
			r := z
			for i := 0; i < n; i++ {
				r, _ = b.Sqrt(r, xs[i&7])
			}
			z = r
		}, nil
	}
	// muladd
	return func(n int) {
		r, a := z, acc
		for i := 0; i < n; i++ {
			r = b.Mul(r, xs[i&7], ys[i&7])
			a = b.Add(a, a, r)
		}
		z, acc = r, a
	}, nil
}

// BareOpBench returns the baseline of OpBench(p, op): the same number of
// the same operations on the same operand values, in the host arithmetic
// that the backend rounds from, called directly: float64 operations for
// fp64 and the emulated formats (without the rounding to the format;
// float32's square root for those whose roots Emulated.Sqrt takes in
// float32), float32 operations for fp32, big.Float operations at p's precision for
// bigfloats (with destinations allocated once, and big.Float.Sqrt for
// sqrt), big.Rat operations for exact. Intervals have no bare baseline.
func BareOpBench(p Precision, op string) (func(n int), error) {
	if !knownBenchOp(op) {
		return nil, fmt.Errorf("numeric: BareOpBench: unknown operation %q (want one of %v)", op, OpBenchOps)
	}
	switch p.Kind {
	case KindFloat64:
		return bareFloatLoop(NewFloat64(), op), nil
	case KindEmulated:
		if op == "sqrt" && p.Format.sqrt32 {
			return bareSqrt32(NewEmulated(p.Format)), nil
		}
		return bareFloatLoop(NewEmulated(p.Format), op), nil
	case KindFloat32:
		return bareFloatLoop(NewFloat32(), op), nil
	case KindBigFloat:
		return bareBigLoop(NewBigFloat(p.Bits), op), nil
	case KindExact:
		if op == "sqrt" {
			return nil, fmt.Errorf("numeric: BareOpBench: exact has no sqrt")
		}
		return bareRatLoop(NewExact(), op), nil
	}
	return nil, fmt.Errorf("numeric: BareOpBench: no bare baseline for %v", p)
}

// bareFloatLoop is the baseline of a float backend: b only supplies the
// operands (the values of its format), then plain Go arithmetic runs. The
// conversions to T round each result on its own, as the backends do.
func bareFloatLoop[T float32 | float64](b Backend[T], op string) func(n int) {
	xs, ys := opBenchOperands(b, op)
	var z, acc T
	switch op {
	case "add":
		return func(n int) {
			r := z
			for i := 0; i < n; i++ {
				r = T(xs[i&7] + ys[i&7])
			}
			z = r
		}
	case "mul":
		return func(n int) {
			r := z
			for i := 0; i < n; i++ {
				r = T(xs[i&7] * ys[i&7])
			}
			z = r
		}
	case "div":
		return func(n int) {
			r := z
			for i := 0; i < n; i++ {
				r = T(xs[i&7] / ys[i&7])
			}
			z = r
		}
	case "sqrt":
		return func(n int) {
			r := z
			for i := 0; i < n; i++ {
				r = T(math.Sqrt(float64(xs[i&7])))
			}
			z = r
		}
	}
	return func(n int) {
		r, a := z, acc
		for i := 0; i < n; i++ {
			r = T(xs[i&7] * ys[i&7])
			a = T(a + r)
		}
		z, acc = r, a
	}
}

// bareSqrt32 is the baseline of an emulated format's sqrt where it is
// float32's: the format's operands, as float32s.
func bareSqrt32(b Emulated) func(n int) {
	xs64, _ := opBenchOperands[float64](b, "sqrt")
	var xs [8]float32
	for i, x := range xs64 {
		xs[i] = float32(x)
	}
	var z float32
	return func(n int) {
		r := z
		for i := 0; i < n; i++ {
			r = float32(math.Sqrt(float64(xs[i&7])))
		}
		z = r
	}
}

// bareBigLoop is the baseline of BigFloat: big.Float methods on values at
// b's precision, the destinations allocated once.
func bareBigLoop(b BigFloat, op string) func(n int) {
	xs, ys := opBenchOperands[*big.Float](b, op)
	z, acc := b.New(), b.New()
	switch op {
	case "add":
		return func(n int) {
			for i := 0; i < n; i++ {
				z.Add(xs[i&7], ys[i&7])
			}
		}
	case "mul":
		return func(n int) {
			for i := 0; i < n; i++ {
				z.Mul(xs[i&7], ys[i&7])
			}
		}
	case "div":
		return func(n int) {
			for i := 0; i < n; i++ {
				z.Quo(xs[i&7], ys[i&7])
			}
		}
	case "sqrt":
		return func(n int) {
			for i := 0; i < n; i++ {
				z.Sqrt(xs[i&7])
			}
		}
	}
	next := b.New()
	return func(n int) {
		for i := 0; i < n; i++ {
			z.Mul(xs[i&7], ys[i&7])
			// Into the other accumulator: big.Float allocates when the
			// destination is an operand, which the backend avoids too.
			next.Add(acc, z)
			acc, next = next, acc
		}
	}
}

// bareRatLoop is the baseline of Exact: big.Rat methods, the destinations
// allocated once.
func bareRatLoop(b Exact, op string) func(n int) {
	xs, ys := opBenchOperands[*big.Rat](b, op)
	z, acc := new(big.Rat), new(big.Rat)
	switch op {
	case "add":
		return func(n int) {
			for i := 0; i < n; i++ {
				z.Add(xs[i&7], ys[i&7])
			}
		}
	case "mul":
		return func(n int) {
			for i := 0; i < n; i++ {
				z.Mul(xs[i&7], ys[i&7])
			}
		}
	case "div":
		return func(n int) {
			for i := 0; i < n; i++ {
				z.Quo(xs[i&7], ys[i&7])
			}
		}
	}
	return func(n int) {
		for i := 0; i < n; i++ {
			z.Mul(xs[i&7], ys[i&7])
			acc.Add(acc, z)
		}
	}
}
