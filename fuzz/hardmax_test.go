package fuzz

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// The probe of FuzzHardAttention reads the weights of one attention head
// off its outputs (as proofs' attnHardmaxProbe does). Its residual
// stream, for at most probeN positions, is
//
//	1, a, b, c, e_1 … e_probeN, α_1 … α_probeN
//
// where position j holds the one-hot e_j and the parts a_j, b_j, c_j of
// its score. The head has q = (1, 1, 256) from the constant, k_j =
// (a_j, b_j, c_j), so that the score q·k_j = a_j + b_j + 256 c_j is
// summed left to right, and v_j = e_j written to the α components; the
// readout is α. With the residual connection the α components start at
// 0, so position i outputs exactly the weights α_ij it gave each j.
//
// Three parts let the score reach every case in fp16 from finite inputs:
// a + b overflows to ±Inf (a masked position, −Inf, when both are
// −65504), 256 c overflows on its own, and +Inf + (−Inf) is a NaN score.
const probeN = 8

const (
	probeOne = 0
	probeA   = 1
	probeB   = 2
	probeC   = 3
	probeE   = 4 // e_j at probeE + j − 1
	probeD   = 4 + 2*probeN
)

func probeAlpha(j int) int { return probeE + probeN + j - 1 } // α_j, 1-based j

var (
	probeWeightings = []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax}
	probeMasks      = []model.Mask{model.NoMask, model.Future, model.StrictFuture, model.Past, model.StrictPast}
	probeFormats    = []string{"exact", "fp16", "bf16"}
)

// scoreParts are the values a score part takes, chosen by a byte: small
// integers and duplicates (ties), fp16 neighbours and midpoints (1 + 2^-10
// is the next fp16 after 1; 1 + 2^-11 and 2049 round to 1 and 2048, ties
// in fp16 that exact arithmetic separates), subnormals, fp16's largest
// values (two of them overflow), and 1/3, which no binary format holds.
// Every part is finite in fp16 and bf16, so that inputs are.
var scoreParts = []*big.Rat{
	big.NewRat(0, 1), big.NewRat(0, 1), big.NewRat(0, 1), big.NewRat(1, 1),
	big.NewRat(-1, 1), big.NewRat(2, 1), big.NewRat(3, 1), big.NewRat(-3, 1),
	big.NewRat(2048, 1), big.NewRat(2049, 1), big.NewRat(2050, 1),
	new(big.Rat).Add(big.NewRat(1, 1), pow2(-10)), new(big.Rat).Add(big.NewRat(1, 1), pow2(-11)),
	new(big.Rat).Sub(big.NewRat(1, 1), pow2(-11)), pow2(-10), pow2(-11),
	pow2(-24), pow2(-25), new(big.Rat).Neg(pow2(-24)),
	big.NewRat(65504, 1), big.NewRat(-65504, 1), big.NewRat(32768, 1), big.NewRat(1, 3),
}

// cParts are the values of the third part c, scaled by 256 in the score:
// mostly 0, sometimes an overflow of 256 c alone (±300 → ±76800 > 65504
// in fp16), sometimes a small nudge.
var cParts = []*big.Rat{
	big.NewRat(0, 1), big.NewRat(0, 1), big.NewRat(0, 1), big.NewRat(0, 1),
	big.NewRat(300, 1), big.NewRat(-300, 1), big.NewRat(1, 256), big.NewRat(-1, 256),
}

func pow2(k int) *big.Rat {
	r := big.NewRat(1, 1)
	if k >= 0 {
		return r.SetInt(new(big.Int).Lsh(big.NewInt(1), uint(k)))
	}
	return r.SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-k)))
}

// probeModel is the one-head probe under weighting w and mask m.
func probeModel(w model.Weighting, m model.Mask) *model.Model {
	lit := numeric.LitInt
	q, k, v := model.Zeros(3, probeD), model.Zeros(3, probeD), model.Zeros(probeD, probeD)
	q.Set(0, probeOne, lit(1))
	q.Set(1, probeOne, lit(1))
	q.Set(2, probeOne, lit(256))
	k.Set(0, probeA, lit(1))
	k.Set(1, probeB, lit(1))
	k.Set(2, probeC, lit(1))
	out := model.Zeros(probeN, probeD)
	labels := make([]string, probeN)
	for j := 1; j <= probeN; j++ {
		v.Set(probeAlpha(j), probeE+j-1, lit(1))
		out.Set(j-1, probeAlpha(j), lit(1))
		labels[j-1] = fmt.Sprintf("α%d", j)
	}
	return &model.Model{
		Name:          "hard-attention-probe",
		Alphabet:      []string{"x"},
		WordEmbedding: []model.Vector{make(model.Vector, probeD)},
		D:             probeD,
		Layers: []model.Layer{{Attention: &model.Attention{
			Heads: []model.Head{{Q: q, K: k, V: v}}, Mask: m, Weighting: w, Scale: model.NoScale,
		}}},
		Output: model.Output{Kind: model.Readout, W: out, Labels: labels},
	}
}

type probeKey struct {
	w      model.Weighting
	m      model.Mask
	format string
}

var probes sync.Map // probeKey → func() eval.Runner

func probeRunner(key probeKey) eval.Runner {
	f, _ := probes.LoadOrStore(key, sync.OnceValue(func() eval.Runner {
		r, err := eval.New(numeric.MustParsePrecision(key.format), probeModel(key.w, key.m))
		if err != nil {
			panic(err)
		}
		return r
	}))
	return f.(func() eval.Runner)()
}

// FuzzHardAttention checks the hard attention weightings (Definition
// Hardmax) as the model computes them, on score vectors with ties, near
// ties, overflowed (−∞, +∞) and NaN scores, under every mask: leftmost
// and rightmost hardmax put weight 1 on the leftmost or rightmost maximal
// score among the positions the mask lets position i see, average hardmax
// weight 1/|ties| on each maximal one (1/|ties| rounded to the format), a
// NaN score among them makes every weight NaN (model/eval/attention.go: "as
// softmax gives"), and a position that sees nothing (strict masks at the
// first or last position) outputs 0. The reference is written here from
// those definitions, with the scores computed in the format's arithmetic
// (each part rounded to the format as RunStream stores it, then summed
// left to right with one rounding per addition, as the model's dot
// product does), so that fp16 ties that exact arithmetic separates, and
// −∞ = −∞ ties among masked scores, are predicted rather than excused.
//
// The input chooses the weighting, the mask, the format (exact, fp16,
// bf16) and, three bytes per position, the parts a_j, b_j, c_j of the
// scores; at most probeN positions.
func FuzzHardAttention(f *testing.F) {
	// Seeds: each pattern under every weighting and format, each under
	// one of the masks in turn.
	patterns := [][]byte{
		{3, 0, 0, 3, 0, 0, 4, 0, 0},             // 1, 1, −1: a tie
		{3, 0, 0, 3, 0, 0, 3, 0, 0, 3, 0, 0},    // four equal scores
		{8, 0, 0, 9, 0, 0, 8, 3, 0},             // 2048, 2049, 2049: all tie in fp16
		{3, 0, 0, 12, 0, 0, 11, 0, 0},           // 1, 1 + 2^-11, 1 + 2^-10: fp16's neighbours
		{20, 20, 0, 20, 20, 0, 20, 20, 0},       // every score −∞ in fp16
		{20, 20, 0, 3, 0, 0, 20, 20, 0},         // −∞, 1, −∞
		{19, 19, 5, 3, 0, 0, 0, 0, 0},           // +∞ + (−∞): a NaN score in fp16
		{19, 0, 4, 19, 0, 0, 21, 21, 0},         // +∞ twice in fp16, distinct in bf16
		{16, 0, 0, 17, 0, 0, 18, 0, 0},          // subnormals: 2^-25 rounds to 0 in fp16
		{22, 0, 0, 22, 0, 0, 22, 0, 0, 1, 0, 0}, // 1/3 three times, and 0
	}
	for p, parts := range patterns {
		for w := range probeWeightings {
			for fm := range probeFormats {
				f.Add(uint8(w), uint8((p+w)%len(probeMasks)), uint8(fm), parts)
			}
		}
	}
	f.Fuzz(func(t *testing.T, wb, mb, fb uint8, parts []byte) {
		key := probeKey{probeWeightings[int(wb)%len(probeWeightings)], probeMasks[int(mb)%len(probeMasks)], probeFormats[int(fb)%len(probeFormats)]}
		n := min(len(parts)/3, probeN)
		if n == 0 {
			t.Skip("no positions")
		}
		a, b, c := make([]*big.Rat, n), make([]*big.Rat, n), make([]*big.Rat, n)
		h0 := make([][]*big.Rat, n)
		for j := range n {
			a[j] = scoreParts[int(parts[3*j])%len(scoreParts)]
			b[j] = scoreParts[int(parts[3*j+1])%len(scoreParts)]
			c[j] = cParts[int(parts[3*j+2])%len(cParts)]
			h0[j] = make([]*big.Rat, probeD)
			h0[j][probeOne] = big.NewRat(1, 1)
			h0[j][probeA], h0[j][probeB], h0[j][probeC] = a[j], b[j], c[j]
			h0[j][probeE+j] = big.NewRat(1, 1)
		}
		res, err := probeRunner(key).RunStream(h0, false)
		if err != nil {
			t.Fatalf("%v: %v", key, err)
		}
		want, scores := hardmaxReference(key, a, b, c)
		for i := range n {
			got := res.Outputs[i].Values
			for j := range n {
				if !sameWeight(got[j], want[i][j]) {
					t.Fatalf("%s under %s, mask %s: scores %s (parts a, b, c: %s): position %d gives α%d = %s, want %s\n  weights %s",
						key.format, key.w, key.m, scores, partsText(a, b, c), i+1, j+1, got[j].Text, weightText(want[i][j]), valuesText(got[:n]))
				}
			}
			// Positions beyond n do not exist: their components get 0, or
			// NaN when every weight is (NaN × 0 is NaN).
			beyond := weight{r: new(big.Rat), nan: want[i][0].nan}
			for j := n; j < probeN; j++ {
				if !sameWeight(got[j], beyond) {
					t.Fatalf("%s under %s, mask %s: scores %s: position %d gives α%d = %s beyond n = %d, want %s",
						key.format, key.w, key.m, scores, i+1, j+1, got[j].Text, n, weightText(beyond))
				}
			}
		}
	})
}

// weight is an expected attention weight: a rational, or NaN.
type weight struct {
	r   *big.Rat
	nan bool
}

func sameWeight(v eval.Value, w weight) bool {
	if w.nan {
		return !v.Finite() && strings.Contains(strings.ToLower(v.Text), "nan")
	}
	return v.Equals(w.r)
}

func weightText(w weight) string {
	if w.nan {
		return "NaN"
	}
	return w.r.RatString()
}

// visible is the mask's rule, written from Mask's documentation: whether
// position i may attend to position j (both 1-based).
func visible(m model.Mask, i, j int) bool {
	switch m {
	case model.Future:
		return j <= i
	case model.StrictFuture:
		return j < i
	case model.Past:
		return j >= i
	case model.StrictPast:
		return j > i
	}
	return true
}

// hardmaxReference returns the weights want[i][j] of the probe at each
// position i for each j, and the scores as text. Scores are float64s that
// hold values of the format (±Inf and NaN included), or exact rationals.
func hardmaxReference(key probeKey, a, b, c []*big.Rat) ([][]weight, string) {
	n := len(a)
	exact := key.format == "exact"
	var fm *numeric.Format
	if !exact {
		fm = numeric.MustParsePrecision(key.format).Format
	}
	// add is IEEE addition in fm of two of its values.
	add := func(x, y float64) float64 {
		if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
			return x + y // Inf + finite, Inf + Inf, Inf − Inf = NaN: exact rules
		}
		s := new(big.Rat).Add(new(big.Rat).SetFloat64(x), new(big.Rat).SetFloat64(y))
		if s.Sign() == 0 {
			return x + y // the sign of an exact zero sum
		}
		return fm.RoundRat(s)
	}
	rs := make([]*big.Rat, n)  // exact scores
	fs := make([]float64, n)   // format scores
	texts := make([]string, n) // for reports
	for j := range n {
		if exact {
			rs[j] = new(big.Rat).Add(a[j], b[j])
			rs[j].Add(rs[j], new(big.Rat).Mul(big.NewRat(256, 1), c[j]))
			texts[j] = rs[j].RatString()
			continue
		}
		// The stream holds each part rounded; q = (1, 1, 256) is exact,
		// 1·a and 1·b are exact, 256·c is rounded (it may overflow).
		pa, pb, pc := fm.RoundRat(a[j]), fm.RoundRat(b[j]), fm.RoundRat(c[j])
		fs[j] = add(add(pa, pb), fm.Round(256*pc))
		texts[j] = fmt.Sprint(fs[j])
	}
	want := make([][]weight, n)
	for i := 1; i <= n; i++ {
		row := make([]weight, n)
		for j := range row {
			row[j] = weight{r: new(big.Rat)}
		}
		want[i-1] = row
		var seen []int // 0-based visible positions
		for j := 1; j <= n; j++ {
			if visible(key.m, i, j) {
				seen = append(seen, j-1)
			}
		}
		if len(seen) == 0 {
			continue // nothing to attend to: output 0
		}
		var ties []int
		if exact {
			best := rs[seen[0]]
			for _, j := range seen {
				if rs[j].Cmp(best) > 0 {
					best = rs[j]
				}
			}
			for _, j := range seen {
				if rs[j].Cmp(best) == 0 {
					ties = append(ties, j)
				}
			}
		} else {
			nan := false
			best := math.Inf(-1)
			for _, j := range seen {
				nan = nan || math.IsNaN(fs[j])
				best = math.Max(best, fs[j])
			}
			if nan {
				// Every weight NaN, so every output component is NaN:
				// NaN × e_j is NaN in every component.
				for j := range row {
					row[j] = weight{nan: true}
				}
				continue
			}
			for _, j := range seen {
				if fs[j] == best { // −0 = +0, −∞ = −∞
					ties = append(ties, j)
				}
			}
		}
		switch key.w {
		case model.LeftHardmax:
			row[ties[0]] = weight{r: big.NewRat(1, 1)}
		case model.RightHardmax:
			row[ties[len(ties)-1]] = weight{r: big.NewRat(1, 1)}
		case model.AverageHardmax:
			share := big.NewRat(1, int64(len(ties)))
			if !exact {
				share.SetFloat64(fm.RoundRat(share))
			}
			for _, j := range ties {
				row[j] = weight{r: share}
			}
		}
	}
	return want, "(" + strings.Join(texts, ", ") + ")"
}

func partsText(a, b, c []*big.Rat) string {
	var s []string
	for j := range a {
		s = append(s, a[j].RatString()+" "+b[j].RatString()+" "+c[j].RatString())
	}
	return strings.Join(s, "; ")
}

func valuesText(vs []eval.Value) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.Text)
	}
	return strings.Join(s, ", ")
}
