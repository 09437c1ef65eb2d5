package stream

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// relu2 is the FF block z = ReLU(a − b) over (a, b) → z.
func relu2(name, a, b, z string) *FF {
	return &FF{Name: name, In: []string{a, b}, Out: []string{z},
		W1: model.Ints([]int64{1, -1}), W2: model.Ints([]int64{1})}
}

// copyHead is an attention head reading (x, j) that averages x over the
// positions maximising j·1 = j: under a future mask, the current one.
func copyHead(name, x, out string, mask model.Mask) *Attn {
	return &Attn{Name: name, In: []string{x, "j"}, Out: []string{out},
		Q: model.Ints([]int64{0, 0}), K: model.Ints([]int64{0, 0}),
		V: model.Ints([]int64{1, 0}), Mask: mask, Weighting: model.AverageHardmax, Scale: model.NoScale}
}

func rats(xs ...int64) map[string]*big.Rat {
	m := map[string]*big.Rat{}
	for i := 0; i+1 < len(xs); i += 2 {
		m[string(rune('a'+xs[i]))] = big.NewRat(xs[i+1], 1)
	}
	return m
}

func runStream(t *testing.T, m *model.Model, pos ...map[string]*big.Rat) []eval.PositionOutput {
	t.Helper()
	r, err := eval.New(numeric.MustParsePrecision("exact"), m)
	if err != nil {
		t.Fatal(err)
	}
	h0, err := Stream(m, pos)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.RunStream(h0, false)
	if err != nil {
		t.Fatal(err)
	}
	return res.Outputs
}

// TestStreamErrors: every misuse is an error that names what is wrong,
// never a model.
func TestStreamErrors(t *testing.T) {
	tests := []struct {
		name string
		p    *Program
		want string
	}{
		{"write twice across sublayers",
			New("p", "a", "b").Then(relu2("f", "a", "b", "z"), relu2("g", "b", "a", "z")).Readout("z"),
			`writes "z", which feed-forward block "f" already wrote`},
		{"write an input",
			New("p", "a", "b").Then(relu2("f", "a", "b", "a")).Readout("a"),
			`writes "a", which the input already wrote`},
		{"write twice in parallel",
			New("p", "a", "b").Then(Parallel(relu2("f", "a", "b", "z"), relu2("g", "b", "a", "z"))).Readout("z"),
			`both write "z"`},
		{"read what nothing wrote",
			New("p", "a").Then(relu2("f", "a", "b", "z")).Readout("z"),
			`reads "b", which nothing before it writes`},
		{"read what a later block writes",
			New("p", "a", "b").Then(relu2("f", "a", "y", "z"), relu2("g", "a", "b", "y")).Readout("z"),
			`reads "y", which nothing before it writes`},
		{"read a sibling's output",
			New("p", "a", "b").Then(Parallel(relu2("f", "a", "y", "z"), relu2("g", "a", "b", "y"))).Readout("z"),
			`reads "y", which feed-forward block "g" writes in the same sublayer`},
		{"mixed parallel",
			New("p", "a", "b", "j").Then(Parallel(relu2("f", "a", "b", "z"), copyHead("h", "a", "c", model.Future))).Readout("z"),
			"mixes attention and feed-forward"},
		{"heads disagree on the mask",
			New("p", "a", "j").Then(Parallel(copyHead("h1", "a", "c", model.Future), copyHead("h2", "a", "d", model.NoMask))).Readout("c"),
			"cannot share a sublayer"},
		{"activations disagree",
			New("p", "a", "b").Then(Parallel(relu2("f", "a", "b", "z"), &FF{Name: "g", In: []string{"a"}, Out: []string{"w"},
				W1: model.Ints([]int64{1}), W2: model.Ints([]int64{1}), Activation: model.GELU})).Readout("z"),
			"cannot share a sublayer"},
		{"bad W1 shape",
			New("p", "a", "b").Then(&FF{Name: "f", In: []string{"a", "b"}, Out: []string{"z"},
				W1: model.Ints([]int64{1}), W2: model.Ints([]int64{1})}).Readout("z"),
			`feed-forward block "f": W1 is 1×1, want 1×2`},
		{"bad W^V shape",
			New("p", "a", "j").Then(&Attn{Name: "h", In: []string{"a", "j"}, Out: []string{"c"},
				Q: model.Ints([]int64{0, 0}), K: model.Ints([]int64{0, 0}), V: model.Ints([]int64{1})}).Readout("c"),
			`attention block "h": W^V is 1×1, want 1×2`},
		{"read twice",
			New("p", "a").Then(relu2("f", "a", "a", "z")).Readout("z"),
			`reads "a" twice`},
		{"output of nothing",
			New("p", "a", "b").Then(relu2("f", "a", "b", "z")).Readout("w"),
			`the output reads "w", which nothing writes`},
		{"accumulate into nothing",
			New("p", "a").Then(&FF{Name: "f", In: []string{"a"}, Out: []string{"q"}, W1: model.Ints([]int64{1}),
				W2: model.Ints([]int64{-1}), Accumulate: true}).Readout("a"),
			`adds to "q", which nothing before it writes`},
		{"no output", New("p", "a", "b").Then(relu2("f", "a", "b", "z")), "no output"},
		{"embedding of a non-input",
			New("p", "a").Symbols([]string{"0"}, func(int) Values { return Values{"z": numeric.LitInt(1)} }).Readout("a"),
			`the embedding of "0" sets "z", which is not an input component`},
		{"columns of a non-input",
			New("p", "a").SymbolsOf([]string{"0"}, []string{"a", "z"}, func(int, []numeric.Expr) {}).Readout("a"),
			`the word embedding sets "z", which is not an input component`},
		{"a column twice",
			New("p", "a", "b").SymbolsOf([]string{"0"}, []string{"a", "b", "a"}, func(int, []numeric.Expr) {}).Readout("a"),
			`the word embedding's columns name "a" twice`},
	}
	for _, tc := range tests {
		m, err := tc.p.Model()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: model %v, error %v; want an error containing %q", tc.name, m != nil, err, tc.want)
		}
	}
}

// TestStreamRouting: a block written over its own two inputs works in
// place inside a wider stream (L∘ff∘R), and leaves every other component
// as it was: z = ReLU(a − b) by hand.
func TestStreamRouting(t *testing.T) {
	m, err := New("p", "e", "a", "d", "b").Then(relu2("f", "a", "b", "z")).Readout("e", "a", "d", "b", "z").Model()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"e", "a", "d", "b", "z"}; !slices.Equal(m.Components, want) {
		t.Fatalf("components %v, want %v", m.Components, want)
	}
	for _, tc := range []struct{ a, b, z int64 }{{5, 2, 3}, {2, 5, 0}, {-1, -4, 3}, {7, 7, 0}} {
		// e and d hold values the block must not touch.
		out := runStream(t, m, map[string]*big.Rat{"e": big.NewRat(11, 1), "a": big.NewRat(tc.a, 1), "d": big.NewRat(-13, 1), "b": big.NewRat(tc.b, 1)})
		for k, want := range []int64{11, tc.a, -13, tc.b, tc.z} {
			if !out[0].Values[k].Equals(big.NewRat(want, 1)) {
				t.Errorf("a=%d b=%d: %s = %s, want %d", tc.a, tc.b, m.Components[k], out[0].Values[k].Text, want)
			}
		}
	}
}

// TestStreamPacking: sublayers pack into layers in order, an attention
// sublayer starting a layer and a feed-forward one ending it; parallel
// feed-forward blocks share one sublayer with their hidden units
// concatenated, parallel heads one attention sublayer.
func TestStreamPacking(t *testing.T) {
	p := New("p", "a", "b", "j").Then(
		copyHead("h1", "a", "c", model.Future),
		relu2("f1", "a", "b", "x"),
		Parallel(relu2("f2", "a", "b", "y"), relu2("f3", "b", "a", "w"), &FF{Name: "f4", In: []string{"a"}, Out: []string{"u", "v"},
			W1: model.Ints([]int64{1}, []int64{-1}, []int64{2}), W2: model.Ints([]int64{1, 0, 0}, []int64{0, 1, 1})}),
		Parallel(copyHead("h2", "x", "k", model.Future), copyHead("h3", "y", "l", model.Future)),
	).Readout("c", "x", "y", "w", "u", "v", "k", "l")
	m, err := p.Model()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Layers) != 3 {
		t.Fatalf("%d layers, want 3 (attn+ff, ff, attn)", len(m.Layers))
	}
	l := m.Layers
	if l[0].Attention == nil || l[0].FeedForward == nil || l[1].Attention != nil || l[1].FeedForward == nil || l[2].Attention == nil || l[2].FeedForward != nil {
		t.Fatalf("layer shapes wrong: %+v", l)
	}
	if h := l[1].FeedForward.W1.Rows; h != 1+1+3 {
		t.Errorf("parallel feed-forward has %d hidden units, want 5", h)
	}
	if h := len(l[2].Attention.Heads); h != 2 {
		t.Errorf("parallel attention has %d heads, want 2", h)
	}
	// a = 4, b = 1 at both positions: c = 4 (copy of a), x = y = 3, w = 0,
	// u = ReLU(4) = 4, v = ReLU(−4) + ReLU(8) = 8, k = 3, l = 3.
	pos := map[string]*big.Rat{"a": big.NewRat(4, 1), "b": big.NewRat(1, 1), "j": big.NewRat(1, 1)}
	out := runStream(t, m, pos, pos)
	for i := range out {
		for k, want := range []int64{4, 3, 3, 0, 4, 8, 3, 3} {
			if !out[i].Values[k].Equals(big.NewRat(want, 1)) {
				t.Errorf("position %d: %s = %s, want %d", i+1, p.output.labels[k], out[i].Values[k].Text, want)
			}
		}
	}
}

// prefixSum is a program over symbols 0/1 whose output s is the average of
// the bits up to each position (future mask, uniform scores).
func prefixAvg(name, bit, out string) *Program {
	return New(name, bit).
		Symbols([]string{"0", "1"}, func(s int) Values { return Values{bit: numeric.LitInt(int64(s))} }).
		Then(&Attn{Name: name, In: []string{bit}, Out: []string{out}, Q: model.Ints([]int64{0}), K: model.Ints([]int64{0}),
			V: model.Ints([]int64{1}), Mask: model.Future, Weighting: model.AverageHardmax, Scale: model.NoScale}).
		Readout(out)
}

// TestStreamWidenAndSerial: the parallel composition computes both
// programs side by side (Parallel Composition, with the embedding the
// concatenation of both), and the serial one feeds one into the other;
// expected values from the definitions, on every binary string up to 6.
func TestStreamWidenAndSerial(t *testing.T) {
	a := prefixAvg("avg", "x", "s")
	// b computes r = ReLU(x' − 0) where x' = 1 − x: the negated bit, its
	// embedding written by values or by columns (SymbolsOf).
	negate := &FF{Name: "r", In: []string{"x'"}, Out: []string{"r"}, W1: model.Ints([]int64{1}), W2: model.Ints([]int64{1})}
	for _, b := range []*Program{
		New("neg", "x'").
			Symbols([]string{"0", "1"}, func(s int) Values { return Values{"x'": numeric.LitInt(int64(1 - s))} }).
			Then(negate).Readout("r"),
		New("neg", "x'").
			SymbolsOf([]string{"0", "1"}, []string{"x'"}, func(s int, v []numeric.Expr) { v[0] = numeric.LitInt(int64(1 - s)) }).
			Then(negate).Readout("r"),
	} {
		testWiden(t, a, b)
	}
	if _, err := Widen(a, a); err == nil || !strings.Contains(err.Error(), `both set component "x"`) {
		t.Errorf("widening a program with itself: %v, want a name clash", err)
	}

	// Serial: after the average s, a feed-forward block computes
	// t = ReLU(s − 1/2)·2 = 2 max(s − 1/2, 0).
	tail := New("tail", "s").Then(&FF{Name: "t", In: []string{"s"}, Out: []string{"t"},
		W1: model.Ints([]int64{1}), B1: model.RatVector(big.NewRat(-1, 2)), W2: model.Ints([]int64{2})}).Readout("t")
	sm, err := Serial(a, tail).Model()
	if err != nil {
		t.Fatal(err)
	}
	run, err := eval.New(numeric.MustParsePrecision("exact"), sm)
	if err != nil {
		t.Fatal(err)
	}
	res, err := run.Run([]int{1, 1, 0, 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	// s = 1, 1, 2/3, 3/4 → t = 1, 1, 1/3, 1/2.
	for i, want := range []*big.Rat{big.NewRat(1, 1), big.NewRat(1, 1), big.NewRat(1, 3), big.NewRat(1, 2)} {
		if !res.Outputs[i].Values[0].Equals(want) {
			t.Errorf("serial position %d: t = %s, want %s", i+1, res.Outputs[i].Values[0].Text, want.RatString())
		}
	}
	// Serial composition of programs that both write s is an error.
	if _, err := Serial(a, a).Model(); err == nil || !strings.Contains(err.Error(), `writes "s"`) {
		t.Errorf("serial a∘a: %v, want a write-twice error", err)
	}
}

// testWiden checks a ⊕ b, the prefix average s beside the negated bit r,
// on every binary string up to length 6.
func testWiden(t *testing.T, a, b *Program) {
	t.Helper()
	w, err := Widen(a, b)
	if err != nil {
		t.Fatal(err)
	}
	m, err := w.Model()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Layers) != 1 {
		t.Errorf("widened program has %d layers, want 1", len(m.Layers))
	}
	run, err := eval.New(numeric.MustParsePrecision("exact"), m)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 6; n++ {
		for bits := 0; bits < 1<<n; bits++ {
			in := make([]int, n)
			for i := range in {
				in[i] = bits >> i & 1
			}
			res, err := run.Run(in, false)
			if err != nil {
				t.Fatal(err)
			}
			ones := 0
			for i, x := range in {
				ones += x
				s, r := big.NewRat(int64(ones), int64(i+1)), big.NewRat(int64(1-x), 1)
				if got := res.Outputs[i].Values; !got[0].Equals(s) || !got[1].Equals(r) {
					t.Fatalf("%s: input %v position %d: (s, r) = (%s, %s), want (%s, %s)", b.Name, in, i+1, got[0].Text, got[1].Text, s.RatString(), r.RatString())
				}
			}
		}
	}
}

// TestStreamSelectiveNorm: a head with Norm reads LN(W^N x) of its inputs
// only. With inputs (u, w) = (3, 1) the norm gives ((3−2)/1, (1−2)/1) =
// (1, −1) (mean 2, variance 1, ε = 0), whatever the other components
// hold; the head copies the first normalised value.
func TestStreamSelectiveNorm(t *testing.T) {
	p := New("p", "u", "w", "z").Then(&Attn{Name: "h", In: []string{"u", "w"}, Out: []string{"c"},
		Q: model.Ints([]int64{0, 0}), K: model.Ints([]int64{0, 0}), V: model.Ints([]int64{1, 0}),
		Weighting: model.AverageHardmax, Scale: model.NoScale, Norm: &Norm{Eps: numeric.LitInt(0)}}).Readout("c")
	m, err := p.Model()
	if err != nil {
		t.Fatal(err)
	}
	if m.Norm != model.PreNorm || m.Layers[0].AttentionNorm == nil || m.Layers[0].AttentionNorm.Select == nil {
		t.Fatalf("no selective pre-norm: %+v", m.Layers[0])
	}
	out := runStream(t, m, map[string]*big.Rat{"u": big.NewRat(3, 1), "w": big.NewRat(1, 1), "z": big.NewRat(100, 1)})
	if !out[0].Values[0].Equals(big.NewRat(1, 1)) {
		t.Errorf("c = %s, want 1", out[0].Values[0].Text)
	}
}

// TestStreamPositionFormula: a formula is placed on the model's
// components (a one-hot on consecutive ones), survives Widen when both
// sides have one, is dropped when a side has only a function, and a
// formula on a component that is not an input, or a one-hot on components
// that are not consecutive, is an error.
func TestStreamPositionFormula(t *testing.T) {
	ratio := func(name string, comps ...string) *Program {
		return New(name, comps...).
			Symbols([]string{"a"}, func(int) Values { return nil }).
			Positions("i/n", func(i, n int) Values { return Values{comps[0]: numeric.Frac(int64(i), int64(n))} }).
			Formula(Pos(model.PosIOverN, comps[0])).
			Readout(comps[0])
	}
	onehot := New("onehot", "e1", "e2", "e3").
		Symbols([]string{"a"}, func(int) Values { return nil }).
		Positions("e_i", func(i, n int) Values { return Values{[]string{"e1", "e2", "e3"}[i-1]: numeric.LitInt(1)} }).
		Formula(Pos(model.PosOneHot, "e1", "e2", "e3")).
		Readout("e1")
	w, err := Widen(ratio("r", "r"), onehot)
	if err != nil {
		t.Fatal(err)
	}
	m, err := w.Model()
	if err != nil {
		t.Fatal(err)
	}
	want := []model.PositionTerm{{Function: model.PosIOverN, Component: 0}, {Function: model.PosOneHot, Component: 1, Size: 3}}
	if fmt.Sprint(m.Position.Terms) != fmt.Sprint(want) {
		t.Errorf("widened terms %+v, want %+v", m.Position.Terms, want)
	}
	if dep, known := m.Position.DependsOnN(); !dep || !known {
		t.Errorf("DependsOnN = %v, %v, want true, true", dep, known)
	}
	fn := New("fn", "f").Symbols([]string{"a"}, func(int) Values { return nil }).
		Positions("f", func(i, n int) Values { return Values{"f": numeric.LitInt(int64(n))} }).Readout("f")
	w, err = Widen(ratio("r", "r"), fn)
	if err != nil {
		t.Fatal(err)
	}
	if m, err = w.Model(); err != nil || m.Position.Terms != nil {
		t.Errorf("widened with a function: terms %v (%v), want none", m.Position.Terms, err)
	}
	ofI := New("ofI", "g").Symbols([]string{"a"}, func(int) Values { return nil }).
		PositionsOfI("g", func(i int) Values { return Values{"g": numeric.LitInt(int64(i))} }).Readout("g")
	if m, err = ofI.Model(); err != nil || !m.Position.IndependentOfN || m.Position.Vector(2, 5)[0].String() != "2" {
		t.Errorf("PositionsOfI: %v, %+v", err, m.Position)
	}
	for _, tt := range []struct {
		p    *Program
		want string
	}{
		{ratio("bad", "r").Formula(Pos(model.PosI, "out")), `sets "out", which is not an input component`},
		{New("gap", "e1", "x", "e2").Symbols([]string{"a"}, func(int) Values { return nil }).
			Positions("e", func(i, n int) Values { return nil }).
			Formula(Pos(model.PosOneHot, "e1", "e2")).Readout("x"), "not consecutive components"},
	} {
		if _, err := tt.p.Model(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", tt.p.Name, err, tt.want)
		}
	}
}

// TestSymbolsOfLeavesZero: a column that embed leaves unset for a symbol
// is 0 in that symbol's row, whatever it set for the symbol before (the
// values are cleared between symbols), and the rows equal those Symbols
// builds from the same values as maps.
func TestSymbolsOfLeavesZero(t *testing.T) {
	alphabet := []string{"a", "b", "c", "d"}
	// Symbol s sets x = s + 1 when s is even, y = 7 when s is 0 or 3.
	cols := New("cols", "x", "y").SymbolsOf(alphabet, []string{"x", "y"}, func(s int, v []numeric.Expr) {
		if s%2 == 0 {
			v[0] = numeric.LitInt(int64(s + 1))
		}
		if s == 0 || s == 3 {
			v[1] = numeric.LitInt(7)
		}
	}).Readout("x", "y")
	maps := New("maps", "x", "y").Symbols(alphabet, func(s int) Values {
		v := Values{}
		if s%2 == 0 {
			v["x"] = numeric.LitInt(int64(s + 1))
		}
		if s == 0 || s == 3 {
			v["y"] = numeric.LitInt(7)
		}
		return v
	}).Readout("x", "y")
	want := [][2]int64{{1, 7}, {0, 0}, {3, 0}, {0, 7}}
	for _, p := range []*Program{cols, maps} {
		m, err := p.Model()
		if err != nil {
			t.Fatal(err)
		}
		for s, w := range want {
			for c, x := range w {
				var got *big.Rat
				if row := m.WordEmbedding[s]; row != nil {
					got, _, _ = row[c].Rat()
				}
				if got == nil || got.Cmp(big.NewRat(x, 1)) != 0 {
					t.Errorf("%s: symbol %q component %d = %v, want %d", p.Name, alphabet[s], c, got, x)
				}
			}
		}
	}
}
