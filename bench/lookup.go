package bench

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// Seed seeds every random input of the registry (the lookup's queries
// and bits, drawn as recipes/bench_test.go draws them).
const Seed = 1

// lookupPass builds the lookup for length n under average-hard attention
// at precision p and one seeded input of that length.
func lookupPass(p numeric.Precision, n int) (eval.Runner, []int, *model.Model, error) {
	r, err := recipes.Get("lookup")
	if err != nil {
		return nil, nil, nil, err
	}
	con, err := r.Construct(model.AverageHardmax, n, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	runner, err := eval.New(p, con.Model)
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

// lookupAttention is the lookup's attention sublayer at length n in the
// machine format F (backend b) on one seeded input's residual stream:
// attend computes the head's output at every position.
func lookupAttention[F float32 | float64](b numeric.Backend[F], n int) (attend func() error, err error) {
	r, err := recipes.Get("lookup")
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(model.AverageHardmax, n, nil)
	if err != nil {
		return nil, err
	}
	inst, err := eval.Instantiate(b, con.Model)
	if err != nil {
		return nil, err
	}
	if inst.Steps().Attention(0) == nil {
		return nil, fmt.Errorf("the lookup's first layer has no attention")
	}
	cases, _ := con.Inputs(n, rand.New(rand.NewPCG(Seed, uint64(n))), 1)
	x := make([][]F, n)
	for i, s := range cases[0].Symbols {
		h, err := inst.Steps().Embed(s, i+1, n)
		if err != nil {
			return nil, err
		}
		if x[i], err = inst.Steps().SublayerInput(0, true, h); err != nil {
			return nil, err
		}
	}
	return func() error {
		_, err := inst.Steps().Attend(0, x)
		return err
	}, nil
}

// attentionForward measures the lookup's attention sublayer alone per
// score term: the head's queries, keys, values, scores, maximum, ties and
// weighted sums, without the embedding, the feed-forward layer and the
// outputs' conversion that a whole pass adds per position.
func attentionForward[F float32 | float64](b numeric.Backend[F], full, quick int) func(Size) (Measurement, error) {
	return func(s Size) (Measurement, error) {
		n := s.Pick(full, quick)
		attend, err := lookupAttention(b, n)
		if err != nil {
			return Measurement{}, err
		}
		var runErr error
		meas := PerUnit(s, float64(n*n*lookupDKey), func(b *testing.B) {
			for range b.N {
				if err := attend(); err != nil {
					runErr = err
					return
				}
			}
		})
		if runErr != nil {
			return Measurement{}, runErr
		}
		// Per term, the allocations that grow with n² (as allocsPerTerm).
		var a [2]float64
		for k, m := range []int{n / 2, n} {
			att, err := lookupAttention(b, m)
			if err != nil {
				return Measurement{}, err
			}
			a[k] = testing.AllocsPerRun(2, func() { runErr = att() })
		}
		if runErr != nil {
			return Measurement{}, runErr
		}
		meas.Allocs = (a[1] - 2*a[0]) / float64(lookupDKey*(n*n-2*(n/2)*(n/2)))
		meas.Note = fmt.Sprintf("n = %d, d_key = %d, %s", n, lookupDKey, meas.Note)
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

// lookupOperands fills the bare baselines' queries (q_i, 1), keys
// (2j, −j²) and values v_j ∈ {0, 1} with the values the lookup's head
// computes, so that the bare arithmetic sees numbers of the same size
// and the same single maximum per query.
func lookupOperands(n int) (q, k, v []float64) {
	rng := rand.New(rand.NewPCG(Seed, uint64(n)))
	q, k, v = make([]float64, n*lookupDKey), make([]float64, n*lookupDKey), make([]float64, n)
	for i := range n {
		j := float64(i + 1)
		q[2*i], q[2*i+1] = float64(1+rng.IntN(n)), 1
		k[2*i], k[2*i+1] = 2*j, -j*j
		v[i] = float64(rng.IntN(2))
	}
	return q, k, v
}

// sink keeps the bare loops' results alive.
var sink any

// FusedHardmax is the tight loop the engine's machine-float attention is
// measured against: for each of the n queries (d_key = 2, packed in q),
// one pass over the n keys (packed in k) that computes each score q·k,
// keeps the maximum and counts its ties while summing their values v,
// then the mean of the tied values into out[i]. It is what one would
// write by hand for one average-hard head of the lookup: no mask, no
// NaN, no non-finite value, no per-query allocation.
func FusedHardmax[F float32 | float64](q, k, v, out []F) {
	n := len(v)
	k = k[:2*n]
	for i := range out {
		q0, q1 := q[2*i], q[2*i+1]
		best := F(F(q0*k[0]) + F(q1*k[1]))
		count, sum := 1, v[0]
		for j := 1; j < n; j++ {
			s := F(F(q0*k[2*j]) + F(q1*k[2*j+1]))
			if s > best {
				best, count, sum = s, 1, v[j]
			} else if s == best {
				count++
				sum += v[j]
			}
		}
		out[i] = sum / F(count)
	}
}

// bareFloat is FusedHardmax on the lookup's n²·d_key score terms in F
// (float64 or float32), per term.
func bareFloat[F float32 | float64](full, quick int) func(Size) (Measurement, error) {
	return func(s Size) (Measurement, error) {
		n := s.Pick(full, quick)
		q, k, v, out := fusedOperands[F](n)
		m := PerUnit(s, float64(n*n*lookupDKey), func(b *testing.B) {
			for range b.N {
				FusedHardmax(q, k, v, out)
			}
			sink = out[0]
		})
		m.Note = fmt.Sprintf("fused %T score, max, ties, mean, n = %d, %s", F(0), n, m.Note)
		return m, nil
	}
}

// fusedOperands are lookupOperands in F, and the outputs.
func fusedOperands[F float32 | float64](n int) (q, k, v, out []F) {
	q64, k64, v64 := lookupOperands(n)
	q, k, v = make([]F, len(q64)), make([]F, len(k64)), make([]F, len(v64))
	for i := range q64 {
		q[i], k[i] = F(q64[i]), F(k64[i])
	}
	for i := range v64 {
		v[i] = F(v64[i])
	}
	return q, k, v, make([]F, n)
}

// bareBigFloat is the lookup's score terms as big.Float Mul and Add at
// the given precision on preallocated values: what a bigfloat score loop
// costs with no allocation and no engine around it.
func bareBigFloat(bits uint, full, quick int) func(Size) (Measurement, error) {
	return func(s Size) (Measurement, error) {
		n := s.Pick(full, quick)
		q64, k64, _ := lookupOperands(n)
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
	for _, f := range []struct {
		precision string
		measure   func(full, quick int) func(Size) (Measurement, error)
		bare      func(full, quick int) func(Size) (Measurement, error)
	}{
		{"fp64", func(full, quick int) func(Size) (Measurement, error) {
			return attentionForward(numeric.NewFloat64(), full, quick)
		}, bareFloat[float64]},
		{"fp32", func(full, quick int) func(Size) (Measurement, error) {
			return attentionForward(numeric.NewFloat32(), full, quick)
		}, bareFloat[float32]},
	} {
		Register(Case{
			Name:     "attention-" + f.precision,
			Measures: f.precision + " attention sublayer of the lookup at n = 4096 alone (its head: queries, keys, values, scores, maximum, ties, mean), per score term",
			Unit:     "ns/term",
			Measure:  f.measure(4096, 256),
			Baseline: f.bare(4096, 256),
			Target:   All(RatioAtMost(1.5), NoAllocs()),
		})
	}
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
