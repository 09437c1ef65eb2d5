package numeric

import (
	"math/big"
	"testing"

	"github.com/ALTree/bigfloat"
)

// benchOps runs add, mul, exp and erf on one backend. The operands are 1/3
// and 5/7 rounded to the backend, so that no operation is trivially exact.
func benchOps[T any](b *testing.B, be Backend[T]) {
	x := be.SetRat(be.New(), big.NewRat(1, 3))
	y := be.SetRat(be.New(), big.NewRat(5, 7))
	z := be.New()
	b.Run("add", func(b *testing.B) {
		for b.Loop() {
			z = be.Add(z, x, y)
		}
	})
	b.Run("mul", func(b *testing.B) {
		for b.Loop() {
			z = be.Mul(z, x, y)
		}
	})
	for _, op := range []struct {
		name string
		f    func(z, x T) (T, error)
	}{{"exp", be.Exp}, {"erf", be.Erf}} {
		b.Run(op.name, func(b *testing.B) {
			if _, err := op.f(be.New(), x); err != nil {
				b.Skipf("%s: %v", op.name, err) // the exact backend has no exp
			}
			for b.Loop() {
				z, _ = op.f(z, x)
			}
		})
	}
}

// BenchmarkBackends: go test -bench Backends ./numeric/
func BenchmarkBackends(b *testing.B) {
	b.Run("exact", func(b *testing.B) { benchOps(b, Backend[*big.Rat](NewExact())) })
	for _, p := range []uint{24, 53, 113, 1000} {
		b.Run("bigfloat-"+Precision{Kind: KindBigFloat, Bits: p}.String(), func(b *testing.B) {
			benchOps(b, Backend[*big.Float](NewBigFloat(p)))
		})
	}
	b.Run("fp64", func(b *testing.B) { benchOps(b, Backend[float64](NewFloat64())) })
	b.Run("fp32", func(b *testing.B) { benchOps(b, Backend[float32](NewFloat32())) })
	for _, f := range []*Format{Binary16, BFloat16, FP8E4M3, FP8E5M2} {
		b.Run(f.Name, func(b *testing.B) { benchOps(b, Backend[float64](NewEmulated(f))) })
	}
	for _, p := range []uint{53, 113} {
		b.Run("interval-"+Precision{Kind: KindBigFloat, Bits: p}.String(), func(b *testing.B) {
			benchOps(b, Backend[*Interval](NewIntervals(p)))
		})
	}
}

// BenchmarkALTreeExp measures the user's chosen library beside ours (see
// altree_test.go for why the engine does not call it).
func BenchmarkALTreeExp(b *testing.B) {
	for _, p := range []uint{53, 113, 900} {
		x := new(big.Float).SetPrec(p).SetRat(big.NewRat(1, 3))
		b.Run("altree-"+Precision{Kind: KindBigFloat, Bits: p}.String(), func(b *testing.B) {
			for b.Loop() {
				bigfloat.Exp(x)
			}
		})
		be := NewBigFloat(p)
		b.Run("ours-"+Precision{Kind: KindBigFloat, Bits: p}.String(), func(b *testing.B) {
			for b.Loop() {
				be.Exp(nil, x)
			}
		})
	}
}

// BenchmarkOps times each operation through the backend, as the engine
// calls it (OpBench), beside the bare host arithmetic it rounds from
// (BareOpBench): go test -run '^$' -bench Ops -benchmem ./numeric/
func BenchmarkOps(b *testing.B) {
	var precs []Precision
	for _, name := range []string{"fp64", "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "24", "53", "113"} {
		precs = append(precs, MustParsePrecision(name))
	}
	for _, p := range precs {
		for _, op := range OpBenchOps {
			for _, side := range []struct {
				name string
				mk   func(Precision, string) (func(int), error)
			}{{"backend", OpBench}, {"bare", BareOpBench}} {
				f, err := side.mk(p, op)
				if err != nil {
					b.Fatalf("%v %s %s: %v", p, op, side.name, err)
				}
				b.Run(p.String()+"/"+op+"/"+side.name, func(b *testing.B) {
					b.ReportAllocs()
					f(b.N)
				})
			}
		}
	}
}

// BenchmarkExact times the exact backend's operations on operands of the
// machine-word path (small integers, fractions, integers about 2^40 whose
// products need 128-bit checks) and past it (2^70), and a dot product of
// 8 terms as a chain of Mul and Add (the generic path) and as one
// ExactDot: go test -run '^$' -bench Exact -benchmem ./numeric/
func BenchmarkExact(b *testing.B) {
	e := NewExact()
	p70 := new(big.Rat).SetFrac(new(big.Int).Lsh(big.NewInt(3), 70), big.NewInt(1))
	operands := []struct {
		name string
		x, y *big.Rat
	}{
		{"int", big.NewRat(1234, 1), big.NewRat(-56789, 1)},
		{"frac", big.NewRat(-3, 7), big.NewRat(5, 12)},
		{"int40", big.NewRat(1<<40+3, 1), big.NewRat(-(1<<40 + 5), 1)},
		{"big", p70, big.NewRat(5, 1)},
	}
	for _, o := range operands {
		z := new(big.Rat)
		for _, op := range []struct {
			name string
			f    func()
		}{
			{"add", func() { z = e.Add(z, o.x, o.y) }},
			{"mul", func() { z = e.Mul(z, o.x, o.y) }},
			{"cmp", func() { e.Cmp(o.x, o.y) }},
		} {
			b.Run(o.name+"/"+op.name, func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					op.f()
				}
			})
		}
		x, y := make([]*big.Rat, 8), make([]*big.Rat, 8)
		for k := range x {
			x[k], y[k] = o.x, o.y
			if k%2 == 1 {
				x[k] = new(big.Rat).Neg(o.x)
			}
		}
		b.Run(o.name+"/dot8-chain", func(b *testing.B) {
			b.ReportAllocs()
			t := new(big.Rat)
			for range b.N {
				z = e.Mul(z, x[0], y[0])
				for k := 1; k < len(x); k++ {
					t = e.Mul(t, x[k], y[k])
					z = e.Add(z, z, t)
				}
			}
		})
		b.Run(o.name+"/dot8-fused", func(b *testing.B) {
			b.ReportAllocs()
			var s ExactSum
			for range b.N {
				z = ExactDot(z, x, y, &s)
			}
		})
	}
}
