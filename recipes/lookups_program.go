package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The programs of the lookups in lookups.go: the tail they share with
// lookup (round the retrieved value, read out y and c), and the one-hot,
// almost orthogonal and layernorm-hash position encodings with their
// heads.

// lookupTail finishes a lookup whose head reads (query block, key block,
// v) with scores of gap gamma: under SMAT it applies the softmax
// simulation (τ = γ/log 8N) and sets the bound |c − v| ≤ 1/4, then adds
// y = GTZero_{1/2}(c − 1/4) and reads out (y, c).
func lookupTail(cfg Config, p *stream.Program, head *stream.Attn, gamma numeric.Expr) (*Construction, error) {
	softmax := head.Weighting == model.Softmax
	var simulated *model.Model
	if softmax {
		// The same lookup under average hardmax, the attention the softmax
		// head simulates: exact where log(8N) is not, and what the
		// analysis certifies the softmax run against (Construction.Simulated).
		hard := *head
		hard.Weighting = model.AverageHardmax
		var err error
		if simulated, err = p.Fork(p.Name+"/hard").Then(&hard, blocks.Round01("c", "y")).Readout("y", "c").Model(); err != nil {
			return nil, err
		}
		if head, err = blocks.SoftmaxSimulation(head, gamma, cfg.MaxN); err != nil {
			return nil, err
		}
	}
	p.Then(head, blocks.Round01("c", "y"))
	m, err := p.Readout("y", "c").Model()
	if err != nil {
		return nil, err
	}
	con, err := lookupConstruction(cfg, m, softmax)
	if err != nil {
		return nil, err
	}
	con.Simulated = simulated
	return con, nil
}

// lookupProjections returns W^Q = f[I 0 0], W^K = [0 I 0] (d×(2d+1)) and
// W^V = [0 0 1] (1×(2d+1)), with f the query factor.
func lookupProjections(d int, f numeric.Expr) (q, k, v model.Matrix) {
	q, k, v = model.Zeros(d, 2*d+1), model.Zeros(d, 2*d+1), model.Zeros(1, 2*d+1)
	for r := 0; r < d; r++ {
		q.Set(r, r, f)
		k.Set(r, d+r, numeric.LitInt(1))
	}
	v.Set(0, 2*d, numeric.LitInt(1))
	return q, k, v
}

func lookupConcat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// buildOneHot builds ohLookup for the weighting of cfg (hardmax-softmax
// runs it under SMAT).
func buildOneHot(cfg Config, name string) (*Construction, error) {
	w, maxN := cfg.Weighting, cfg.MaxN
	if maxN < 1 {
		return nil, fmt.Errorf("the maximum length N must be at least 1, got %d", maxN)
	}
	eq, ei := componentNames("eq", maxN), componentNames("ei", maxN)
	p := stream.New(name+"-"+WeightingAcronym(w), lookupConcat(eq, ei, []string{"v"})...).
		Symbols(lookupAlphabet(maxN), func(s int) stream.Values {
			return stream.Values{eq[s/2]: numeric.LitInt(1), "v": numeric.LitInt(int64(s % 2))}
		}).
		Positions("e_i (one-hot; 0 past N)", func(i, n int) stream.Values {
			if i > maxN {
				return nil
			}
			return stream.Values{ei[i-1]: numeric.LitInt(1)}
		}).
		Formula(stream.Pos(model.PosOneHot, ei...))
	q, k, v := lookupProjections(maxN, numeric.LitInt(1))
	head := &stream.Attn{Name: "oh-lookup", In: lookupConcat(eq, ei, []string{"v"}), Out: []string{"c"},
		Q: q, K: k, V: v, Weighting: w, Scale: model.NoScale}
	return lookupTail(cfg, p, head, numeric.LitInt(1))
}

// aoMaxTries is the number of seeds the almost orthogonal sampler tries.
const aoMaxTries = 1000

// aoMaxDim bounds m, so that a tiny ε or δ cannot ask for a model whose
// (2m+3)² attention matrices do not fit in memory.
const aoMaxDim = 1024

// aoDimension returns the paper's m = ⌈(12k/ε²) log(2N)⌉ with
// k = log(1/δ)/log N, that is ⌈12 log(1/δ) log(2N)/(ε² log N)⌉, for N ≥ 2
// (1 for N = 1), certified: the expression is enclosed in interval
// arithmetic at 128 bits (more if needed) and the ceiling taken only when
// both endpoints have the same one.
func aoDimension(maxN int, eps, delta *big.Rat) (int, error) {
	if maxN == 1 {
		return 1, nil
	}
	k := numeric.Quo(numeric.Log(numeric.Lit(new(big.Rat).Inv(delta))), numeric.Log(numeric.LitInt(int64(maxN))))
	return aoDimensionK(maxN, eps, k)
}

// aoDimensionK is m = ⌈(12k/ε²) log(2N)⌉ for a given k, certified as in
// aoDimension.
func aoDimensionK(maxN int, eps *big.Rat, k numeric.Expr) (int, error) {
	e2 := new(big.Rat).Mul(eps, eps)
	expr := numeric.Quo(numeric.Mul(numeric.Mul(numeric.LitInt(12), k), numeric.Log(numeric.LitInt(2*int64(maxN)))), numeric.Lit(e2))
	for bits := uint(128); bits <= 1024; bits *= 2 {
		b := numeric.NewIntervals(bits)
		iv, err := b.Eval(nil, expr)
		if err != nil {
			return 0, fmt.Errorf("m = %v: %w", expr, err)
		}
		lo, hi, err := b.Bounds(iv)
		if err != nil {
			return 0, fmt.Errorf("m = %v: %w", expr, err)
		}
		if cl, ch := aoCeil(lo), aoCeil(hi); cl.Cmp(ch) == 0 {
			if !cl.IsInt64() || cl.Int64() > aoMaxDim {
				return 0, fmt.Errorf("m = ⌈%v⌉ = %v exceeds %d: take a larger ε or δ", expr, cl, aoMaxDim)
			}
			return int(max(cl.Int64(), 1)), nil
		}
	}
	return 0, fmt.Errorf("m = ⌈%v⌉: the ceiling is undecided at 1024 bits", expr)
}

// aoCeil returns ⌈x⌉.
func aoCeil(x *big.Rat) *big.Int {
	q, r := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// aoFamily is a sampled almost orthogonal family, as sign vectors.
type aoFamily struct {
	Signs  [][]int8 // s_j = √m·x_j ∈ {±1}^m, j = 1 … N
	Seed   uint64   // the seed that gave it
	Tries  int      // how many seeds were tried (1 if the first passed)
	MaxDot int      // max_{i≠j} |s_i·s_j| (0 when N = 1), so max |x_i·x_j| = MaxDot/m
}

// aoSample draws N vectors of {±1}^m with a PCG seeded by seed: m·N fair
// signs, x_1 first.
func aoSample(maxN, m int, seed uint64) [][]int8 {
	rng := rand.New(rand.NewPCG(seed, 0x616f)) // "ao"
	signs := make([][]int8, maxN)
	for j := range signs {
		signs[j] = make([]int8, m)
		for k := range signs[j] {
			signs[j][k] = int8(2*rng.IntN(2) - 1)
		}
	}
	return signs
}

// aoCheck measures a family of sign vectors: max_{i≠j} |s_i·s_j|, and
// whether x_j = s_j/√m satisfies eq. near_ortho for ε: |x_i·x_j| ≤ ε
// (i ≠ j) and x_i·x_i ≥ 1 − ε, decided exactly.
func aoCheck(signs [][]int8, eps *big.Rat) (maxDot int, ok bool) {
	// x_i·x_i = s_i·s_i/m = 1 for sign vectors, so only the pairs i ≠ j
	// can fail: |s_i·s_j|/m ≤ ε ⇔ |s_i·s_j|·den(ε) ≤ num(ε)·m, in
	// integers. The first failing pair ends the check: most seeds fail,
	// and only an accepted family's maximum is reported.
	if len(signs) == 0 {
		return 0, true
	}
	m := int64(len(signs[0]))
	num, den := eps.Num().Int64(), eps.Denom().Int64()
	for i := range signs {
		for j := i + 1; j < len(signs); j++ {
			dot := 0
			for k := range signs[i] {
				dot += int(signs[i][k]) * int(signs[j][k])
			}
			dot = max(dot, -dot)
			if int64(dot)*den > num*m {
				return dot, false
			}
			maxDot = max(maxDot, dot)
		}
	}
	return maxDot, true
}

// sampleAO samples families with seeds seed, seed+1, … until one passes
// aoCheck (at most aoMaxTries).
func sampleAO(maxN, m int, eps *big.Rat, seed uint64) (*aoFamily, error) {
	for t := 0; t < aoMaxTries; t++ {
		signs := aoSample(maxN, m, seed+uint64(t))
		if maxDot, ok := aoCheck(signs, eps); ok {
			return &aoFamily{Signs: signs, Seed: seed + uint64(t), Tries: t + 1, MaxDot: maxDot}, nil
		}
	}
	return nil, fmt.Errorf("no almost orthogonal family (N = %d, m = %d, ε = %s) among the seeds %d to %d: take a smaller δ or a larger ε", maxN, m, eps.RatString(), seed, seed+aoMaxTries-1)
}

// aoParams reads the parameters of the almost orthogonal family (ε, δ,
// seed), computes m and samples the family for N = cfg.MaxN.
func aoParams(cfg Config) (fam *aoFamily, m int, eps *big.Rat, note string, err error) {
	maxN := cfg.MaxN
	if maxN < 1 {
		return nil, 0, nil, "", fmt.Errorf("the maximum length N must be at least 1, got %d", maxN)
	}
	if eps, err = cfg.PositiveRat("eps"); err != nil {
		return nil, 0, nil, "", err
	}
	if eps.Cmp(big.NewRat(1, 2)) >= 0 {
		return nil, 0, nil, "", fmt.Errorf("parameter eps must be below 1/2 (the gap 1 − 2ε must be positive), got %s", eps.RatString())
	}
	delta, err := cfg.PositiveRat("delta")
	if err != nil {
		return nil, 0, nil, "", err
	}
	if delta.Cmp(big.NewRat(1, 1)) >= 0 {
		return nil, 0, nil, "", fmt.Errorf("parameter delta must be below 1 (k = log(1/δ)/log N must be positive), got %s", delta.RatString())
	}
	seed, err := strconv.ParseUint(cfg.Params["seed"], 10, 64)
	if err != nil {
		return nil, 0, nil, "", fmt.Errorf("parameter seed must be an unsigned integer, got %q", cfg.Params["seed"])
	}
	if kText := cfg.Params["k"]; kText != "" {
		k, err := cfg.PositiveRat("k")
		if err != nil {
			return nil, 0, nil, "", err
		}
		if m, err = aoDimensionK(maxN, eps, numeric.Lit(k)); err != nil {
			return nil, 0, nil, "", err
		}
	} else if m, err = aoDimension(maxN, eps, delta); err != nil {
		return nil, 0, nil, "", err
	}
	if fam, err = sampleAO(maxN, m, eps, seed); err != nil {
		return nil, 0, nil, "", err
	}
	measured, _ := big.NewRat(int64(fam.MaxDot), int64(m)).Float64()
	note = fmt.Sprintf("almost orthogonal family: N = %d, m = %d, sampled with seed %d (%d seed(s) tried from %d); measured max_{i≠j} |x_i·x_j| = %d/%d ≈ %.4f ≤ ε = %s",
		maxN, m, fam.Seed, fam.Tries, seed, fam.MaxDot, m, measured, eps.RatString())
	return fam, m, eps, note, nil
}

func buildAO(cfg Config) (*Construction, error) {
	w, maxN := cfg.Weighting, cfg.MaxN
	fam, m, eps, note, err := aoParams(cfg)
	if err != nil {
		return nil, err
	}
	sq, si := componentNames("sq", m), componentNames("si", m)
	p := stream.New("lookup-ao-"+WeightingAcronym(w), lookupConcat(sq, si, []string{"v"})...).
		Symbols(lookupAlphabet(maxN), func(s int) stream.Values {
			vals := stream.Values{"v": numeric.LitInt(int64(s % 2))}
			for k, x := range fam.Signs[s/2] {
				vals[sq[k]] = numeric.LitInt(int64(x))
			}
			return vals
		}).
		PositionsOfI("s_i = √m·x_i (0 past N)", func(i int) stream.Values {
			if i > maxN {
				return nil
			}
			vals := stream.Values{}
			for k, x := range fam.Signs[i-1] {
				vals[si[k]] = numeric.LitInt(int64(x))
			}
			return vals
		})
	q, k, v := lookupProjections(m, numeric.Frac(1, int64(m)))
	head := &stream.Attn{Name: "ao-lookup", In: lookupConcat(sq, si, []string{"v"}), Out: []string{"c"},
		Q: q, K: k, V: v, Weighting: w, Scale: model.NoScale}
	gamma := new(big.Rat).Sub(big.NewRat(1, 1), new(big.Rat).Mul(big.NewRat(2, 1), eps))
	con, err := lookupTail(cfg, p, head, numeric.Lit(gamma))
	if err != nil {
		return nil, err
	}
	con.Notes = append(con.Notes, note+"; gap γ = 1 − 2ε = "+gamma.RatString())
	return con, nil
}

func buildLH(cfg Config) (*Construction, error) {
	w, maxN := cfg.Weighting, cfg.MaxN
	if maxN < 1 {
		return nil, fmt.Errorf("the maximum length N must be at least 1, got %d", maxN)
	}
	one := numeric.LitInt(1)
	p := stream.New("lookup-lh-"+WeightingAcronym(w), "q", "−q", "1", "−1", "j", "−j", "v").
		Symbols(lookupAlphabet(maxN), func(s int) stream.Values {
			q := int64(s/2 + 1)
			return stream.Values{"q": numeric.LitInt(q), "−q": numeric.LitInt(-q), "v": numeric.LitInt(int64(s % 2))}
		}).
		Positions("(1, −1, j, −j)", func(i, n int) stream.Values {
			return stream.Values{"1": one, "−1": numeric.LitInt(-1), "j": numeric.LitInt(int64(i)), "−j": numeric.LitInt(-int64(i))}
		}).
		Formula(stream.Pos(model.PosOne, "1"), stream.Pos(model.PosOne, "−1").Times(numeric.LitInt(-1)),
			stream.Pos(model.PosI, "j"), stream.Pos(model.PosI, "−j").Times(numeric.LitInt(-1)))
	lq, lj := componentNames("lh(q)", 4), componentNames("lh(i)", 4)
	// Each hash in its own sublayer: an identity FFN reading LN(W^N x),
	// W^N selecting the four components in order.
	hashQ := blocks.Identity([]string{"q", "1", "−q", "−1"}, lq)
	hashQ.Name, hashQ.Norm = "lh(q_i)", &stream.Norm{}
	hashJ := blocks.Identity([]string{"j", "1", "−j", "−1"}, lj)
	hashJ.Name, hashJ.Norm = "lh(i)", &stream.Norm{}
	p.Then(hashQ, hashJ)
	q, k, v := lookupProjections(4, one)
	head := &stream.Attn{Name: "lh-lookup", In: lookupConcat(lq, lj, []string{"v"}), Out: []string{"c"},
		Q: q, K: k, V: v, Weighting: w, Scale: model.NoScale}
	return lookupTail(cfg, p, head, lhGap(maxN))
}
