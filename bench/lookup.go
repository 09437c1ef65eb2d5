package bench

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// Seed seeds every random input of the registry (the lookup's queries
// and bits, drawn as recipes/bench_test.go draws them).
const Seed = 1

// lookupPass builds the lookup for length n under average-hard attention
// at precision p and one seeded input of that length.
func lookupPass(p numeric.Precision, n int) (model.Runner, []int, *model.Model, error) {
	r, err := recipes.Get("lookup")
	if err != nil {
		return nil, nil, nil, err
	}
	con, err := r.Construct(model.AverageHardmax, n, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	runner, err := model.New(p, con.Model)
	if err != nil {
		return nil, nil, nil, err
	}
	cases, _ := con.Inputs(n, rand.New(rand.NewPCG(Seed, uint64(n))), 1)
	return runner, cases[0].Symbols, con.Model, nil
}

// lookupForward measures the forward pass per score term.
func lookupForward(precision string, full, quick int) func(Size) (Measurement, error) {
	return func(s Size) (Measurement, error) {
		n := s.Pick(full, quick)
		p, err := numeric.ParsePrecision(precision)
		if err != nil {
			return Measurement{}, err
		}
		runner, input, m, err := lookupPass(p, n)
		if err != nil {
			return Measurement{}, err
		}
		_, terms := m.ScoreTerms(n)
		var runErr error
		meas := PerUnit(s, float64(terms), func(b *testing.B) {
			for range b.N {
				if _, err := runner.Run(input, false); err != nil {
					runErr = err
					return
				}
			}
		})
		if runErr != nil {
			return Measurement{}, runErr
		}
		if meas.Allocs, err = allocsPerTerm(p, n); err != nil {
			return Measurement{}, err
		}
		meas.Note = fmt.Sprintf("n = %d, d_key = %d, %s", n, terms/(n*n), meas.Note)
		return meas, nil
	}
}

// allocsPerTerm counts the allocations of a forward pass that grow with
// the number of score terms: a pass allocates a·n + b·n² + c times (a per
// position: the residual stream's new values, keys, queries; b per score),
// so A(n) − 2·A(n/2) = b·n²/2 − c, divided by the terms that grow the same
// way, T(n) − 2·T(n/2), is b per term (c, a few allocations per pass, is
// negligible beside b·n²/2 unless b is 0, when the figure is slightly
// negative). Dividing A(n) by the terms
// instead would charge the per-position allocations to the scores, which
// at n = 64 are only 64 per position.
func allocsPerTerm(p numeric.Precision, n int) (float64, error) {
	var a, t [2]float64
	for k, m := range []int{n / 2, n} {
		runner, input, model, err := lookupPass(p, m)
		if err != nil {
			return 0, err
		}
		var runErr error
		a[k] = testing.AllocsPerRun(2, func() {
			if _, err := runner.Run(input, false); err != nil {
				runErr = err
			}
		})
		if runErr != nil {
			return 0, runErr
		}
		_, terms := model.ScoreTerms(m)
		t[k] = float64(terms)
	}
	return (a[1] - 2*a[0]) / (t[1] - 2*t[0]), nil
}

// lookupDKey is the key width of the lookup's head: W^Q = [q; 1].
const lookupDKey = 2

// lookupOperands fills the bare baselines' queries (q_i, 1) and keys
// (2j, −j²) with the values the lookup's head computes, so that the
// bare arithmetic sees numbers of the same size.
func lookupOperands(n int) (q, k []float64) {
	rng := rand.New(rand.NewPCG(Seed, uint64(n)))
	q, k = make([]float64, n*lookupDKey), make([]float64, n*lookupDKey)
	for i := range n {
		j := float64(i + 1)
		q[2*i], q[2*i+1] = float64(1+rng.IntN(n)), 1
		k[2*i], k[2*i+1] = 2*j, -j*j
	}
	return q, k
}

// sink keeps the bare loops' results alive.
var sink any

// bareFloat is the lookup's n²·d_key score terms as a multiply-add loop
// over slices of F (float64 or float32), per term.
func bareFloat[F float32 | float64](full, quick int) func(Size) (Measurement, error) {
	return func(s Size) (Measurement, error) {
		n := s.Pick(full, quick)
		q64, k64 := lookupOperands(n)
		q, k := make([]F, len(q64)), make([]F, len(k64))
		for i := range q64 {
			q[i], k[i] = F(q64[i]), F(k64[i])
		}
		m := PerUnit(s, float64(n*n*lookupDKey), func(b *testing.B) {
			for range b.N {
				var best F
				for i := range n {
					qi := q[i*lookupDKey : (i+1)*lookupDKey]
					for j := range n {
						kj := k[j*lookupDKey : (j+1)*lookupDKey]
						var sc F
						for t, x := range qi {
							sc += x * kj[t]
						}
						best = max(best, sc)
					}
				}
				sink = best
			}
		})
		m.Note = fmt.Sprintf("%T mul-add, n = %d, %s", F(0), n, m.Note)
		return m, nil
	}
}

// bareBigFloat is the lookup's score terms as big.Float Mul and Add at
// the given precision on preallocated values: what a bigfloat score loop
// costs with no allocation and no engine around it.
func bareBigFloat(bits uint, full, quick int) func(Size) (Measurement, error) {
	return func(s Size) (Measurement, error) {
		n := s.Pick(full, quick)
		q64, k64 := lookupOperands(n)
		q, k := bigFloats(q64, bits), bigFloats(k64, bits)
		acc, next, tmp, best := new(big.Float).SetPrec(bits), new(big.Float).SetPrec(bits), new(big.Float).SetPrec(bits), new(big.Float).SetPrec(bits)
		m := PerUnit(s, float64(n*n*lookupDKey), func(b *testing.B) {
			for range b.N {
				best.SetInt64(0)
				for i := range n {
					qi := q[i*lookupDKey : (i+1)*lookupDKey]
					for j := range n {
						kj := k[j*lookupDKey : (j+1)*lookupDKey]
						acc.SetInt64(0)
						for t, x := range qi {
							tmp.Mul(x, kj[t])
							// Into the other accumulator: big.Float
							// allocates when the destination is an
							// operand, which the backend avoids too.
							next.Add(acc, tmp)
							acc, next = next, acc
						}
						if acc.Cmp(best) > 0 {
							best.Set(acc)
						}
					}
				}
			}
		})
		m.Note = fmt.Sprintf("big.Float Mul+Add at %d bits, n = %d, %s", bits, n, m.Note)
		return m, nil
	}
}

func bigFloats(xs []float64, bits uint) []*big.Float {
	out := make([]*big.Float, len(xs))
	for i, x := range xs {
		out[i] = new(big.Float).SetPrec(bits).SetFloat64(x)
	}
	return out
}

const gib = 1 << 30

func init() {
	Register(Case{
		Name:     "lookup-fp64",
		Measures: "fp64 forward pass of the lookup (§Quadratic Maximization) at n = 4096, per score term",
		Unit:     "ns/term",
		Measure:  lookupForward("fp64", 4096, 256),
		Baseline: bareFloat[float64](4096, 256),
		Target:   All(AtMost(2, "ns"), NoAllocs(), PeakBelow(gib, "1 GiB")),
	})
	for _, f := range []struct {
		precision string
		bare      func(full, quick int) func(Size) (Measurement, error)
	}{{"fp32", bareFloat[float32]}, {"fp16", bareFloat[float64]}, {"bf16", bareFloat[float64]}, {"fp8-e4m3", bareFloat[float64]}, {"fp8-e5m2", bareFloat[float64]}} {
		Register(Case{
			Name:     "lookup-" + f.precision,
			Measures: f.precision + " forward pass of the lookup at n = 1024, per score term (emulated formats round float64 arithmetic)",
			Unit:     "ns/term",
			Measure:  lookupForward(f.precision, 1024, 128),
			Baseline: f.bare(1024, 128),
			// The target of 10 ns is per operation (the op-* cases); a
			// score term is two, a multiply and an add.
			Target: All(AtMost(20, "ns"), NoAllocs()),
		})
	}
	for _, bits := range []uint{24, 53, 113} {
		Register(Case{
			Name:     fmt.Sprintf("lookup-big%d", bits),
			Measures: fmt.Sprintf("%d-bit bigfloat forward pass of the lookup at n = 256, per score term", bits),
			Unit:     "ns/term",
			Measure:  lookupForward(fmt.Sprint(bits), 256, 64),
			Baseline: bareBigFloat(bits, 256, 64),
			Target:   All(RatioAtMost(3), NoAllocs()),
		})
	}
}
