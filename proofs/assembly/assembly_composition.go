package assembly

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ---------------------------------------------------------------------
// Serial and parallel composition, on Dyck-1 (§A Transformer
// Construction for Dyck-1) built from blocks.

// layer1 is the first layer of Dyck-1: o = ±1, Avg← writes B/i, the
// FFN E = ReLU(−B/i).
func layer1() *stream.Program {
	return stream.New("layer1", "o").
		Symbols(proofs.DyckAlphabet, func(s int) stream.Values { return stream.Values{"o": numeric.LitInt(int64(1 - 2*s))} }).
		Then(blocks.Avg([]string{"o"}, []string{"B/i"}, model.Future, model.AverageHardmax), blocks.NegPart("B/i", "E"))
}

// serialInputs are the components layer 2 reads.
var serialInputs = []string{"o", "B/i", "E"}

// layer2 is the second: Avg← of E writes t, and GTZero_{1/64}(t) g.
func layer2(p *stream.Program) *stream.Program {
	return p.Then(blocks.Avg([]string{"E"}, []string{"t"}, model.Future, model.AverageHardmax),
		blocks.GTZeroEps("t", "g", big.NewRat(1, 64), new(big.Rat)))
}

// outputs runs r on in and returns every output value.
func outputs(r eval.Runner, in []int) ([][]*big.Rat, error) {
	res, err := r.Run(in, false)
	if err != nil {
		return nil, err
	}
	return values(res)
}

func values(res *eval.Result) ([][]*big.Rat, error) {
	out := make([][]*big.Rat, len(res.Outputs))
	for i, o := range res.Outputs {
		for _, v := range o.Values {
			r, ok := v.Rat()
			if !ok {
				return nil, fmt.Errorf("position %d: output %s is not a number", i+1, v.Text)
			}
			out[i] = append(out[i], r)
		}
	}
	return out, nil
}

func same(a, b [][]*big.Rat) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for k := range a[i] {
			if a[i][k].Cmp(b[i][k]) != 0 {
				return false
			}
		}
	}
	return true
}

func rowsText(x [][]*big.Rat) string {
	var ps []string
	for _, row := range x {
		var vs []string
		for _, v := range row {
			vs = append(vs, v.RatString())
		}
		ps = append(ps, "("+strings.Join(vs, ", ")+")")
	}
	return strings.Join(ps, " ")
}

// serialModels builds Serial(a, b), a read out on the components b
// reads (bInputs), and b.
func serialModels(a, b *stream.Program, bInputs []string) (ser, ma, mb *model.Model, err error) {
	if ser, err = stream.Serial(a, b).Model(); err != nil {
		return nil, nil, nil, err
	}
	if ma, err = a.Readout(bInputs...).Model(); err != nil {
		return nil, nil, nil, err
	}
	mb, err = b.Model()
	return ser, ma, mb, err
}

// checkSerial compares the stacked model ser with running ma and then
// mb on ma's outputs (the components bInputs), on every string over
// {(, )} of length ≤ n.
func checkSerial(ser, ma, mb *model.Model, bInputs []string, n int) (*proofs.Evidence, error) {
	exactP := numeric.MustParsePrecision("exact")
	rs, err := eval.New(exactP, ser)
	if err != nil {
		return nil, err
	}
	ra, err := eval.New(exactP, ma)
	if err != nil {
		return nil, err
	}
	rb, err := eval.New(exactP, mb)
	if err != nil {
		return nil, err
	}
	inputs := proofs.Strings(proofs.DyckAlphabet, n)
	for _, in := range inputs {
		whole, err := outputs(rs, in)
		if err != nil {
			return nil, err
		}
		mid, err := outputs(ra, in)
		if err != nil {
			return nil, err
		}
		pos := make([]map[string]*big.Rat, len(in))
		for i := range pos {
			pos[i] = map[string]*big.Rat{}
			for k, c := range bInputs {
				pos[i][c] = mid[i][k]
			}
		}
		h0, err := stream.Stream(mb, pos)
		if err != nil {
			return nil, err
		}
		res, err := rb.RunStream(h0, false)
		if err != nil {
			return nil, err
		}
		seq, err := values(res)
		if err != nil {
			return nil, err
		}
		if !same(whole, seq) {
			s := fmt.Sprintf("on %q the stacked model gives %s, the two in sequence %s", proofs.Text(proofs.DyckAlphabet, in), rowsText(whole), rowsText(seq))
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("every string over {(, )} of length ≤ %d (%d strings), exact: the %d-layer stack of %s (%s) on %s (%s) equals running them in sequence",
		n, len(inputs), len(ser.Layers), mb.Name, plural.Of(len(mb.Layers), "layer"), ma.Name, plural.Of(len(ma.Layers), "layer"))}, nil
}

// opens is a program over {(, )} of one layer, with components of its
// own: c = 1 for "(" (0 for ")"), Avg← writes O/i, the FFN C/i = 1 − O/i.
func opens() *stream.Program {
	return stream.New("opens", "c").
		Symbols(proofs.DyckAlphabet, func(s int) stream.Values { return stream.Values{"c": numeric.LitInt(int64(1 - s))} }).
		Then(blocks.Avg([]string{"c"}, []string{"O/i"}, model.Future, model.AverageHardmax), blocks.Not("O/i", "C/i")).
		Readout("O/i", "C/i")
}

// checkConcat compares the model wide with [m1; m2] (outputs
// concatenated) on every string over alphabet of length ≤ n.
func checkConcat(wide, m1, m2 *model.Model, alphabet []string, n int, what string) (*proofs.Evidence, error) {
	exactP := numeric.MustParsePrecision("exact")
	rw, err := eval.New(exactP, wide)
	if err != nil {
		return nil, err
	}
	r1, err := eval.New(exactP, m1)
	if err != nil {
		return nil, err
	}
	r2, err := eval.New(exactP, m2)
	if err != nil {
		return nil, err
	}
	inputs := proofs.Strings(alphabet, n)
	for _, in := range inputs {
		got, err := outputs(rw, in)
		if err != nil {
			return nil, err
		}
		a, err := outputs(r1, in)
		if err != nil {
			return nil, err
		}
		b, err := outputs(r2, in)
		if err != nil {
			return nil, err
		}
		want := make([][]*big.Rat, len(in))
		for i := range want {
			want[i] = append(slices.Clone(a[i]), b[i]...)
		}
		if !same(got, want) {
			s := fmt.Sprintf("%s on %q: the widened transformer gives %s, [tf1; tf2] is %s", what, proofs.Text(alphabet, in), rowsText(got), rowsText(want))
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("%s: [tf1(w); tf2(w)] at every position of every string of length ≤ %d (%d strings), exact", what, n, len(inputs))}, nil
}

// widenLayer is the proof's widened layer f′ of width d for the layer
// f of width dOwn placed at offset off (0: the top block, f1′; d1: the
// bottom block, f2′): W^Q′ = [W^Q 0] (or [0 W^Q]), W^K′ likewise,
// W^V′ = [[W^V, 0], [0, 0]] (or [[0, 0], [0, W^V]]), W1′ = [[W1, 0],
// [0, 0]], b1′ = [b1; 0], W2′ = [[W2, 0], [0, 0]], b2′ = [b2; 0] (the
// zero block of the hidden layer has d − dOwn units, as the printed
// square block matrices have). literalW1 puts W2 where W1 goes, as the
// proof prints f1′.ff.W1.
func widenLayer(f model.Layer, dOwn, off, d int, literalW1 bool) (model.Layer, error) {
	if f.AttentionNorm != nil || f.FeedForwardNorm != nil {
		return model.Layer{}, fmt.Errorf("the lemma is for transformers without layer normalization")
	}
	out := model.Layer{NoAttentionResidual: f.NoAttentionResidual, NoFeedForwardResidual: f.NoFeedForwardResidual}
	if a := f.Attention; a != nil {
		wa := *a
		wa.Heads = nil
		for _, h := range a.Heads {
			q, k, v := model.Zeros(h.Q.Rows, d), model.Zeros(h.K.Rows, d), model.Zeros(d, d)
			for c := 0; c < dOwn; c++ {
				for r := 0; r < h.Q.Rows; r++ {
					q.Set(r, off+c, h.Q.At(r, c))
					k.Set(r, off+c, h.K.At(r, c))
				}
				for r := 0; r < dOwn; r++ {
					v.Set(off+r, off+c, h.V.At(r, c))
				}
			}
			wa.Heads = append(wa.Heads, model.Head{Q: q, K: k, V: v})
		}
		out.Attention = &wa
	}
	if ff := f.FeedForward; ff != nil {
		h := ff.W1.Rows
		first := ff.W1
		if literalW1 {
			first = ff.W2
			if first.Rows != h || first.Cols != dOwn {
				return model.Layer{}, fmt.Errorf("the printed f′.ff.W1 = [f.ff.W2 0; 0 0] needs W2 to be %d×%d, it is %d×%d", h, dOwn, first.Rows, first.Cols)
			}
		}
		extra := d - dOwn
		hOff := 0 // own hidden units first in f1′, after the zero block in f2′
		if off > 0 {
			hOff = extra
		}
		w := &model.FeedForward{W1: model.Zeros(h+extra, d), B1: make(model.Vector, h+extra),
			W2: model.Zeros(d, h+extra), B2: make(model.Vector, d), Activation: ff.Activation}
		for u := 0; u < h; u++ {
			for c := 0; c < dOwn; c++ {
				w.W1.Set(hOff+u, off+c, first.At(u, c))
			}
			if ff.B1 != nil {
				w.B1[hOff+u] = ff.B1[u]
			}
			for r := 0; r < dOwn; r++ {
				w.W2.Set(off+r, hOff+u, ff.W2.At(r, u))
			}
		}
		for r := 0; r < dOwn; r++ {
			if ff.B2 != nil {
				w.B2[off+r] = ff.B2[r]
			}
		}
		out.FeedForward = w
	}
	return out, nil
}

// widenStack is the proof of Parallel Composition: tf1 ⊕ tf2 with
// embedding [we1; we2] and [pe1; pe2], the shorter padded with trivial
// layers, and, for each ℓ, f2′ then f1′ ("stack f1′ on top of f2′"), or
// f1′ then f2′ when f1First. The readouts are placed block-diagonally.
func widenStack(m1, m2 *model.Model, f1First, literalW1 bool) (*model.Model, error) {
	if m1.Norm != model.NoNorm || m2.Norm != model.NoNorm {
		return nil, fmt.Errorf("the lemma is for transformers without layer normalization")
	}
	if !slices.Equal(m1.Alphabet, m2.Alphabet) {
		return nil, fmt.Errorf("the alphabets differ")
	}
	if m1.Output.Kind != model.Readout || m2.Output.Kind != model.Readout {
		return nil, fmt.Errorf("only readouts concatenate")
	}
	d1, d2 := m1.D, m2.D
	d := d1 + d2
	cat := func(a, b model.Vector) model.Vector {
		v := make(model.Vector, d)
		copy(v, a)
		copy(v[d1:], b)
		return v
	}
	w := &model.Model{Name: m1.Name + "⊕" + m2.Name, D: d, Alphabet: m1.Alphabet}
	for s := range m1.Alphabet {
		w.WordEmbedding = append(w.WordEmbedding, cat(m1.WordEmbedding[s], m2.WordEmbedding[s]))
	}
	if m1.Position != nil || m2.Position != nil {
		p1, p2 := m1.Position, m2.Position
		w.Position = &model.PositionEncoding{Name: "[pe1; pe2]", Vector: func(i, n int) model.Vector {
			var a, b model.Vector
			if p1 != nil {
				a = p1.Vector(i, n)
			}
			if p2 != nil {
				b = p2.Vector(i, n)
			}
			return cat(a, b)
		}}
	}
	for l := 0; l < max(len(m1.Layers), len(m2.Layers)); l++ {
		var a, b model.Layer // trivial layers: the identity, by the residual connections
		if l < len(m1.Layers) {
			a = m1.Layers[l]
		}
		if l < len(m2.Layers) {
			b = m2.Layers[l]
		}
		f1, err := widenLayer(a, d1, 0, d, literalW1)
		if err != nil {
			return nil, fmt.Errorf("layer %d of %s: %w", l+1, m1.Name, err)
		}
		f2, err := widenLayer(b, d2, d1, d, false)
		if err != nil {
			return nil, fmt.Errorf("layer %d of %s: %w", l+1, m2.Name, err)
		}
		if f1First {
			w.Layers = append(w.Layers, f1, f2)
		} else {
			w.Layers = append(w.Layers, f2, f1)
		}
	}
	o1, o2 := m1.Output.W, m2.Output.W
	out := model.Zeros(o1.Rows+o2.Rows, d)
	for r := 0; r < o1.Rows; r++ {
		for c := 0; c < d1; c++ {
			out.Set(r, c, o1.At(r, c))
		}
	}
	for r := 0; r < o2.Rows; r++ {
		for c := 0; c < d2; c++ {
			out.Set(o1.Rows+r, d1+c, o2.At(r, c))
		}
	}
	w.Output = model.Output{Kind: model.Readout, W: out, Labels: append(slices.Clone(m1.Output.Labels), m2.Output.Labels...)}
	return w, w.Validate()
}

// parallelModels are tf1 = dyck1 (AHAT, 2 layers, width 4, no position
// encoding) and tf2 = dyck12 (leftmost UHAT, check=max: 5 layers, width
// 10, strict future and strict past masks, position encoding (1, i/n)):
// different widths, depths, masks and weightings, which one multi-head
// layer per ℓ could not hold.
func parallelModels(n int) (*model.Model, *model.Model, error) {
	get := func(name string, w model.Weighting, params map[string]string) (*model.Model, error) {
		r, err := recipes.Get(name)
		if err != nil {
			return nil, err
		}
		con, err := r.Construct(w, n, params)
		if err != nil {
			return nil, err
		}
		return con.Model, nil
	}
	m1, err := get("dyck1", model.AverageHardmax, nil)
	if err != nil {
		return nil, nil, err
	}
	m2, err := get("dyck12", model.LeftHardmax, map[string]string{"check": "max"})
	return m1, m2, err
}

// typoModels are the one-layer transformers of the counterexample to
// the printed f1′.ff.W1: tf1 over the one symbol x, embedded (1, 1), one
// FFN sublayer with W1 = [[1, 2], [0, 1]], W2 = [[1, 0], [1, 1]]; tf2 of
// width 1, embedding 0, no layers.
func typoModels() (*model.Model, *model.Model) {
	tf1 := &model.Model{Name: "tf1", D: 2, Alphabet: []string{"x"}, WordEmbedding: []model.Vector{model.IntVector(1, 1)},
		Layers: []model.Layer{{FeedForward: &model.FeedForward{W1: model.Ints([]int64{1, 2}, []int64{0, 1}), W2: model.Ints([]int64{1, 0}, []int64{1, 1})}}},
		Output: model.Output{Kind: model.Readout, W: model.Identity(2), Labels: []string{"y1", "y2"}}}
	tf2 := &model.Model{Name: "tf2", D: 1, Alphabet: []string{"x"}, WordEmbedding: []model.Vector{model.IntVector(0)},
		Output: model.Output{Kind: model.Readout, W: model.Identity(1), Labels: []string{"z"}}}
	return tf1, tf2
}

var compositionClaims = []*proofs.Claim{
	{ID: "assembly.serial.stack", Section: "Composition operations", Label: "",
		Statement: "Serial Composition (thm:serial_comp): stacking tl2 on top of the layers of tl1 computes tl2(tl1(w))",
		Domain:    "tl1 = Dyck-1's first layer (Avg←, ReLU(−x)), tl2 = its second (Avg←) with GTZero_{1/64}, built from blocks and stacked by stream.Serial; every string over {(, )} of length ≤ 8; exact",
		Recorded:  proofs.Holds,
		Check:     checkSerialStack},
	{ID: "assembly.parallel.widen", Section: "Composition operations", Label: "",
		Statement: "Parallel Composition (thm:parallel_composition): (tf1 ⊕ tf2)(w) = [tf1(w); tf2(w)] at every position; here with the proof's remark \"with multi-head attention, f1 and f2 combine into a single layer\" (stream.Widen: one sublayer per sublayer, heads side by side, hidden units concatenated)",
		Domain:    "tf1 = Dyck-1 (2 layers; outputs B/i, t), tf2 = a 1-layer prefix count (outputs O/i, C/i), built from blocks, both future-masked AHAT; every string over {(, )} of length ≤ 7; exact",
		Recorded:  proofs.Holds,
		Check:     checkParallelWiden},
	{ID: "assembly.parallel.proof", Section: "Composition operations", Label: "",
		Statement: "the proof of Parallel Composition: widen each layer (W^Q′ = [W^Q 0], W^K′ = [W^K 0], W^V′ = [[W^V, 0], [0, 0]], ff blocks likewise, f2′ on the bottom block), pad the shorter with identity layers, \"stack f1′ on top of f2′, or the other way around\"; the other block passes through each widened layer by the residual connections (with f1′.ff.W1 built from f1.ff.W1)",
		Domain:    "tf1 = dyck1 (AHAT, width 4, 2 layers), tf2 = dyck12 (UHAT, check=max, width 10, 5 layers, strict masks, position encoding); both stacking orders; every string over {(, )} of length ≤ 6; exact",
		Recorded:  proofs.Holds,
		Check:     checkParallelProof},
	{ID: "assembly.parallel.proof-literal", Section: "Composition operations", Label: "",
		Statement: "the proof's f1′.ff.W1 = [[f1.ff.W2, 0], [0, 0]] (as printed) widens f1",
		Domain:    "tf1 of width 2, one FFN sublayer W1 = [[1, 2], [0, 1]], W2 = [[1, 0], [1, 1]], embedding (1, 1); tf2 of width 1 with no layers; the input \"x\"; exact",
		Recorded:  proofs.Refuted,
		Check:     checkParallelProofLiteral},
}

// checkSerialStack checks assembly.serial.stack.
func checkSerialStack() (*proofs.Evidence, error) {
	ser, ma, mb, err := serialModels(layer1(), layer2(stream.New("layer2", "o", "B/i", "E")).Readout("t", "g"), serialInputs)
	if err != nil {
		return nil, err
	}
	return checkSerial(ser, ma, mb, serialInputs, 8)
}

// checkParallelWiden checks assembly.parallel.widen.
func checkParallelWiden() (*proofs.Evidence, error) {
	tf1 := layer2(layer1()).Readout("B/i", "t")
	tf2 := opens()
	wide, err := stream.Widen(tf1, tf2)
	if err != nil {
		return nil, err
	}
	m, err := wide.Model()
	if err != nil {
		return nil, err
	}
	m1, err := tf1.Model()
	if err != nil {
		return nil, err
	}
	m2, err := tf2.Model()
	if err != nil {
		return nil, err
	}
	return checkConcat(m, m1, m2, proofs.DyckAlphabet, 7, fmt.Sprintf("stream.Widen (%s, width %d)", plural.Of(len(m.Layers), "layer"), m.D))
}

// checkParallelProof checks assembly.parallel.proof.
func checkParallelProof() (*proofs.Evidence, error) {
	m1, m2, err := parallelModels(6)
	if err != nil {
		return nil, err
	}
	var sums []string
	for _, f1First := range []bool{false, true} {
		w, err := widenStack(m1, m2, f1First, false)
		if err != nil {
			return nil, err
		}
		what := fmt.Sprintf("f1′ on top of f2′ (%s, width %d)", plural.Of(len(w.Layers), "layer"), w.D)
		if f1First {
			what = fmt.Sprintf("f2′ on top of f1′ (%s, width %d)", plural.Of(len(w.Layers), "layer"), w.D)
		}
		ev, err := checkConcat(w, m1, m2, proofs.DyckAlphabet, 6, what)
		if err != nil || ev.Verdict != proofs.Proved {
			return ev, err
		}
		sums = append(sums, ev.Summary)
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: strings.Join(sums, "; ")}, nil
}

// checkParallelProofLiteral checks assembly.parallel.proof-literal.
func checkParallelProofLiteral() (*proofs.Evidence, error) {
	tf1, tf2 := typoModels()
	w, err := widenStack(tf1, tf2, false, true)
	if err != nil {
		return nil, err
	}
	ev, err := checkConcat(w, tf1, tf2, []string{"x"}, 1, "f1′.ff.W1 = [[W2, 0], [0, 0]] as printed")
	if err == nil && ev.Verdict == proofs.Refuted {
		ev.Explain = append(ev.Explain, "by hand: tf1(x) = (1, 1) + W2 ReLU(W1 (1, 1)) = (1, 1) + W2 (3, 1) = (4, 5); the printed f1′ adds W2 ReLU(W2 (1, 1)) = W2 (1, 2) = (1, 3), giving (2, 4)")
	}
	return ev, err
}
