package fuzz

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math/big"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/transformer-cookbook/verify/certify"
	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/model/modelfile"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// soundConfig is a recipe whose inputs are strings over a finite alphabet
// and whose models the analysis can certify at some length, with the
// parameters it is built with. fuzzN and longN are the largest N the fuzz
// target and the long campaign build it for: the longest lengths with at
// most fuzzMaxInputs and longMaxInputs inputs (or 4, where the alphabet
// grows with N: the lookups' queries, the tie-breaking layer's positions).
// Lengths with more inputs than the caller's cap are not checked at all.
type soundConfig struct {
	name   string
	params map[string]string
	fuzzN  int
	longN  int
}

// soundConfigs are the recipes FuzzCertifiedIsRight draws from, in name
// order. Those the analysis certifies at every length (the lookups, the
// predecessors, the induction head, first under UHAT, the multi-head and
// tie-breaking layers, Dyck with the max check) carry the weight of the
// test; those it certifies at n = 1 only, where average hardmax averages
// an input-dependent set from n = 2 on (bos, count, dyck1, first,
// inverse-position), are kept because a perturbation may turn them into
// models it does certify, and must then be right. Since the analysis
// follows tie sets of several values (their compositions, and every
// order where the rounding may depend on it), the uniform averages of
// dyck1, dyck1-n and induction-frequent are analysed past n = 1; their
// perturbations (a weight of W^V changed, say) make tie sets whose
// values take two nonzero numbers at a component, where the order of the
// values changes the rounded mean.
var soundConfigs = []soundConfig{
	{"bos", nil, 5, 7},
	{"count", nil, 9, 12},
	{"dyck-kd", map[string]string{"check": "max"}, 4, 6},
	{"dyck1", nil, 9, 12},
	{"dyck1-n", nil, 9, 12},
	{"dyck12", map[string]string{"check": "max"}, 9, 12},
	{"first", nil, 9, 12},
	{"first-uhat", nil, 9, 12},
	{"induction-frequent", map[string]string{"alphabet": "AB"}, 6, 8},
	{"induction-recent", map[string]string{"alphabet": "ABC"}, 5, 7},
	{"inverse-position", nil, 9, 12},
	{"lookup", nil, 4, 4},
	{"lookup-onehot", nil, 4, 4},
	{"multihead", nil, 4, 4},
	{"pred", nil, 5, 7},
	{"pred-strict", nil, 5, 7},
	{"tiebreak", nil, 4, 4},
}

// pickSoundConfig is the configuration of that recipe, or, for any other
// string the fuzzer makes, one chosen by the string's hash (as pickRecipe
// does), so that corpus files keep naming their recipe.
func pickSoundConfig(name string) soundConfig {
	for _, c := range soundConfigs {
		if c.name == name {
			return c
		}
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return soundConfigs[h.Sum32()%uint32(len(soundConfigs))]
}

// soundPrecisions are the precisions the target draws from when the
// fuzzer's string is not one of them: every rounding family, and
// bigfloats on both sides of numeric.NarrowMaxBits (the analysis runs
// those of at most 25 bits on the runner's float64 instance).
var soundPrecisions = []string{"exact", "fp64", "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "2", "3", "5", "8", "11", "24", "25", "26", "53"}

// pickPrecision parses name when it is a point precision of at most 256
// bits, and otherwise chooses one of soundPrecisions by the string's
// hash: intervals are not analysed, and huge bigfloats only cost time.
func pickPrecision(name string) numeric.Precision {
	if p, err := numeric.ParsePrecision(name); err == nil && p.Kind != numeric.KindInterval && (p.Kind != numeric.KindBigFloat || p.Bits <= 256) {
		return p
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return numeric.MustParsePrecision(soundPrecisions[h.Sum32()%uint32(len(soundPrecisions))])
}

// hardWeightings are the hard weightings the paper gives r: the analysis
// declines softmax.
func hardWeightings(r *recipes.Recipe) []model.Weighting {
	var ws []model.Weighting
	for _, w := range r.Weightings {
		if w != model.Softmax {
			ws = append(ws, w)
		}
	}
	return ws
}

// soundBuilt is a recipe built for one weighting and N: the construction
// (the reference the perturbed models are checked against), its exact
// instance, and its model as a JSON model file, from which every
// perturbed model starts (the path of verify check --model).
type soundBuilt struct {
	r     *recipes.Recipe
	con   *recipes.Construction
	exact *eval.Instance[*big.Rat]
	file  []byte
	err   error
}

type soundKey struct {
	name string
	w    model.Weighting
	n    int
}

// soundBuilds caches the built recipes: building and writing one costs
// more than checking a perturbation of it, and the fuzzer meets the same
// few hundred (recipe, weighting, N) again and again. The construction is
// read only (each checker takes a copy of the struct), and instances are
// safe for concurrent use.
var soundBuilds sync.Map // soundKey → func() *soundBuilt

func buildSound(cfg soundConfig, w model.Weighting, n int) *soundBuilt {
	f, _ := soundBuilds.LoadOrStore(soundKey{cfg.name, w, n}, sync.OnceValue(func() *soundBuilt {
		r, err := recipes.Get(cfg.name)
		if err != nil {
			return &soundBuilt{err: err}
		}
		con, err := r.Construct(w, n, cfg.params)
		if err != nil {
			return &soundBuilt{err: fmt.Errorf("build: %w", err)}
		}
		exact, err := eval.Instantiate[*big.Rat](numeric.Exact{}, con.Model)
		if err != nil {
			return &soundBuilt{err: fmt.Errorf("exact instance: %w", err)}
		}
		var buf bytes.Buffer
		if err := modelfile.WriteJSON(context.Background(), &buf, con.Model, n); err != nil {
			return &soundBuilt{err: fmt.Errorf("write: %w", err)}
		}
		return &soundBuilt{r: r, con: con, exact: exact, file: buf.Bytes()}
	}))
	return f.(func() *soundBuilt)()
}

// The perturbations, one byte each (the first of an op's opSize bytes,
// modulo numKinds); the other bytes select where and by how much. The
// analysis declines a model whose masks or tie rules are not the
// reference's: a changed mask or tie rule tests that it then certifies
// nothing, and an unchanged one (the byte may pick the same) lets the
// model's other perturbations through.
const (
	kindWeight      = iota // one weight of W^Q, W^K, W^V, W1, b1, W2, b2 or the output, by a factor or ±1
	kindWordEntry          // a column constant over symbols (position-only) made symbol-dependent
	kindPosEntry           // a column constant over positions (symbol-only) made position-dependent
	kindConstant           // a varying column of the word or position embedding made constant
	kindMask               // an attention sublayer's mask
	kindTie                // an attention sublayer's tie rule (hard weighting)
	kindScale              // an attention sublayer's score scale, q·k or q·k/√d_key
	kindTemperature        // an attention sublayer's temperature
	kindSpecial            // a weight set to a special value of the precision (±0, subnormal, near overflow)
	kindNaN                // weights that make NaN: overflow to ∞, 0·∞, ∞ − ∞
	kindResidual           // a sublayer's residual connection switched off or on
	kindAlphabet           // the model's alphabet reordered, extended, or two symbols' names swapped
	numKinds
)

var kindNames = []string{"weight", "word-entry", "position-entry", "constant-column", "mask", "tie-rule", "scale", "temperature", "special-value", "nan", "residual", "alphabet"}

// opSize is the bytes of one perturbation: its kind and four selectors.
const opSize = 5

// maxOps is the most perturbations applied to one model.
const maxOps = 3

// ops splits the fuzzer's bytes into 1 to maxOps perturbations, the last
// padded with zeros.
func splitOps(b []byte) [][opSize]byte {
	k := min(maxOps, max(1, (len(b)+opSize-1)/opSize))
	out := make([][opSize]byte, k)
	for i := range out {
		copy(out[i][:], b[min(len(b), i*opSize):min(len(b), (i+1)*opSize)])
	}
	return out
}

// slot is a list of weights that a perturbation may change in place.
type slot struct {
	name string
	data []numeric.Expr
}

// weightSlots lists the weights of m's heads, feed-forward sublayers and
// output, a missing bias as a vector of zeros put in its place, so that
// it too can be changed.
func weightSlots(m *model.Model) []slot {
	var s []slot
	for l := range m.Layers {
		layer := &m.Layers[l]
		if a := layer.Attention; a != nil {
			for h := range a.Heads {
				head := &a.Heads[h]
				s = append(s, slot{fmt.Sprintf("layer %d head %d W^Q", l+1, h+1), head.Q.Data},
					slot{fmt.Sprintf("layer %d head %d W^K", l+1, h+1), head.K.Data},
					slot{fmt.Sprintf("layer %d head %d W^V", l+1, h+1), head.V.Data})
			}
		}
		if f := layer.FeedForward; f != nil {
			if f.B1 == nil {
				f.B1 = make(model.Vector, f.W1.Rows)
			}
			if f.B2 == nil {
				f.B2 = make(model.Vector, f.W2.Rows)
			}
			s = append(s, slot{fmt.Sprintf("layer %d W1", l+1), f.W1.Data}, slot{fmt.Sprintf("layer %d b1", l+1), f.B1},
				slot{fmt.Sprintf("layer %d W2", l+1), f.W2.Data}, slot{fmt.Sprintf("layer %d b2", l+1), f.B2})
		}
	}
	return append(s, slot{"output W", m.Output.W.Data})
}

// exprRat is e's value; the models perturbed here hold rationals only.
func exprRat(e numeric.Expr) *big.Rat {
	r, ok, err := e.Rat()
	if err != nil || !ok {
		panic(fmt.Sprintf("weight %v is not rational", e))
	}
	return r
}

func frac(a, b int64) *big.Rat { return big.NewRat(a, b) }

func ratAdd(a, b *big.Rat) *big.Rat { return new(big.Rat).Add(a, b) }
func ratMul(a, b *big.Rat) *big.Rat { return new(big.Rat).Mul(a, b) }

// deltas are the changes made to an embedding entry: small and large,
// of both signs, and 1/64, which the fp8 formats lose next to 1.
var deltas = []*big.Rat{frac(1, 1), frac(-1, 1), frac(2, 1), frac(-2, 1), frac(1, 2), frac(-1, 2), frac(1, 64), frac(3, 1)}

// temperatures are the τ a perturbation sets: under a hard weighting a
// positive τ changes no exact argmax, only how the scores round.
var temperatures = []*big.Rat{frac(1, 2), frac(2, 1), frac(3, 1), frac(1, 3), frac(1, 1024), frac(1024, 1), frac(65, 64)}

// formatOf is the format whose special values a perturbation uses: the
// precision's own, or fp16's for exact arithmetic and bigfloats (which
// have neither subnormals nor overflow: the values are then merely
// small and large rationals).
func formatOf(p numeric.Precision) *numeric.Format {
	if p.Format != nil {
		return p.Format
	}
	return numeric.Binary16
}

// significand is the precision's significand bits, fp16's where it has
// none.
func significand(p numeric.Precision) int {
	if b := p.SignificandBits(); b > 0 {
		return b
	}
	return numeric.Binary16.P
}

// specialValue is special value k of precision p, for an entry whose
// value is x: zeros and values that round to ±0, subnormals, values at
// and beyond the overflow threshold, and the midpoints where rounding
// ties.
func specialValue(p numeric.Precision, k int, x *big.Rat) (string, *big.Rat) {
	f := formatOf(p)
	sub := pow2(f.EMin - f.P + 1)
	maxF := new(big.Rat)
	maxF.SetFloat64(f.MaxFinite())
	ulpMax := pow2(f.EMax - f.P + 1)
	bits := significand(p)
	switch k % 13 {
	case 0:
		return "0", new(big.Rat)
	case 1:
		return "−(min subnormal)/4, −0 once rounded", ratMul(sub, frac(-1, 4))
	case 2:
		return "(min subnormal)/4, +0 once rounded", ratMul(sub, frac(1, 4))
	case 3:
		return "the min subnormal", sub
	case 4:
		return "−(min subnormal)", ratMul(sub, frac(-1, 1))
	case 5:
		return "the largest subnormal", new(big.Rat).Sub(pow2(f.EMin), sub)
	case 6:
		return "1.5·(min subnormal), a tie", ratMul(sub, frac(3, 2))
	case 7:
		return "the max finite", maxF
	case 8:
		return "−(max finite)", ratMul(maxF, frac(-1, 1))
	case 9:
		return "max finite + ulp/2, a tie that rounds to overflow", ratAdd(maxF, ratMul(ulpMax, frac(1, 2)))
	case 10:
		return "2^(emax+1), beyond the range", pow2(f.EMax + 1)
	case 11:
		return "x·(1 + 2^−p), a tie at x", ratMul(x, ratAdd(frac(1, 1), pow2(-bits)))
	default:
		return "x + (min subnormal)", ratAdd(x, sub)
	}
}

// classes describes an embedding's dependence structure over the
// lengths up to n: word columns constant over symbols (position-only or
// unused components), position columns constant over every (i, n)
// (symbol-only or unused ones).
type classes struct {
	wordConst, posConst []bool
}

// positionRows is pe_n(i) for 1 ≤ i ≤ n ≤ maxN as rationals (zeros for a
// model without a position encoding).
func positionRows(m *model.Model, maxN int) [][][]*big.Rat {
	out := make([][][]*big.Rat, maxN+1)
	for n := 1; n <= maxN; n++ {
		out[n] = make([][]*big.Rat, n+1)
		for i := 1; i <= n; i++ {
			row := make([]*big.Rat, m.D)
			var v model.Vector
			if m.Position != nil {
				v = m.Position.Vector(i, n)
			}
			for c := range row {
				row[c] = new(big.Rat)
				if c < len(v) {
					row[c] = exprRat(v[c])
				}
			}
			out[n][i] = row
		}
	}
	return out
}

func wordRat(m *model.Model, s, c int) *big.Rat {
	if row := m.WordEmbedding[s]; row != nil {
		return exprRat(row[c])
	}
	return new(big.Rat)
}

func classesOf(m *model.Model, pos [][][]*big.Rat, maxN int) classes {
	cl := classes{wordConst: make([]bool, m.D), posConst: make([]bool, m.D)}
	for c := 0; c < m.D; c++ {
		cl.wordConst[c] = true
		for s := range m.Alphabet {
			if wordRat(m, s, c).Cmp(wordRat(m, 0, c)) != 0 {
				cl.wordConst[c] = false
				break
			}
		}
		cl.posConst[c] = true
		for n := 1; n <= maxN && cl.posConst[c]; n++ {
			for i := 1; i <= n; i++ {
				if pos[n][i][c].Cmp(pos[1][1][c]) != 0 {
					cl.posConst[c] = false
					break
				}
			}
		}
	}
	return cl
}

// among returns the index of the k-th (modulo their number) true entry
// of mask, or −1 when none is.
func among(mask []bool, k int, want bool) int {
	var idx []int
	for c, b := range mask {
		if b == want {
			idx = append(idx, c)
		}
	}
	if len(idx) == 0 {
		return -1
	}
	return idx[k%len(idx)]
}

func componentName(m *model.Model, c int) string {
	if c < len(m.Components) {
		return fmt.Sprintf("%q", m.Components[c])
	}
	return fmt.Sprintf("component %d", c)
}

// setWord sets symbol s's word-embedding entry c to x.
func setWord(m *model.Model, s, c int, x *big.Rat) {
	row := m.WordEmbedding[s]
	if row == nil {
		row = make(model.Vector, m.D)
	} else {
		row = append(model.Vector(nil), row...)
	}
	row[c] = numeric.Lit(x)
	m.WordEmbedding[s] = row
}

// setPosition replaces m's position encoding by a table of its values up
// to maxN with change applied to each row (a copy), as a model file
// written from a Go function holds it; the model is written and read
// again before it is checked, so the table is what the reader builds.
func setPosition(m *model.Model, maxN int, dependsOnN bool, change func(i, n int, row []*big.Rat)) {
	pos := positionRows(m, maxN)
	for n := 1; n <= maxN; n++ {
		for i := 1; i <= n; i++ {
			change(i, n, pos[n][i])
		}
	}
	name := "perturbed"
	if m.Position != nil {
		name = m.Position.Name + " (perturbed)"
	}
	m.Position = &model.PositionEncoding{Name: name, IndependentOfN: !dependsOnN, Vector: func(i, n int) model.Vector {
		if n < 1 || n > maxN || i < 1 || i > n {
			return nil
		}
		if !dependsOnN {
			n = maxN
		}
		v := make(model.Vector, m.D)
		for c, x := range pos[n][i] {
			v[c] = numeric.Lit(x)
		}
		return v
	}}
}

// attentionLayers is the indices of m's layers with attention.
func attentionLayers(m *model.Model) []int {
	var ls []int
	for l, layer := range m.Layers {
		if layer.Attention != nil {
			ls = append(ls, l)
		}
	}
	return ls
}

// pickEntry chooses an entry of one of slots: slot a, entry (b, c); with
// nonzero, among the nonzero entries of the slots (none: ok false).
func pickEntry(slots []slot, a, b, c byte, nonzero bool) (s slot, k int, ok bool) {
	if len(slots) == 0 {
		return slot{}, 0, false
	}
	e := int(b)<<8 | int(c)
	for try := range slots {
		s = slots[(int(a)+try)%len(slots)]
		var idx []int
		for k, x := range s.data {
			if !nonzero || exprRat(x).Sign() != 0 {
				idx = append(idx, k)
			}
		}
		if len(idx) > 0 {
			return s, idx[e%len(idx)], true
		}
	}
	return slot{}, 0, false
}

// perturb applies one perturbation to m (in place), built for lengths up
// to maxN and checked at p, and says what it did ("" when it found
// nothing to change: a model without attention asked for a mask).
func perturb(m *model.Model, p numeric.Precision, maxN int, op [opSize]byte) (kind int, what string) {
	kind = int(op[0]) % numKinds
	a, b, c, d := op[1], op[2], op[3], op[4]
	switch kind {
	case kindWeight:
		type factor struct {
			text  string
			f     *big.Rat // multiply by f, or
			delta *big.Rat // add delta
		}
		factors := []factor{{"× −1", frac(-1, 1), nil}, {"× 0", frac(0, 1), nil}, {"× 1/2", frac(1, 2), nil}, {"× 2", frac(2, 1), nil},
			{"× 65/64", frac(65, 64), nil}, {"+ 1", nil, frac(1, 1)}, {"− 1", nil, frac(-1, 1)}}
		fc := factors[int(d)%len(factors)]
		s, k, ok := pickEntry(weightSlots(m), a, b, c, fc.f != nil)
		if !ok {
			return kind, ""
		}
		x := exprRat(s.data[k])
		var y *big.Rat
		if fc.f != nil {
			y = ratMul(x, fc.f)
		} else {
			y = ratAdd(x, fc.delta)
		}
		s.data[k] = numeric.Lit(y)
		return kind, fmt.Sprintf("%s entry %d %s: %s → %s", s.name, k, fc.text, x.RatString(), y.RatString())
	case kindWordEntry, kindPosEntry, kindConstant:
		pos := positionRows(m, maxN)
		cl := classesOf(m, pos, maxN)
		delta := deltas[int(c)%len(deltas)]
		switch {
		case kind == kindWordEntry:
			col := among(cl.wordConst, int(a), true)
			if col < 0 {
				return kind, ""
			}
			s := int(b) % len(m.Alphabet)
			x := wordRat(m, s, col)
			setWord(m, s, col, ratAdd(x, delta))
			return kind, fmt.Sprintf("word embedding of %q, %s (constant over symbols): %s → %s", m.Alphabet[s], componentName(m, col), x.RatString(), ratAdd(x, delta).RatString())
		case kind == kindPosEntry:
			col := among(cl.posConst, int(a), true)
			if col < 0 {
				return kind, ""
			}
			i := 1 + int(b)%maxN
			if d&1 == 0 {
				setPosition(m, maxN, m.Position != nil && !m.Position.IndependentOfN, func(pi, _ int, row []*big.Rat) {
					if pi == i {
						row[col] = ratAdd(row[col], delta)
					}
				})
				return kind, fmt.Sprintf("position %d's entry of %s (constant over positions) raised by %s at every length", i, componentName(m, col), delta.RatString())
			}
			n := i + int(d>>1)%(maxN-i+1)
			setPosition(m, maxN, true, func(pi, pn int, row []*big.Rat) {
				if pi == i && pn == n {
					row[col] = ratAdd(row[col], delta)
				}
			})
			return kind, fmt.Sprintf("position %d's entry of %s (constant over positions) raised by %s at length %d only", i, componentName(m, col), delta.RatString(), n)
		default:
			if d&1 == 0 {
				col := among(cl.wordConst, int(a), false)
				if col < 0 {
					return kind, ""
				}
				v := new(big.Rat)
				src := "0"
				if c&1 == 0 {
					s := int(b) % len(m.Alphabet)
					v, src = wordRat(m, s, col), fmt.Sprintf("%q's value", m.Alphabet[s])
				}
				for s := range m.Alphabet {
					setWord(m, s, col, v)
				}
				return kind, fmt.Sprintf("word embedding column %s (varying) set to %s, %s, for every symbol", componentName(m, col), src, v.RatString())
			}
			col := among(cl.posConst, int(a), false)
			if col < 0 {
				return kind, ""
			}
			v := new(big.Rat)
			src := "0"
			if c&1 == 0 {
				i := 1 + int(b)%maxN
				v, src = new(big.Rat).Set(pos[maxN][i][col]), fmt.Sprintf("pe_%d(%d)", maxN, i)
			}
			setPosition(m, maxN, m.Position != nil && !m.Position.IndependentOfN, func(_, _ int, row []*big.Rat) { row[col] = v })
			return kind, fmt.Sprintf("position column %s (varying) set to %s, %s, at every position", componentName(m, col), src, v.RatString())
		}
	case kindMask, kindTie, kindScale, kindTemperature:
		ls := attentionLayers(m)
		if len(ls) == 0 {
			return kind, ""
		}
		l := ls[int(a)%len(ls)]
		at := m.Layers[l].Attention
		switch kind {
		case kindMask:
			old := at.Mask
			at.Mask = model.Mask(int(b) % 5)
			return kind, fmt.Sprintf("layer %d mask %s → %s", l+1, old, at.Mask)
		case kindTie:
			old := at.Weighting
			at.Weighting = []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax}[int(b)%3]
			return kind, fmt.Sprintf("layer %d weighting %s → %s", l+1, old, at.Weighting)
		case kindScale:
			old := at.Scale
			at.Scale = 1 - old
			return kind, fmt.Sprintf("layer %d scale %s → %s", l+1, old, at.Scale)
		default:
			tau := temperatures[int(b)%len(temperatures)]
			at.Temperature = numeric.Lit(tau)
			return kind, fmt.Sprintf("layer %d temperature τ = %s", l+1, tau.RatString())
		}
	case kindSpecial:
		slots := weightSlots(m)
		// The word embedding too: a non-finite or signed-zero embedding
		// reaches every sublayer.
		var we []numeric.Expr
		for s := range m.Alphabet {
			if m.WordEmbedding[s] == nil {
				m.WordEmbedding[s] = make(model.Vector, m.D)
			}
			we = append(we, m.WordEmbedding[s]...)
		}
		slots = append(slots, slot{"word embedding", we})
		s, k, ok := pickEntry(slots, a, b, c, false)
		if !ok {
			return kind, ""
		}
		x := exprRat(s.data[k])
		text, y := specialValue(p, int(d), x)
		if s.name == "word embedding" {
			setWord(m, k/m.D, k%m.D, y)
		} else {
			s.data[k] = numeric.Lit(y)
		}
		return kind, fmt.Sprintf("%s entry %d set to %s: %s → %s", s.name, k, text, x.RatString(), shortRat(y))
	case kindResidual:
		if len(m.Layers) == 0 {
			return kind, ""
		}
		l := int(a) % len(m.Layers)
		layer := &m.Layers[l]
		onOff := map[bool]string{false: "on", true: "off"}
		if b&1 == 0 {
			layer.NoAttentionResidual = !layer.NoAttentionResidual
			return kind, fmt.Sprintf("layer %d attention residual %s → %s", l+1, onOff[!layer.NoAttentionResidual], onOff[layer.NoAttentionResidual])
		}
		layer.NoFeedForwardResidual = !layer.NoFeedForwardResidual
		return kind, fmt.Sprintf("layer %d feed-forward residual %s → %s", l+1, onOff[!layer.NoFeedForwardResidual], onOff[layer.NoFeedForwardResidual])
	case kindAlphabet:
		// The checker maps the reference's symbols to the model's by
		// name (check.Adopt), and the analysis follows that map
		// (certify.Input.MapSymbol): a model whose symbols sit at other
		// indices is the same model, and one whose names are swapped is
		// another.
		k := len(m.Alphabet)
		s1, s2 := int(b)%k, int(c)%k
		switch a % 3 {
		case 0:
			m.Alphabet[s1], m.Alphabet[s2] = m.Alphabet[s2], m.Alphabet[s1]
			m.WordEmbedding[s1], m.WordEmbedding[s2] = m.WordEmbedding[s2], m.WordEmbedding[s1]
			return kind, fmt.Sprintf("symbols %q and %q trade places in the alphabet, rows and all", m.Alphabet[s2], m.Alphabet[s1])
		case 1:
			m.Alphabet[s1], m.Alphabet[s2] = m.Alphabet[s2], m.Alphabet[s1]
			return kind, fmt.Sprintf("symbols %q and %q trade names (their rows stay)", m.Alphabet[s2], m.Alphabet[s1])
		default:
			row := append(model.Vector(nil), m.WordEmbedding[s1]...)
			name := "extra"
			for j := 2; slices.Contains(m.Alphabet, name); j++ {
				name = fmt.Sprintf("extra%d", j)
			}
			m.Alphabet = append([]string{name}, m.Alphabet...)
			m.WordEmbedding = append([]model.Vector{row}, m.WordEmbedding...)
			return kind, fmt.Sprintf("a symbol %q put first in the alphabet, with %q's row", name, m.Alphabet[s1+1])
		}
	default: // kindNaN
		f := formatOf(p)
		maxF := new(big.Rat)
		maxF.SetFloat64(f.MaxFinite())
		beyond := pow2(f.EMax + 1)
		s, k, ok := pickEntry(weightSlots(m), a, b, c, false)
		if !ok {
			return kind, ""
		}
		x := exprRat(s.data[k])
		switch d % 3 {
		case 0:
			// Beyond the range: ∞ once rounded (NaN in fp8-e4m3), and
			// NaN wherever it multiplies a 0.
			s.data[k] = numeric.Lit(beyond)
			return kind, fmt.Sprintf("%s entry %d: %s → 2^(emax+1), ∞ once rounded, 0·∞ = NaN at a zero input", s.name, k, x.RatString())
		case 1:
			// Finite, but its products with inputs above 1 overflow.
			s.data[k] = numeric.Lit(maxF)
			return kind, fmt.Sprintf("%s entry %d: %s → max finite, +∞ by overflow", s.name, k, x.RatString())
		default:
			// Two entries of opposite overflowing signs: ∞ − ∞ where
			// both inputs are nonzero.
			k2 := (k + 1) % len(s.data)
			s.data[k] = numeric.Lit(maxF)
			s.data[k2] = numeric.Lit(ratMul(maxF, frac(-1, 1)))
			return kind, fmt.Sprintf("%s entries %d and %d: ±(max finite), ∞ − ∞ by overflow", s.name, k, k2)
		}
	}
}

// shortRat prints x, cut in the middle when long (2^1024 has 309 digits).
func shortRat(x *big.Rat) string {
	s := x.RatString()
	if len(s) > 40 {
		return s[:18] + "…" + s[len(s)-18:]
	}
	return s
}

// soundInput is one fuzz input: a recipe, a weighting among its hard
// ones, N, a precision, and the perturbations' bytes.
type soundInput struct {
	recipe    string
	weighting uint8
	n         uint8
	precision string
	ops       []byte
}

func (in soundInput) String() string {
	return fmt.Sprintf("(%q, %d, %d, %q, %q)", in.recipe, in.weighting, in.n, in.precision, in.ops)
}

// limits bounds what checkSound checks: N at most n, lengths of at most
// inputs inputs, and of those where the decisions alone are certified,
// those of at most decided inputs (0: every one).
type limits struct{ n, inputs, decided int }

// soundStats counts what one check saw.
type soundStats struct {
	models    int // perturbed models checked (0 when it could not run)
	lengths   int // lengths checked
	certified int // lengths certified (by the checker or the analysis called directly)
	inputs    int // inputs enumerated at certified lengths
	wrong     int // lengths with a wrong input
	decided   int // lengths whose decisions were certified, not their outputs
	// decidedInputs are the inputs enumerated at those lengths, and
	// otherInputs those run at the others.
	decidedInputs, otherInputs int
	// decidedSkipped counts lengths whose decisions alone are certified
	// that were not enumerated (limits.decided).
	decidedSkipped int
	kinds          [numKinds]struct{ models, certified, wrong int }
	// byRecipe counts models, certified lengths and wrong lengths per
	// recipe.
	byRecipe map[string][3]int
}

func (s *soundStats) add(o soundStats) {
	s.models += o.models
	s.lengths += o.lengths
	s.certified += o.certified
	s.inputs += o.inputs
	s.wrong += o.wrong
	s.decided += o.decided
	s.decidedInputs += o.decidedInputs
	s.otherInputs += o.otherInputs
	s.decidedSkipped += o.decidedSkipped
	if s.byRecipe == nil {
		s.byRecipe = map[string][3]int{}
	}
	for name, c := range o.byRecipe {
		a := s.byRecipe[name]
		s.byRecipe[name] = [3]int{a[0] + c[0], a[1] + c[1], a[2] + c[2]}
	}
	for k := range s.kinds {
		s.kinds[k].models += o.kinds[k].models
		s.kinds[k].certified += o.kinds[k].certified
		s.kinds[k].wrong += o.kinds[k].wrong
	}
}

// verdict is the enumeration's verdict on one length.
type verdict struct {
	inputs    int
	wrong     []int  // the first wrong input, nil when none
	why       string // what is wrong with it
	undecided []int  // the first input that decides wrong, nil when none
}

// judge runs one input (symbols of the reference's alphabet; to maps them
// to the model's) whole through runner, a fresh instance of the perturbed
// model (no piece of the analysis), and compares every position with the
// construction's Expected as the checker does: check.Compare with its
// bounds, and check.Decides for a position Compare finds wrong. A run
// that fails is wrong and decides wrong.
func judge(con *recipes.Construction, runner eval.Runner, to, in []int) (wrong bool, why string, decidesWrong bool) {
	mapped := make([]int, len(in))
	for k, s := range in {
		mapped[k] = to[s]
	}
	out, err := runner.Run(mapped, false)
	if err != nil {
		return true, "the run failed: " + err.Error(), true
	}
	want := con.Expected(recipes.Case{Symbols: in})
	if len(want) != len(out.Outputs) {
		return true, fmt.Sprintf("%d outputs, %d expected", len(out.Outputs), len(want)), true
	}
	labels := con.Model.Output.Labels
	for k, w := range want {
		ok, reason := check.Compare(w, out.Outputs[k], con.Bounds, labels)
		if ok {
			continue
		}
		if !wrong {
			wrong, why = true, fmt.Sprintf("position %d: %s", k+1, reason)
		}
		if !check.Decides(w, out.Outputs[k], labels, con.Booleans) {
			decidesWrong = true
		}
	}
	return wrong, why, decidesWrong
}

// enumerate judges every input of length n that the construction's
// Symbols lists and its Valid accepts, in lexicographic order; with
// stop, only up to the first wrong one or limit inputs, whichever comes
// first (limit ≤ 0: no limit).
func enumerate(con *recipes.Construction, runner eval.Runner, to []int, n int, stop bool, limit int) verdict {
	lists := make([][]int, n)
	for i := range lists {
		lists[i] = symbolsAt(con, i+1, n)
	}
	var v verdict
	in := make([]int, n)
	var walk func(i int) bool // false: stop
	walk = func(i int) bool {
		if i == n {
			if con.Valid != nil && con.Valid(recipes.Case{Symbols: in}) != nil {
				return true
			}
			v.inputs++
			wrong, why, decidesWrong := judge(con, runner, to, in)
			if wrong && v.wrong == nil {
				v.wrong, v.why = slices.Clone(in), why
			}
			if decidesWrong && v.undecided == nil {
				v.undecided = slices.Clone(in)
			}
			return !(stop && (wrong || limit > 0 && v.inputs >= limit))
		}
		for _, s := range lists[i] {
			in[i] = s
			if !walk(i + 1) {
				return false
			}
		}
		return true
	}
	walk(0)
	return v
}

// symbolsAt is the construction's Symbols(i, n), or the whole alphabet.
func symbolsAt(con *recipes.Construction, i, n int) []int {
	if con.Symbols != nil {
		return con.Symbols(i, n)
	}
	all := make([]int, len(con.Model.Alphabet))
	for s := range all {
		all[s] = s
	}
	return all
}

// inputCount is the number of strings Symbols allows at length n (Valid
// may keep fewer), capped just above limit.
func inputCount(con *recipes.Construction, n, limit int) int {
	total := 1
	for i := 1; i <= n; i++ {
		total *= len(symbolsAt(con, i, n))
		if total > limit {
			return limit + 1
		}
	}
	return total
}

// directRight is the checker's comparison of one position, against the
// reference's exact output (check's analysis builds the same): the symbol
// alone where the recipe's reference gives only a symbol, else every
// value, with the construction's bounds.
func directRight(con *recipes.Construction, symbolOnly bool) (func(ref, got eval.PositionOutput) (bool, string), func(ref, got eval.PositionOutput) bool) {
	labels := con.Model.Output.Labels
	want := func(ref eval.PositionOutput) (recipes.Want, bool) {
		w := recipes.Want{Symbol: ref.Symbol}
		if !symbolOnly {
			for _, v := range ref.Values {
				x, ok := v.Rat()
				if !ok {
					return w, false
				}
				w.Values = append(w.Values, x)
			}
		}
		return w, true
	}
	right := func(ref, got eval.PositionOutput) (bool, string) {
		w, ok := want(ref)
		if !ok {
			return false, "the reference's output is not a point"
		}
		return check.Compare(w, got, con.Bounds, labels)
	}
	var decides func(ref, got eval.PositionOutput) bool
	if len(check.Decisions(con)) > 0 {
		decides = func(ref, got eval.PositionOutput) bool {
			w, ok := want(ref)
			return ok && check.Decides(w, got, labels, con.Booleans)
		}
	}
	return right, decides
}

// checkSound builds the recipe in, writes its model to a JSON model file
// and reads it back, applies in's perturbations, writes and reads the
// result again (so that what is checked is a model file, position tables
// and all), and checks it as verify check --model does, with the analysis
// on; it also runs the analysis directly (certify.Length), which the
// checker skips where its drawn input fails. Every length certified by
// either, and every length whose decisions either certifies, must have
// every input right (or deciding right) when all of them are enumerated
// and run whole. Only lengths with at most lim.inputs inputs are
// checked, and lim.n caps N.
func checkSound(t testing.TB, in soundInput, lim limits) (st soundStats) {
	nMax, maxInputs := lim.n, lim.inputs
	t.Helper()
	cfg := pickSoundConfig(in.recipe)
	r, err := recipes.Get(cfg.name)
	if err != nil {
		t.Error(err)
		return st
	}
	ws := hardWeightings(r)
	w := ws[int(in.weighting)%len(ws)]
	lo := max(1, r.MinN)
	hi := max(lo, nMax)
	N := lo + int(in.n)%(hi-lo+1)
	p := pickPrecision(in.precision)
	b := buildSound(cfg, w, N)
	if b.err != nil {
		t.Errorf("%s %s N = %d: %v", cfg.name, recipes.WeightingAcronym(w), N, b.err)
		return st
	}
	m, fileN, err := modelfile.ReadJSON(bytes.NewReader(b.file))
	if err != nil {
		t.Errorf("%s: the model file written does not read back: %v", cfg.name, err)
		return st
	}
	if fileN != N {
		t.Errorf("%s: the model file says max_n = %d, written for %d", cfg.name, fileN, N)
		return st
	}
	var did []string
	var kinds []int
	for _, op := range splitOps(in.ops) {
		kind, what := perturb(m, p, N, op)
		if what != "" {
			did = append(did, what)
			kinds = append(kinds, kind)
		}
	}
	if len(did) == 0 {
		return st // nothing to change: the recipe's own model is tested elsewhere
	}
	which := fmt.Sprintf("%s under %s, N = %d, at %s, perturbed: %s (fuzz input %v)", cfg.name, recipes.WeightingAcronym(w), N, p, strings.Join(did, "; "), in)
	var buf bytes.Buffer
	if err := modelfile.WriteJSON(context.Background(), &buf, m, N); err != nil {
		t.Errorf("%s: the perturbed model does not write: %v", which, err)
		return st
	}
	if m, _, err = modelfile.ReadJSON(&buf); err != nil {
		t.Errorf("%s: the perturbed model's file does not read back: %v", which, err)
		return st
	}
	runner, err := eval.New(p, m)
	if err != nil {
		return st // the precision cannot hold the model: nothing is claimed
	}
	con := *b.con
	con.Notes = slices.Clip(con.Notes) // Adopt appends to its copy's notes
	ck, err := check.NewChecker(r, check.Options{Precision: p, Weighting: w, MaxN: N, Params: cfg.params, Model: m,
		Construction: &con, Analysis: true, Cases: 1, Seed: 1, Workers: 1})
	if err != nil {
		return st // verify check --model would refuse the model
	}
	to := make([]int, len(b.con.Model.Alphabet))
	for k, s := range b.con.Model.Alphabet {
		to[k] = slices.Index(m.Alphabet, s)
	}
	// The reference's shape, as the checker reads it from one input.
	symbolOnly := false
	probe, _ := b.con.Inputs(lo, rand.New(rand.NewPCG(0, 1)), 1)
	if want := b.con.Expected(probe[0]); len(want) > 0 {
		symbolOnly = want[0].Symbol != "" && len(want[0].Values) == 0 && len(want[0].Reals) == 0
	}
	right, decides := directRight(b.con, symbolOnly)
	st.models = 1
	for _, k := range kinds {
		st.kinds[k].models++
	}
	for n := lo; n <= N; n++ {
		if inputCount(b.con, n, maxInputs) > maxInputs {
			continue
		}
		st.lengths++
		lr := ck.Length(n)
		// The checker skips the analysis where its drawn input fails; the
		// analysis called directly then says what it would claim.
		res := &certify.Result{}
		if lr.Analysis == check.AnalysisNotNeeded {
			if res, err = certify.Length(certify.Input{Reference: b.con.Model, Model: m, Precision: p, Exact: b.exact, Runner: runner,
				Symbols: b.con.Symbols, MapSymbol: func(s int) int { return to[s] }, Right: right, Decides: decides}, n); err != nil {
				t.Errorf("%s, n = %d: the analysis could not run: %v", which, n, err)
				return st
			}
		}
		// A refusal withdraws a false proof, so the claims below would
		// hold; but a proof the checker refuses is a bug of the analysis.
		if res.Refused || strings.HasPrefix(lr.Analysis, certify.Refusal) {
			t.Errorf("%s, n = %d: %s", which, n, firstNonEmpty(res.Why, lr.Analysis))
		}
		certified := proved(lr.Level) || res.Certified
		decided := res.Decided || proved(lr.DecisionLevel)
		text := func(s []int) string { return check.CaseText(b.con.Model, recipes.Case{Symbols: s}) }
		var v verdict
		switch {
		case certified, decided && (lim.decided <= 0 || inputCount(b.con, n, lim.decided) <= lim.decided):
			// A claim about every input: every input is run.
			v = enumerate(b.con, runner, to, n, false, 0)
		case decided:
			st.decidedSkipped++
		case lr.Failure != nil:
			// The converse, which costs one run: the input the checker
			// reports wrong is wrong.
			c, ok := ck.Input(n, lr.Failure.Case)
			if !ok {
				t.Errorf("%s, n = %d: the checker reports input %d wrong, and has no such input", which, n, lr.Failure.Case)
				return st
			}
			if wrong, why, _ := judge(b.con, runner, to, c.Symbols); wrong {
				v = verdict{inputs: 1, wrong: c.Symbols, why: why}
			} else {
				t.Errorf("%s, n = %d: the checker reports input %q wrong (%s), but it is right when run", which, n, lr.Failure.Input, lr.Failure.Reason)
			}
		default:
			// Neither claims anything: look for a wrong input, for the
			// count of wrong lengths, as far as is cheap.
			v = enumerate(b.con, runner, to, n, true, uncertifiedLimit)
		}
		if v.wrong != nil {
			st.wrong++
			for _, k := range kinds {
				st.kinds[k].wrong++
			}
		}
		if certified {
			st.certified++
			st.inputs += v.inputs
			for _, k := range kinds {
				st.kinds[k].certified++
			}
		}
		switch {
		case certified:
		case decided:
			st.decided++
			st.decidedInputs += v.inputs
		default:
			st.otherInputs += v.inputs
		}
		switch {
		case proved(lr.Level) && v.wrong != nil:
			t.Errorf("%s, n = %d: verify check --model certifies the length, but input %q is wrong (%s); %d inputs enumerated", which, n, text(v.wrong), v.why, v.inputs)
		case res.Certified && v.wrong != nil:
			t.Errorf("%s, n = %d: the analysis certifies the length, but input %q is wrong (%s); %d inputs enumerated", which, n, text(v.wrong), v.why, v.inputs)
		}
		if decided && v.undecided != nil {
			t.Errorf("%s, n = %d: the decisions are certified (checker %v, analysis %v), but input %q decides wrong", which, n, proved(lr.DecisionLevel), res.Decided, text(v.undecided))
		}
	}
	st.byRecipe = map[string][3]int{cfg.name: {1, st.certified, st.wrong}}
	return st
}

// reproducer is the perturbation of a word-embedding entry of component
// comp for symbol sym (in a column constant over symbols), by delta,
// encoded as the bytes perturb reads for the recipe built for N. It
// panics when the recipe has no such symbol or column, so that a seed
// that no longer means what it says does not pass silently.
func reproducer(name string, w model.Weighting, N int, sym, comp string, delta *big.Rat) []byte {
	b := buildSound(pickSoundConfig(name), w, N)
	if b.err != nil {
		panic(b.err)
	}
	m := b.con.Model
	s, c := slices.Index(m.Alphabet, sym), slices.Index(m.Components, comp)
	cl := classesOf(m, positionRows(m, N), N)
	k := 0
	for j := 0; j < c; j++ {
		if cl.wordConst[j] {
			k++
		}
	}
	d := slices.IndexFunc(deltas, func(x *big.Rat) bool { return x.Cmp(delta) == 0 })
	if s < 0 || c < 0 || !cl.wordConst[c] || d < 0 {
		panic(fmt.Sprintf("%s: no symbol %q, constant column %q or delta %s", name, sym, comp, delta.RatString()))
	}
	return []byte{kindWordEntry, byte(k), byte(s), byte(d), 0}
}

// nFor is the byte that selects N among [max(1, MinN), nMax].
func nFor(name string, N int) uint8 {
	r, err := recipes.Get(name)
	if err != nil {
		panic(err)
	}
	return uint8(N - max(1, r.MinN))
}

// weightingFor is the byte that selects w among name's hard weightings.
func weightingFor(name string, w model.Weighting) uint8 {
	r, err := recipes.Get(name)
	if err != nil {
		panic(err)
	}
	k := slices.Index(hardWeightings(r), w)
	if k < 0 {
		panic(fmt.Sprintf("%s: no weighting %s", name, w))
	}
	return uint8(k)
}

// FuzzCertifiedIsRight: a certificate is a theorem. The input picks a
// recipe of soundConfigs (by name), one of its hard weightings, N in
// [max(1, MinN), fuzzN], a precision (by name; any point precision, or
// one of soundPrecisions by the string's hash) and up to three
// perturbations (opSize bytes each: see perturb) of the recipe's model
// as read from a model file: a weight by a factor, an embedding's
// dependence structure (a position-only component made symbol-dependent,
// a symbol-only one position-dependent, a varying one constant), an
// attention's mask, tie rule, score scale or temperature, a residual
// connection, the alphabet's order and names, and the precision's
// special values (±0, subnormals, overflow, NaN). It checks
// the perturbed model against the recipe's reference, as verify check
// --model does, at every length up to N with at most 512 inputs, and
// requires every length certified (by the checker, or by the analysis
// called directly) to have every input right when all are enumerated and
// run whole, and each failure the checker reports to be one.
//
// The seeds cover every kind of perturbation on every recipe, and hold
// the word-embedding change that the fast order check once certified
// wrongly (lookup for N = 4, symbol 1:0 given j = 1: "1:0 2:1" retrieves
// v_1), and the same change in pred-strict's i/n; 24 more are drawn as
// the campaigns draw their models, from -certify.seed.
func FuzzCertifiedIsRight(f *testing.F) {
	seeds := certifySeeds()
	// And inputs drawn as the campaigns draw them, from -certify.seed, so
	// that fuzzing runs with different seeds start from different
	// corpora.
	rng := rand.New(rand.NewPCG(*certifySeed, 0xf022))
	for range 24 {
		in, _ := drawSound(rng, false)
		in.precision = soundPrecisions[rng.IntN(len(soundPrecisions))]
		seeds = append(seeds, in)
	}
	for _, s := range seeds {
		f.Add(s.recipe, s.weighting, s.n, s.precision, s.ops)
	}
	f.Fuzz(func(t *testing.T, recipe string, weighting, n uint8, precision string, ops []byte) {
		in := soundInput{recipe, weighting, n, precision, ops}
		checkSound(t, in, limits{n: pickSoundConfig(recipe).fuzzN, inputs: fuzzMaxInputs})
	})
}

// longMaxInputs is the most inputs of one length the long campaign
// enumerates.
const longMaxInputs = 4096

// uncertifiedLimit is the most inputs run at a length neither the
// checker nor the analysis certifies, nor the checker refutes, in search
// of a wrong one (for the count of wrong lengths).
const uncertifiedLimit = 32

// fuzzMaxInputs is the most inputs of one length the fuzz target
// enumerates: a few milliseconds per fuzz input.
const fuzzMaxInputs = 512

// certifySeeds is the seed corpus of FuzzCertifiedIsRight.
func certifySeeds() []soundInput {
	var seeds []soundInput
	// The reproducer of the fast order check's precedence slip, at the
	// three precisions it was certified at, and its kin in pred-strict.
	for _, p := range []string{"exact", "fp32", "fp16"} {
		seeds = append(seeds, soundInput{"lookup", weightingFor("lookup", model.AverageHardmax), nFor("lookup", 4), p,
			reproducer("lookup", model.AverageHardmax, 4, "1:0", "j", frac(1, 1))})
		for _, w := range []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax} {
			seeds = append(seeds, soundInput{"pred-strict", weightingFor("pred-strict", w), nFor("pred-strict", 4), p,
				reproducer("pred-strict", w, 4, "0", "i/n", frac(1, 1))})
		}
	}
	// Every kind on every recipe, at a precision and selectors that
	// vary with the seed's index.
	for k, cfg := range soundConfigs {
		for kind := range numKinds {
			j := k*numKinds + kind
			seeds = append(seeds, soundInput{cfg.name, uint8(j), uint8(j / 3), soundPrecisions[j%len(soundPrecisions)],
				[]byte{byte(kind), byte(j), byte(j * 7), byte(j * 13), byte(j * 5)}})
		}
	}
	// Two and three perturbations of different kinds at once.
	seeds = append(seeds,
		soundInput{"lookup", 0, 3, "fp16", []byte{kindWordEntry, 1, 2, 0, 0, kindTie, 0, 1, 0, 0}},
		soundInput{"pred", 1, 4, "bf16", []byte{kindPosEntry, 0, 2, 1, 1, kindMask, 0, 2, 0, 0, kindTemperature, 0, 4, 0, 0}},
		soundInput{"induction-recent", 0, 3, "fp8-e4m3", []byte{kindConstant, 0, 1, 0, 0, kindWeight, 3, 0, 1, 5}},
		soundInput{"dyck12", 0, 5, "fp32", []byte{kindScale, 2, 0, 0, 0, kindSpecial, 4, 0, 3, 1}},
		soundInput{"multihead", 1, 3, "5", []byte{kindNaN, 1, 0, 2, 2, kindWordEntry, 0, 3, 1, 0}},
	)
	return seeds
}

// weakConfigs are the configurations the analysis certifies at n = 1
// only, unperturbed: the campaign draws them a third as often as the
// others.
var weakConfigs = []string{"bos", "count", "dyck1", "first", "inverse-position"}

// drawSound draws one campaign input (its precision left to the caller)
// and the largest N it may be built for: N at the top of the range three
// times in four, since the longest lengths hold most of the inputs; one
// perturbation half the time, two or three otherwise.
func drawSound(rng *rand.Rand, useLongN bool) (soundInput, int) {
	var cfg soundConfig
	for {
		cfg = soundConfigs[rng.IntN(len(soundConfigs))]
		if !slices.Contains(weakConfigs, cfg.name) || rng.IntN(3) == 0 {
			break
		}
	}
	nMax := cfg.fuzzN
	if useLongN {
		nMax = cfg.longN
	}
	r, _ := recipes.Get(cfg.name)
	lo := max(1, r.MinN)
	n := uint8(nMax - lo)
	if rng.IntN(4) == 0 {
		n = uint8(rng.IntN(nMax - lo + 1))
	}
	k := []int{1, 1, 1, 1, 1, 2, 2, 2, 3, 3}[rng.IntN(10)]
	ops := make([]byte, opSize*k)
	for j := range ops {
		ops[j] = byte(rng.UintN(256))
	}
	return soundInput{recipe: cfg.name, weighting: uint8(rng.UintN(256)), n: n, ops: ops}, nMax
}

// campaignSpec is what a campaign runs and what it must see.
type campaignSpec struct {
	seed       uint64
	precisions []string
	// useLongN builds each recipe for up to its longN (else fuzzN), and
	// maxInputs caps the inputs of a length checked, maxDecided those of
	// a length whose decisions alone are certified (0: maxInputs).
	useLongN              bool
	maxInputs, maxDecided int
	// The campaign draws models in batches until it has checked
	// minModels and enumerated minInputs at certified lengths, or drawn
	// maxModels.
	minModels, maxModels, minInputs int
	// want is the least the campaign must see: certified lengths,
	// wrong lengths (models is minModels, inputs minInputs), and per
	// kind of perturbation.
	want soundStats
}

// campaignBatch is the number of models a campaign draws before it
// looks at what it has seen.
const campaignBatch = 10

// campaign checks perturbed models drawn with a generator seeded by
// c.seed, each at every precision of c.precisions, on two goroutines, and
// logs what it saw; it fails when that is too little for the test to
// mean anything: so few certified lengths or wrong ones that a harness
// certifying nothing, or perturbing nothing that matters, would pass.
func campaign(t *testing.T, c campaignSpec) {
	t.Logf("seed %d (-certify.seed to change it): models at %s, lengths of at most %d inputs, until %d models and %d inputs at certified lengths (at most %d models)",
		c.seed, strings.Join(c.precisions, ", "), c.maxInputs, c.minModels, c.minInputs, c.maxModels)
	// The heap live between collections is small (the cached recipes),
	// and the runs allocate much: at Go's default the collector took a
	// fifth of the campaign's CPU.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	cpu0, _ := testenv.ProcessCPU()
	rng := rand.New(rand.NewPCG(c.seed, 0xce27))
	type job struct {
		in         soundInput
		nMax, draw int
	}
	var mu sync.Mutex
	var total soundStats
	// checked[d] says draw d made a perturbed model some precision
	// could run (a perturbation may find nothing to change).
	var checked []bool
	distinct, drawn := 0, 0
	for drawn < c.maxModels && (distinct < c.minModels || total.inputs < c.minInputs) {
		var jobs []job
		for range campaignBatch {
			in, nMax := drawSound(rng, c.useLongN)
			for _, p := range c.precisions {
				in.precision = p
				jobs = append(jobs, job{in, nMax, drawn})
			}
			checked = append(checked, false)
			drawn++
		}
		var wg sync.WaitGroup
		next := make(chan job)
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range next {
					st := checkSound(t, j.in, limits{n: j.nMax, inputs: c.maxInputs, decided: c.maxDecided})
					mu.Lock()
					total.add(st)
					checked[j.draw] = checked[j.draw] || st.models > 0
					mu.Unlock()
				}
			}()
		}
		for _, j := range jobs {
			next <- j
		}
		close(next)
		wg.Wait()
		distinct = 0
		for _, ok := range checked {
			if ok {
				distinct++
			}
		}
	}
	if cpu, ok := testenv.ProcessCPU(); ok {
		t.Logf("%.1f s of CPU", (cpu - cpu0).Seconds())
	}
	t.Logf("%d models drawn, %d perturbed models checked, %d (model, precision) pairs, %d lengths: %d (model, precision, n) certified, all right on the %d inputs enumerated there; %d lengths with a wrong input, none certified; decisions certified (not the outputs) at %d, all deciding right on the %d inputs enumerated there (%d more such lengths not enumerated); %d inputs run at the other lengths",
		drawn, distinct, total.models, total.lengths, total.certified, total.inputs, total.wrong, total.decided-total.decidedSkipped, total.decidedInputs, total.decidedSkipped, total.otherInputs)
	var kinds []string
	for k, n := range total.kinds {
		kinds = append(kinds, fmt.Sprintf("%s %d/%d/%d", kindNames[k], n.models, n.certified, n.wrong))
	}
	sort.Strings(kinds)
	t.Logf("by kind (models/certified lengths/wrong lengths): %s", strings.Join(kinds, ", "))
	var byRecipe []string
	for name, n := range total.byRecipe {
		byRecipe = append(byRecipe, fmt.Sprintf("%s %d/%d/%d", name, n[0], n[1], n[2]))
	}
	sort.Strings(byRecipe)
	t.Logf("by recipe (models/certified lengths/wrong lengths): %s", strings.Join(byRecipe, ", "))
	w := c.want
	if distinct < c.minModels || total.inputs < c.minInputs || total.certified < w.certified || total.wrong < w.wrong {
		t.Errorf("the campaign saw too little to mean anything: %d models, %d inputs at certified lengths, %d certified lengths, %d wrong lengths; want at least %d, %d, %d, %d",
			distinct, total.inputs, total.certified, total.wrong, c.minModels, c.minInputs, w.certified, w.wrong)
	}
	for k, n := range total.kinds {
		if n.certified < w.kinds[k].certified || n.wrong < w.kinds[k].wrong {
			t.Errorf("perturbations of kind %s: %d certified lengths and %d wrong, want at least %d and %d", kindNames[k], n.certified, n.wrong, w.kinds[k].certified, w.kinds[k].wrong)
		}
	}
}

// certifySeed seeds the perturbations of the campaigns, and the seeds
// FuzzCertifiedIsRight adds from the same generator, so that two fuzzing
// runs with different seeds start from different corpora.
var certifySeed = flag.Uint64("certify.seed", 1, "seed of the certification campaigns (TestCertifiedCampaign, TestLongCertifiedCampaign) and of the drawn seeds of FuzzCertifiedIsRight")

// everyKind is want with at least certified and wrong lengths for every
// kind of perturbation.
func everyKind(want soundStats, certified, wrong int) soundStats {
	for k := range want.kinds {
		want.kinds[k].certified, want.kinds[k].wrong = certified, wrong
	}
	return want
}

// TestCertifiedCampaign is the default tier's campaign: 60 perturbed
// models at exact arithmetic, fp16 and fp8-e4m3, lengths of at most 256
// inputs (a few seconds).
func TestCertifiedCampaign(t *testing.T) {
	campaign(t, campaignSpec{seed: *certifySeed, precisions: []string{"exact", "fp16", "fp8-e4m3"}, maxInputs: 256,
		minModels: 50, maxModels: 60, minInputs: 5000, want: soundStats{certified: 100, wrong: 200}})
}

// TestLongCertifiedCampaign is the long campaign: at least 100 perturbed
// models at exact, fp32, fp16, bf16 and fp8-e4m3, lengths of at most
// longMaxInputs inputs, until at least 3·10^5 inputs are enumerated at
// certified lengths, and every kind of perturbation seen both in a
// certified length and in a wrong one (-certify.seed draws other models).
func TestLongCertifiedCampaign(t *testing.T) {
	testenv.Long(t)
	campaign(t, campaignSpec{seed: *certifySeed, precisions: []string{"exact", "fp32", "fp16", "bf16", "fp8-e4m3"}, useLongN: true, maxInputs: longMaxInputs, maxDecided: longMaxInputs / 4,
		minModels: 100, maxModels: 200, minInputs: 300_000, want: everyKind(soundStats{certified: 500, wrong: 1000}, 8, 20)})
}

// TestEmbeddingStructureSweep is the systematic twin of the fuzz target's
// structural perturbations, on every configuration but the weak ones
// (weakConfigs), built for N = 3 under its first hard weighting: every
// entry of every word-embedding column constant over symbols raised by 1,
// symbol by symbol, and every entry of every position column constant
// over positions raised by 1, position by position, each model checked as
// checkSound checks it (lengths of at most 256 inputs) at one of exact
// arithmetic, fp16, fp32 and bf16 in turn. The fast order check's
// precedence slip was of this kind: the lookup with one symbol's j
// raised.
func TestEmbeddingStructureSweep(t *testing.T) {
	precisions := []string{"exact", "fp16", "fp32", "bf16"}
	var total soundStats
	for _, cfg := range soundConfigs {
		if slices.Contains(weakConfigs, cfg.name) {
			continue
		}
		r, err := recipes.Get(cfg.name)
		if err != nil {
			t.Fatal(err)
		}
		N := max(3, r.MinN)
		b := buildSound(cfg, hardWeightings(r)[0], N)
		if b.err != nil {
			t.Fatal(b.err)
		}
		m := b.con.Model
		cl := classesOf(m, positionRows(m, N), N)
		var ops [][]byte // deltas[0] is +1
		for k := range count(cl.wordConst) {
			for s := range m.Alphabet {
				ops = append(ops, []byte{kindWordEntry, byte(k), byte(s), 0, 0})
			}
		}
		for k := range count(cl.posConst) {
			for i := range N {
				ops = append(ops, []byte{kindPosEntry, byte(k), byte(i), 0, 0})
			}
		}
		for j, op := range ops {
			in := soundInput{cfg.name, 0, nFor(cfg.name, N), precisions[j%len(precisions)], op}
			total.add(checkSound(t, in, limits{n: N, inputs: 256}))
		}
	}
	t.Logf("%d perturbed models: %d lengths certified, all right on the %d inputs enumerated there; %d lengths with a wrong input, none certified",
		total.models, total.certified, total.inputs, total.wrong)
	if total.certified < 100 || total.wrong < 100 {
		t.Errorf("the sweep saw too little: %d certified lengths, %d wrong", total.certified, total.wrong)
	}
}

// count is the number of true entries of mask.
func count(mask []bool) int {
	k := 0
	for _, b := range mask {
		if b {
			k++
		}
	}
	return k
}

// proved reports whether a level of evidence is a proof that every input
// of the length is right: against the intended function (certified), or
// against the construction (faithful), which the enumeration here holds
// to the intended function too.
func proved(level check.Level) bool { return level == check.Certified || level == check.Faithful }

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
