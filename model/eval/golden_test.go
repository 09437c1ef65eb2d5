package eval

import (
	"bufio"
	"fmt"
	"math/big"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// The values in testdata/golden.txt are the true real results of the
// mathematical definitions (mpmath at 600 bits, testdata/gen_golden.py),
// not the engine's order of operations: the tests below bound the
// distance of the engine's result from the truth.

var (
	goldenOnce sync.Once
	goldenMap  map[string]*big.Rat
	goldenErr  error
)

func golden(t *testing.T, key string) *big.Rat {
	t.Helper()
	goldenOnce.Do(func() {
		f, err := os.Open("../testdata/golden.txt")
		if err != nil {
			goldenErr = err
			return
		}
		defer f.Close()
		goldenMap = map[string]*big.Rat{}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			k, v, ok := strings.Cut(line, "\t")
			r, ok2 := new(big.Rat).SetString(v)
			if !ok || !ok2 {
				goldenErr = fmt.Errorf("../testdata/golden.txt: bad line %q", line)
				return
			}
			goldenMap[k] = r
		}
		goldenErr = sc.Err()
	})
	if goldenErr != nil {
		t.Fatal(goldenErr)
	}
	r, ok := goldenMap[key]
	if !ok {
		t.Fatalf("../testdata/golden.txt has no %q; rerun gen_golden.py", key)
	}
	return r
}

// ulps returns k·2^−p.
func ulps(k int64, p uint) *big.Rat {
	return new(big.Rat).SetFrac(big.NewInt(k), new(big.Int).Lsh(big.NewInt(1), p))
}

// checkNear fails unless v is a finite value within bound of want.
func checkNear(t *testing.T, what string, v Value, want, bound *big.Rat) {
	t.Helper()
	e := v.Error(want)
	if e == nil {
		t.Errorf("%s = %s, not finite; want %s", what, v.Text, want.FloatString(30))
		return
	}
	if e.Cmp(bound) > 0 {
		f, _ := e.Float64()
		b, _ := bound.Float64()
		t.Errorf("%s = %s, want %s: error %.3g exceeds the bound %.3g", what, v.Text, want.FloatString(30), f, b)
	}
}

// goldenXs are the activation arguments of gen_golden.py: dyadic, so that
// the word embedding holds x exactly at every precision tested.
var goldenXs = []string{"-3", "-2", "-1/2", "-1/8", "0", "3/8", "1", "5/2", "3"}

// geluModel computes act(x) for the symbol x of goldenXs: W1 = W2 = [1],
// no biases and no residual, so the output is the activation alone.
func geluModel(act model.Activation) *model.Model {
	m := &model.Model{
		Name:     "activation",
		Alphabet: goldenXs,
		D:        1,
		Layers: []model.Layer{{
			FeedForward:           &model.FeedForward{W1: model.Ints([]int64{1}), W2: model.Ints([]int64{1}), Activation: act},
			NoFeedForwardResidual: true,
		}},
		Output: model.Output{Kind: model.Readout, W: model.Ints([]int64{1})},
	}
	for _, x := range goldenXs {
		m.WordEmbedding = append(m.WordEmbedding, vec(x))
	}
	return m
}

// TestActivationsAgainstMpmath checks GELU and its two approximations at
// P-bit precision against the true values.
//
// The bound, with u = 2^−P and |x| ≤ 3: each of the engine's operations
// (the constant, ×, erf/tanh/exp, +, ×) has relative error at most u.
// GELU: x·(1/√2) is off by ≤ 2u relatively, which moves erf by at most
// max_t |t·erf′(t)| · 2u < u; with erf's own rounding and the rounding of
// 1 + erf, 1 + erf is off by < 4u absolutely, so x/2·(1 + erf) is off by
// < 2u|x| + 2u|GELU(x)| < 12u. The tanh form: the argument √(2/π)(x +
// 0.044715x³) has ≤ 6 roundings, relative error ≤ 6u, moving tanh by
// ≤ max |t·sech²t|·6u < 3u; with the rest, < 6u|x| < 18u. The sigmoid
// form: exp(−1.702x) is off relatively by ≤ u + 2u·1.702|x| ≤ 12u, hence
// 1/(1 + e) by ≤ 14u relatively and the result by < 14u|x| ≤ 42u. So
// 64u bounds all three; a wrong formula or constant would be off by far
// more (GELU and its approximations differ by ~1e−4).
func TestActivationsAgainstMpmath(t *testing.T) {
	for _, prec := range []string{"200", "fp64"} {
		p := uint(numeric.MustParsePrecision(prec).SignificandBits())
		bound := ulps(64, p)
		for _, act := range []model.Activation{model.GELU, model.GELUTanh, model.GELUSigmoid} {
			m := geluModel(act)
			r, err := New(numeric.MustParsePrecision(prec), m)
			if err != nil {
				t.Fatalf("%s at %s: %v", act, prec, err)
			}
			for k, x := range goldenXs {
				res, err := r.Run([]int{k}, false)
				if err != nil {
					t.Errorf("%s(%s) at %s: %v", act, x, prec, err)
					continue
				}
				want := golden(t, fmt.Sprintf("act %s %s", act, x))
				checkNear(t, fmt.Sprintf("%s(%s) at %s", act, x, prec), res.Outputs[0].Values[0], want, bound)
			}
		}
	}
}

// TestDistributionAgainstMpmath: the Distribution unembedding is
// softmax(W h); with W the identity, h is the logit vector itself. Bound,
// u = 2^−200 and logits within [−3, 3]: l − max is off by ≤ u|l − max|,
// so exp(l − max) by ≤ u + 7u relatively; the sum of three by ≤ 10u, the
// quotient by ≤ 19u; each probability is < 1, so 64u bounds the error.
func TestDistributionAgainstMpmath(t *testing.T) {
	cases := [][]string{{"0", "1", "2"}, {"-1/2", "1/4", "3"}, {"1", "1", "2"}, {"-3", "0", "-3"}}
	m := &model.Model{Name: "distribution", D: 3, Output: model.Output{Kind: model.Distribution, W: model.Identity(3), Labels: []string{"x", "y", "z"}}}
	for k, c := range cases {
		m.Alphabet = append(m.Alphabet, fmt.Sprint(k))
		m.WordEmbedding = append(m.WordEmbedding, vec(c...))
	}
	r, err := New(numeric.MustParsePrecision("200"), m)
	if err != nil {
		t.Fatal(err)
	}
	bound := ulps(64, 200)
	for k, c := range cases {
		res, err := r.Run([]int{k}, false)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		vs := res.Outputs[0].Values
		if len(vs) != 3 {
			t.Fatalf("%v: %d probabilities, want 3", c, len(vs))
		}
		for j, v := range vs {
			want := golden(t, fmt.Sprintf("dist %s %d", strings.Join(c, ","), j+1))
			checkNear(t, fmt.Sprintf("softmax(%v)[%d]", c, j+1), v, want, bound)
		}
	}
}

// softmaxAttentionModel is one softmax head with d_key = 4 over positions
// with keys (0, 1/2, 1, 1/4) for the symbols a, b, c, d: every row of W^Q
// reads the constant 1 and every row of W^K the key, so q·k_j = 4·key_j,
// and the value is the index j. No residual: the output is Σ_j α_j·j.
func softmaxAttentionModel(mask model.Mask, scale model.ScoreScale, tau string) *model.Model {
	q, k := model.Zeros(4, 3), model.Zeros(4, 3)
	for r := 0; r < 4; r++ {
		q.Set(r, 0, numeric.LitInt(1))
		k.Set(r, 1, numeric.LitInt(1))
	}
	a := &model.Attention{
		Heads:     []model.Head{{Q: q, K: k, V: model.Ints([]int64{0, 0, 0}, []int64{0, 0, 0}, []int64{0, 0, 1})}},
		Mask:      mask,
		Weighting: model.Softmax,
		Scale:     scale,
	}
	if tau != "1" {
		a.Temperature = ex(tau)
	}
	return &model.Model{
		Name:          "softmax attention",
		Alphabet:      []string{"a", "b", "c", "d"},
		WordEmbedding: []model.Vector{vec("0", "0", "0"), vec("0", "1/2", "0"), vec("0", "1", "0"), vec("0", "1/4", "0")},
		Position:      &model.PositionEncoding{Name: "(1, 0, i)", Vector: func(i, n int) model.Vector { return model.IntVector(1, 0, int64(i)) }},
		D:             3,
		Layers:        []model.Layer{{Attention: a, NoAttentionResidual: true}},
		Output:        model.Output{Kind: model.Readout, W: model.Ints([]int64{0, 0, 1})},
	}
}

// TestAttentionSoftmaxBigFloat checks softmax attention at 200 bits with
// the 1/√d_key scale on and off and with temperatures, against mpmath.
// The cases differ from one another by more than 0.01, so a scale or
// temperature that were ignored or applied twice would fail. Bound, with
// u = 2^−200: the scores 4·key/2/τ (|s| ≤ 16) are off by ≤ 2u|s|; s − max
// by ≤ 3u·16; exp by ≤ 49u relatively; the sum of ≤ 4 terms and the
// quotient add ≤ 5u, so each α_j is off by ≤ 2·49u + 5u relatively; the
// output Σ α_j·j ≤ 4 with 7 more roundings is off by < 4·(103u + 7u) =
// 440u. We allow 2^−190 = 1024u.
func TestAttentionSoftmaxBigFloat(t *testing.T) {
	tests := []struct {
		mask  model.Mask
		scale model.ScoreScale
		tau   string
	}{
		{model.Future, model.ScaleSqrtDKey, "1"},
		{model.Future, model.NoScale, "1"},
		{model.Future, model.ScaleSqrtDKey, "3/2"},
		{model.Future, model.NoScale, "1/4"},
		{model.NoMask, model.ScaleSqrtDKey, "1"},
	}
	bound := ulps(1, 190)
	for _, tc := range tests {
		onOff := map[model.ScoreScale]string{model.ScaleSqrtDKey: "on", model.NoScale: "off"}[tc.scale]
		res := mustRun(t, "200", softmaxAttentionModel(tc.mask, tc.scale, tc.tau), "abcd")
		for i, o := range res.Outputs {
			key := fmt.Sprintf("attn %v %s %s %d", tc.mask, onOff, tc.tau, i+1)
			checkNear(t, key, o.Values[0], golden(t, key), bound)
		}
	}
}
