package eval

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// wordEdge are weights and inputs about the limits of the machine-word
// path of exact hard attention: words whose products or sums pass 2^63
// (2^31, 2^32, 3037000499 ≈ √(2^63), 2^62, 3·2^61, 2^63 − 1), and, from
// farEdge on, denominators whose least common multiple does not fit in a
// word (2^62 and 3^39 ≈ 2^61.8) and numerators past the words (2^70).
var wordEdge = []string{"2147483648", "-2147483647", "4294967296", "3037000499", "4611686018427387904",
	"-4611686018427387903", "6917529027641081856", "9223372036854775807", "-9223372036854775807",
	"1/4611686018427387904", "1/4052555153018976267", "1180591620717411303424", "-7/1180591620717411303424"}

// farEdge is the index of the first value of wordEdge that is not a word
// over a word denominator, or whose denominators' multiple is not.
const farEdge = 9

// smallWeights are the weights and inputs drawn most of the time: small
// integers and fractions, so that scores tie often.
var smallWeights = []string{"0", "1", "-1", "2", "-2", "1/2", "-1/3", "5/7", "3"}

// edgeValue draws from smallWeights, or, at level 1, one time in six from
// the words of wordEdge, at level 2 from all of it.
func edgeValue(rng *rand.Rand, level int) *big.Rat {
	switch {
	case level == 1 && rng.IntN(6) == 0:
		return rat(wordEdge[rng.IntN(farEdge)])
	case level == 2 && rng.IntN(6) == 0:
		return rat(wordEdge[rng.IntN(len(wordEdge))])
	}
	return rat(smallWeights[rng.IntN(len(smallWeights))])
}

// randomExactHead is one attention layer of one or two heads in exact
// arithmetic, of a hard weighting, with weights drawn from wordEdge
// (edgeValue at the given level), every mask, scale and a temperature
// sometimes; it returns the model and its heads' weights as rationals.
func randomExactHead(rng *rand.Rand, level int) (*model.Model, [][3][][]*big.Rat) {
	d := 2 + rng.IntN(3)
	dk := 1 + rng.IntN(3)
	draw := func() *big.Rat { return edgeValue(rng, level) }
	mat := func(rows int) (model.Matrix, [][]*big.Rat) {
		m, r := model.Zeros(rows, d), make([][]*big.Rat, rows)
		for i := range r {
			r[i] = make([]*big.Rat, d)
			for c := range r[i] {
				r[i][c] = draw()
				m.Set(i, c, numeric.Lit(r[i][c]))
			}
		}
		return m, r
	}
	heads := make([]model.Head, 1+rng.IntN(2))
	weights := make([][3][][]*big.Rat, len(heads))
	for h := range heads {
		heads[h].Q, weights[h][0] = mat(dk)
		heads[h].K, weights[h][1] = mat(dk)
		heads[h].V, weights[h][2] = mat(d)
	}
	attn := &model.Attention{Heads: heads, Mask: model.Mask(rng.IntN(5)), Weighting: model.Weighting(1 + rng.IntN(3)), Scale: model.ScoreScale(rng.IntN(2))}
	if rng.IntN(3) == 0 {
		attn.Temperature = ex([]string{"1/3", "3", "1/1000"}[rng.IntN(3)])
	}
	m := &model.Model{Name: "random exact attention", Alphabet: []string{"a"}, WordEmbedding: []model.Vector{make(model.Vector, d)},
		D: d, Layers: []model.Layer{{Attention: attn}}, Output: model.Output{Kind: model.Readout, W: model.Ints(make([]int64, d))}}
	for c := range m.WordEmbedding[0] {
		m.WordEmbedding[0][c] = numeric.LitInt(0)
	}
	m.Components = make([]string, d)
	for c := range m.Components {
		m.Components[c] = fmt.Sprintf("c%d", c)
	}
	return m, weights
}

// naiveHardAttention is the attention sublayer computed from its
// definition in big.Rat, independently of the engine: per head the
// scores q_i·k_j over the positions the mask allows (unscaled: √d_key
// and τ are positive and select the same maxima), the leftmost,
// rightmost or every maximum, the mean of their values, summed over the
// heads.
func naiveHardAttention(w model.Weighting, mask model.Mask, weights [][3][][]*big.Rat, x [][]*big.Rat) [][]*big.Rat {
	mul := func(m [][]*big.Rat, v []*big.Rat) []*big.Rat {
		out := make([]*big.Rat, len(m))
		for r, row := range m {
			out[r] = new(big.Rat)
			for c, a := range row {
				out[r].Add(out[r], new(big.Rat).Mul(a, v[c]))
			}
		}
		return out
	}
	n := len(x)
	out := make([][]*big.Rat, n)
	for _, hw := range weights {
		for i := range x {
			q := mul(hw[0], x[i])
			var best *big.Rat
			var maxima []int
			for j := range x {
				if !mask.Allows(i+1, j+1) {
					continue
				}
				s := new(big.Rat)
				for c, kc := range mul(hw[1], x[j]) {
					s.Add(s, new(big.Rat).Mul(q[c], kc))
				}
				switch {
				case best == nil || s.Cmp(best) > 0:
					best, maxima = s, []int{j}
				case s.Cmp(best) == 0:
					maxima = append(maxima, j)
				}
			}
			switch w {
			case model.LeftHardmax:
				maxima = maxima[:min(1, len(maxima))]
			case model.RightHardmax:
				maxima = maxima[max(0, len(maxima)-1):]
			}
			o := make([]*big.Rat, len(hw[2]))
			for c := range o {
				o[c] = new(big.Rat)
				for _, j := range maxima {
					o[c].Add(o[c], mul(hw[2], x[j])[c])
				}
				if len(maxima) > 0 {
					o[c].Quo(o[c], big.NewRat(int64(len(maxima)), 1))
				}
			}
			if out[i] == nil {
				out[i] = o
				continue
			}
			for c := range o {
				out[i][c].Add(out[i][c], o[c])
			}
		}
	}
	return out
}

// TestExactWordAttention: the machine-word path of exact hard attention
// (attention_exact.go) gives the rationals of the generic path and of
// naiveHardAttention, on random heads whose weights and inputs reach the
// limits of the path (sums and products past 2^63, denominators whose
// common multiple does not fit, numerators past the words), so that it
// runs unchecked, checked, and falls back per query and per head.
func TestExactWordAttention(t *testing.T) {
	b := numeric.NewExact()
	rng := rand.New(rand.NewPCG(2026, 63))
	paths := map[string]int{}
	for trial := range 600 {
		level := trial % 3
		m, weights := randomExactHead(rng, level)
		inst, err := Instantiate[*big.Rat](b, m)
		if err != nil {
			t.Fatal(err)
		}
		n := 1 + rng.IntN(9)
		x := make([][]*big.Rat, n)
		for i := range x {
			x[i] = make([]*big.Rat, m.D)
			for c := range x[i] {
				x[i][c] = edgeValue(rng, level)
			}
		}
		a := inst.layers[0].attn
		for h := range a.heads {
			paths[classifyWords(&a.heads[h], x)]++
		}
		inst.generic = false
		fast, err := inst.attend(a, x, "words")
		if err != nil {
			t.Fatal(err)
		}
		inst.generic = true
		slow, err := inst.attend(a, x, "generic")
		if err != nil {
			t.Fatal(err)
		}
		want := naiveHardAttention(a.spec.Weighting, a.spec.Mask, weights, x)
		for i := range want {
			for c := range want[i] {
				if fast[i][c].Cmp(want[i][c]) != 0 || slow[i][c].Cmp(want[i][c]) != 0 {
					t.Fatalf("trial %d (%v, mask %v, %d heads), position %d component %d: words %s, generic %s, want %s",
						trial, a.spec.Weighting, a.spec.Mask, len(a.heads), i+1, c+1,
						fast[i][c].RatString(), slow[i][c].RatString(), want[i][c].RatString())
				}
			}
		}
	}
	// Every way through the path but the checked one (which
	// TestExactWordAttentionLimits takes) was taken, or the test proves
	// less than it says.
	for _, p := range []string{"unchecked", "query falls back", "head falls back"} {
		if paths[p] == 0 {
			t.Errorf("no trial took the path %q (%v)", p, paths)
		}
	}
}

// TestExactWordAttentionLimits runs one head with W^Q = W^K = W^V = I on
// inputs chosen to take each way through the word path, and checks the
// way (classifyWords) and the outputs against the generic path and
// naiveHardAttention: scores that may pass 2^63 by the bound but do not,
// a sum of two products that does (which, wrapped around, would select
// the wrong position), a product that does, a sum of exactly −2^63,
// fractions over a common denominator, and denominators whose multiple
// is not a word.
func TestExactWordAttentionLimits(t *testing.T) {
	const (
		p31 = "2147483648"          // 2^31
		p40 = "1099511627776"       // 2^40
		p62 = "4611686018427387904" // 2^62
	)
	cases := []struct {
		path string
		x    [][2]string
	}{
		{"checked", [][2]string{{p31, "1"}, {"1", p31}, {"3", "-" + p31}, {"-1", "5"}}},
		{"checked", [][2]string{{p31, "0"}, {p31, "7"}, {"1", "5"}, {p31, "0"}}}, // ties at 2^62
		{"query falls back", [][2]string{{p31, p31}, {p31, "2147483647"}, {"1", "1"}}},
		{"query falls back", [][2]string{{p31, p31}, {"-" + p31, "-" + p31}, {"0", "0"}}},
		{"query falls back", [][2]string{{p40, "1"}, {p40, "2"}, {"1", p40}}},
		{"query falls back", [][2]string{{"4294967296", "0"}, {"4294967296", "1"}}},
		{"unchecked", [][2]string{{"1/3", "1/5"}, {"2/3", "-1/5"}, {"1/15", "7"}, {"-4", "2/5"}}},
		{"checked", [][2]string{{"3037000499", "0"}, {"-3037000499", "0"}, {"3037000499", "0"}}}, // squares < 2^63 < 2·squares
		// 2·(2^31 − 1)² = 2^63 − 2^33 + 2 is a word: the bound fits.
		{"unchecked", [][2]string{{"2147483647", "-2147483647"}, {"-2147483647", "-2147483647"}, {"2147483647", "2147483647"}}},
		{"head falls back", [][2]string{{"1/" + p62, "1"}, {"1/4052555153018976267", "1"}, {"1", "1"}}},
		{"head falls back", [][2]string{{"1180591620717411303424", "1"}, {"1", "1"}}},
	}
	b := numeric.NewExact()
	for _, c := range cases {
		for _, w := range []model.Weighting{model.AverageHardmax, model.LeftHardmax, model.RightHardmax} {
			for _, mask := range []model.Mask{model.NoMask, model.Future} {
				id := [][]*big.Rat{{rat("1"), rat("0")}, {rat("0"), rat("1")}}
				weights := [][3][][]*big.Rat{{id, id, id}}
				m := &model.Model{Name: "limits", Alphabet: []string{"a"}, WordEmbedding: []model.Vector{model.IntVector(0, 0)}, D: 2,
					Components: []string{"x", "y"},
					Layers:     []model.Layer{{Attention: &model.Attention{Heads: []model.Head{{Q: model.Identity(2), K: model.Identity(2), V: model.Identity(2)}}, Mask: mask, Weighting: w}}},
					Output:     model.Output{Kind: model.Readout, W: model.Ints([]int64{0, 0})}}
				inst, err := Instantiate[*big.Rat](b, m)
				if err != nil {
					t.Fatal(err)
				}
				x := make([][]*big.Rat, len(c.x))
				for i, row := range c.x {
					x[i] = []*big.Rat{rat(row[0]), rat(row[1])}
				}
				a := inst.layers[0].attn
				if mask == model.NoMask {
					if got := classifyWords(&a.heads[0], x); got != c.path {
						t.Errorf("%v: the word path is %q, want %q", c.x, got, c.path)
					}
				}
				fast, err := inst.attend(a, x, "words")
				if err != nil {
					t.Fatal(err)
				}
				inst.generic = true
				slow, err := inst.attend(a, x, "generic")
				if err != nil {
					t.Fatal(err)
				}
				want := naiveHardAttention(w, mask, weights, x)
				for i := range want {
					for k := range want[i] {
						if fast[i][k].Cmp(want[i][k]) != 0 || slow[i][k].Cmp(want[i][k]) != 0 {
							t.Errorf("%v %v mask %v, position %d component %d: words %s, generic %s, want %s", c.x, w, mask, i+1, k+1,
								fast[i][k].RatString(), slow[i][k].RatString(), want[i][k].RatString())
						}
					}
				}
			}
		}
	}
}

// classifyWords says which way the word path takes the head hp on input
// x: unchecked (the bound on the scores fits), checked, or with a query or
// the whole head falling back to the generic path.
func classifyWords(hp *headParams[*big.Rat], x [][]*big.Rat) string {
	inst := &Instance[*big.Rat]{B: numeric.NewExact()}
	keys := make([][]*big.Rat, len(x))
	for j := range x {
		keys[j] = inst.matVec(hp.k, x[j], nil)
	}
	ks, ok := packWords(keys)
	if !ok {
		return "head falls back"
	}
	q := make([]int64, ks.width)
	kind := "unchecked"
	for i := range x {
		maxQ, ok := numeric.ExactWords(q, inst.matVec(hp.q, x[i], nil))
		if !ok {
			return "query falls back"
		}
		if !scoresFit(maxQ, ks.max, ks.width) {
			kind = "checked"
			for j := range x {
				var s int64
				for c := range q {
					p, ok := numeric.MulInt64(q[c], ks.data[j*ks.width+c])
					if ok {
						s, ok = numeric.AddInt64(s, p)
					}
					if !ok {
						return "query falls back"
					}
				}
			}
		}
	}
	return kind
}

// BenchmarkHardWords times the machine-word scores of exact hard
// attention alone (hardWords for every query, the keys packed once), on
// the lookup's head: keys (2j, −j²), queries (q, 1), a unique maximum.
// ns/term is per multiply-add of the n²·2 score terms, about the L1 and
// L2 sizes (the keys take 16 bytes a position).
func BenchmarkHardWords(b *testing.B) {
	for _, n := range []int{1024, 2048, 4096, 8192} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := numeric.NewExact()
			inst := &Instance[*big.Rat]{B: e, exact: true}
			keys := make([][]*big.Rat, n)
			vals := make([][]*big.Rat, n)
			queries := make([][]*big.Rat, n)
			for j := range keys {
				keys[j] = []*big.Rat{big.NewRat(int64(2*(j+1)), 1), big.NewRat(-int64(j+1)*int64(j+1), 1)}
				vals[j] = []*big.Rat{big.NewRat(int64(j%2), 1)}
				queries[j] = []*big.Rat{big.NewRat(int64(1+(j*7919)%n), 1), big.NewRat(1, 1)}
			}
			ks, ok := packWords(keys)
			if !ok {
				b.Fatal("the lookup's keys are words")
			}
			spec := &model.Attention{Weighting: model.AverageHardmax}
			q := make([]int64, 2)
			b.ResetTimer()
			for range b.N {
				for i := range queries {
					if _, ok := inst.hardWords(spec, queries[i], q, ks, vals, i); !ok {
						b.Fatal("left the words")
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*n*n), "ns/term")
		})
	}
}
