package frontier

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// The thresholds of the diagnosis, in units of the format's spacing (its
// unit in the last place) at the value concerned.
const (
	// roundingUnits: a value further than this from the reference is a
	// "rounding" cause; one rounding costs half a unit, so a few units
	// mean errors that accumulated or were amplified.
	roundingUnits = 4
	// gapUnits: a lead of the top score over another, as the format
	// computes them, at most this wide (or reversed by at most this
	// much) is a "gap" cause.
	gapUnits = 4
)

// exactLimit is the longest input run in exact arithmetic for the
// reference: an exact run costs O(n²) rational operations whose operands
// grow with n, so longer inputs use a floating-point reference instead.
const exactLimit = 2048

// minRefBits is the least significand width of the floating-point
// reference used where exact arithmetic cannot run the model (softmax's
// exp, layer norm's square root, irrational weights) or would be too
// slow; refBits widens it for wide formats.
const minRefBits = 256

// refBits is the reference's width for a P-bit format: at least
// minRefBits, and 64 bits beyond P, so that the reference's rounding stays
// some 2^-64 or more below the format's (a 256-bit reference would blame a
// 1000-bit format for the reference's own error).
func refBits(p numeric.Precision) int {
	return max(minRefBits, p.SignificandBits()+64)
}

// Diagnose explains why con's model, run by runner (a rounding format:
// fp16, bf16, fp32, fp64, fp8 or a P-bit bigfloat), gives a wrong output
// on input c at position pos (1-based): the first thing in the forward
// pass (embedding, layer 1 attention, layer 1 feed-forward, …, output)
// that the engine can see going wrong, where it can reach the output at
// pos. It runs c twice with the trace, exactly (or, where exact
// arithmetic cannot run the model or n > exactLimit, with a reference of
// refBits bits, max(256, P + 64) for a P-bit format, which Detail then
// names) and in the runner's format, and
// compares the two state by state, at the positions and components
// whose values flow to the output at pos through the masks and the
// nonzero weights. In each state it looks, in this order, for
//
//   - "overflow": a value the format holds as ±Inf or NaN (with the
//     weight, product or partial sum that left the range, where a
//     feed-forward replay finds it); a square or sum in a layer norm
//     beyond the range (which makes the normalised vector 0);
//   - in an attention sublayer whose output at a query position differs
//     from the reference's by more than a unit in the last place, with
//     the scores computed twice, exactly from the reference's residual
//     stream and as the format computes them from its own (each product
//     and partial sum of W^Q x, W^K x and q·k rounded in model's order):
//     "overflow" of a product, partial sum or score; "tie", two keys
//     whose exact scores differ but whose computed scores are equal at
//     the computed maximum, so that the weighting gives weight to the
//     wrong one; then "gap", a computed lead of the top key within
//     gapUnits units of the format's spacing, reversed (under a hardmax)
//     or narrow (under softmax). Both name only a partner key whose value
//     W^V h_j differs from the top key's, and the roundings and input
//     differences that lost the difference;
//   - "absorbed": in a feed-forward sublayer replayed in the format's
//     arithmetic, a sum acc + t (t ≠ 0) that came out acc, such as a
//     comparison's bias lost against its input; or a residual sum x + y
//     whose reference value moved while the format's stayed at x;
//   - "rounding": a value more than roundingUnits units away from the
//     reference (with where its input already differed, or which weight
//     the format rounds).
//
// When no state shows any of these, the first flowing value that differs
// from the reference at all is reported as "rounding": a value the
// format cannot hold, like 1/3, is the whole failure of a construction
// claimed exact. Detail is one line with the numbers, without the kind.
//
// Diagnose returns nil, nil when it sees nothing it can name: when the
// output at pos is right in the runner's format (recipes.Compare with
// con.Expected and con.Bounds), when the runner does not round (exact or
// interval precision: a failure there is the construction's, not the
// format's), and when the two runs agree everywhere (the construction
// itself is wrong, which no rounding explains). An error means it could
// not run: a bad position, or a model that neither exact arithmetic nor
// the reference can compute on c.
func Diagnose(con *recipes.Construction, runner model.Runner, c recipes.Case, pos int) (*Cause, error) {
	if con == nil || con.Model == nil || runner == nil {
		return nil, errors.New("diagnose: no construction or no runner")
	}
	n := c.Len()
	if n == 0 {
		return nil, errors.New("diagnose: empty input")
	}
	if pos < 1 || pos > n {
		return nil, fmt.Errorf("diagnose: position %d outside the input's 1 … %d", pos, n)
	}
	prec := runner.Precision()
	if prec.Kind == numeric.KindExact || prec.Kind == numeric.KindInterval {
		return nil, nil
	}
	if c.Stream != nil {
		// Both runs, and the reference output, see the input as the
		// format stores it: rounding an input is not the construction's
		// error (as in recipes.Check).
		c.Stream = recipes.RoundStream(runner, c.Stream)
	}
	// The reference, the costlier run, goes on while the format's runs
	// and is checked.
	type refRun struct {
		res  *model.Result
		note string
		err  error
	}
	refc := make(chan refRun, 1)
	go func() {
		res, note, err := reference(con.Model, c, refBits(prec))
		refc <- refRun{res, note, err}
	}()
	got, err := runCase(tracer(runner, con.Model), c)
	rr := <-refc
	if err != nil {
		return nil, fmt.Errorf("diagnose at %s: %w", prec, err)
	}
	if con.Expected != nil {
		want := con.Expected(c)
		if len(want) == len(got.Outputs) {
			if ok, _ := recipes.Compare(want[pos-1], got.Outputs[pos-1], con.Bounds, con.Model.Output.Labels); ok {
				return nil, nil
			}
		}
	}
	ref, note, err := rr.res, rr.note, rr.err
	if err != nil {
		return nil, err
	}
	d, err := newDiagnosis(con.Model, runner, ref, got, pos, note, refBits(prec))
	if err != nil {
		return nil, err
	}
	return d.cause(), nil
}

// runCase runs c with the trace: its symbols, or its initial stream.
func runCase(r model.Runner, c recipes.Case) (*model.Result, error) {
	if c.Stream != nil {
		return r.RunStream(c.Stream, true)
	}
	return r.Run(c.Symbols, true)
}

// reference runs c exactly, or, when exact arithmetic cannot (an
// irrational weight, softmax's exp, a square root) or the input is longer
// than exactLimit, at bits bits; note says which and why, for Detail.
func reference(m *model.Model, c recipes.Case, bits int) (*model.Result, string, error) {
	var why string
	if n := c.Len(); n > exactLimit {
		why = fmt.Sprintf("n = %d is too long for an exact run", n)
	} else {
		r, err := model.New(numeric.Precision{Kind: numeric.KindExact}, m)
		if err == nil {
			var res *model.Result
			if res, err = runCase(r, c); err == nil {
				return res, "", nil
			}
		}
		why = "exact arithmetic cannot run the model: " + err.Error()
		if errors.Is(err, numeric.ErrIrrational) {
			msg := err.Error()
			if k := strings.Index(msg, ": exact backend"); k >= 0 {
				msg = msg[:k]
			}
			why = "in exact arithmetic " + msg + " is irrational"
		}
	}
	r, err := model.Instantiate[*big.Float](fastFloat{numeric.NewBigFloat(uint(bits))}, m)
	if err != nil {
		return nil, "", fmt.Errorf("diagnose: no reference (%s; at %d bits: %w)", why, bits, err)
	}
	res, err := runCase(r, c)
	if err != nil {
		return nil, "", fmt.Errorf("diagnose: no reference (%s; at %d bits: %w)", why, bits, err)
	}
	return res, fmt.Sprintf("against a %d-bit reference: %s", bits, why), nil
}

// fastFloat is the bigfloat backend with a Format that stays fast for
// huge exponents. A trace prints every value it holds, and big.Float's
// shortest decimal of a softmax tail such as e^-100000 (an exponent of
// −144270 bits) takes minutes; such values print as an approximate
// decimal instead. The arithmetic is BigFloat's.
type fastFloat struct{ numeric.BigFloat }

func (fastFloat) Format(x *big.Float) string { return floatText(x, -1) }

// tracer returns the runner the format's traced run uses: runner itself,
// or for a bigfloat the same arithmetic with fastFloat's printing (the
// instantiation cannot fail where runner's did not).
func tracer(runner model.Runner, m *model.Model) model.Runner {
	p := runner.Precision()
	if p.Kind != numeric.KindBigFloat {
		return runner
	}
	if inst, err := model.Instantiate[*big.Float](fastFloat{numeric.NewBigFloat(p.Bits)}, m); err == nil {
		return inst
	}
	return runner
}

// floatText prints x with digits significant digits (−1: the shortest
// that reads back), or, beyond 2^±2048, approximately in a form that
// costs no decimal conversion of the whole exponent.
func floatText(x *big.Float, digits int) string {
	if x.IsInf() || x.Sign() == 0 {
		return x.Text('g', digits)
	}
	exp := x.MantExp(nil)
	if exp > -2048 && exp < 2048 {
		return x.Text('g', digits)
	}
	m, _ := new(big.Float).SetMantExp(x, -exp).Float64() // 0.5 ≤ |m| < 1
	l := math.Log10(math.Abs(m)) + float64(exp)*math.Log10(2)
	e10 := math.Floor(l)
	frac := math.Copysign(math.Pow(10, l-e10), m)
	if digits < 0 {
		digits = 6
	}
	return strconv.FormatFloat(frac, 'g', digits, 64) + "e" + strconv.Itoa(int(e10))
}

// stateInfo says which sublayer produced a state of the trace, and how.
type stateInfo struct {
	label string
	// layer is the 0-based layer of an attention or feed-forward state,
	// −1 for the first state and the final norm.
	layer int
	attn  bool
	// sum: the state is the previous one plus the sublayer's output
	// (a residual connection, and no post-norm after it).
	sum bool
	// normedInput: the sublayer reads a layer norm of the previous state
	// (pre-norm), not the state itself.
	normedInput bool
	// residual: the sublayer has its residual connection; postNorm: a
	// layer norm follows the sum; norm is the sublayer's layer norm (pre-
	// or post-), or the final norm.
	residual bool
	postNorm bool
	norm     *model.LayerNorm
}

// stateInfos lists the states model.Run traces, in its order.
func stateInfos(m *model.Model, first string) []stateInfo {
	infos := []stateInfo{{label: first, layer: -1}}
	for l, layer := range m.Layers {
		where := fmt.Sprintf("layer %d", l+1)
		attnNorm, ffNorm := layer.AttentionNorm, layer.FeedForwardNorm
		if m.Norm == model.NoNorm {
			attnNorm, ffNorm = nil, nil
		}
		if layer.Attention != nil || attnNorm != nil {
			infos = append(infos, stateInfo{
				label: where + " attention", layer: l, attn: layer.Attention != nil,
				sum:         !layer.NoAttentionResidual && (attnNorm == nil || m.Norm == model.PreNorm),
				normedInput: attnNorm != nil && m.Norm == model.PreNorm,
				residual:    !layer.NoAttentionResidual, postNorm: attnNorm != nil && m.Norm == model.PostNorm, norm: attnNorm,
			})
		}
		if layer.FeedForward != nil || ffNorm != nil {
			infos = append(infos, stateInfo{
				label: where + " feed-forward", layer: l,
				sum:         !layer.NoFeedForwardResidual && (ffNorm == nil || m.Norm == model.PreNorm),
				normedInput: ffNorm != nil && m.Norm == model.PreNorm,
				residual:    !layer.NoFeedForwardResidual, postNorm: ffNorm != nil && m.Norm == model.PostNorm, norm: ffNorm,
			})
		}
	}
	if m.Norm == model.PreNorm && m.FinalNorm != nil {
		infos = append(infos, stateInfo{label: "final norm", layer: -1, norm: m.FinalNorm})
	}
	return infos
}

// diagnosis holds the two traced runs of one case.
type diagnosis struct {
	m      *model.Model
	runner model.Runner
	prec   numeric.Precision
	// ref and got are the reference's and the format's runs.
	ref, got *model.Result
	infos    []stateInfo
	// relevant[k][i]: position i (0-based) of state k can influence the
	// output at pos through the masks alone, as a non-finite value does
	// (0·∞ is NaN); flows[k][i][c]: component c there can, through
	// nonzero weights, as a finite error does.
	relevant [][]bool
	flows    [][][]bool
	pos      int // 0-based
	// note names the reference when it is not exact; approx is then set,
	// and refBits is the reference's significand width.
	note    string
	approx  bool
	refBits int
	// overflowAt is the smallest magnitude the format rounds to a
	// non-finite value, and overflowIncl whether overflowAt itself does;
	// nil for formats without overflow (bigfloat).
	overflowAt   *big.Rat
	overflowIncl bool
}

func newDiagnosis(m *model.Model, runner model.Runner, ref, got *model.Result, pos int, note string, refBits int) (*diagnosis, error) {
	if ref.Trace == nil || got.Trace == nil {
		return nil, errors.New("diagnose: a run returned no trace")
	}
	first := ""
	if len(got.Trace.States) > 0 {
		first = got.Trace.States[0].Label
	}
	d := &diagnosis{m: m, runner: runner, prec: runner.Precision(), ref: ref, got: got,
		infos: stateInfos(m, first), pos: pos - 1, note: note, approx: note != "", refBits: refBits}
	if len(d.infos) != len(ref.Trace.States) || len(d.infos) != len(got.Trace.States) {
		return nil, fmt.Errorf("diagnose: the traces have %d and %d states, the model %d", len(ref.Trace.States), len(got.Trace.States), len(d.infos))
	}
	for k, info := range d.infos {
		if ref.Trace.States[k].Label != info.label || got.Trace.States[k].Label != info.label {
			return nil, fmt.Errorf("diagnose: trace state %d is %q and %q, the model's %q", k+1, ref.Trace.States[k].Label, got.Trace.States[k].Label, info.label)
		}
	}
	d.relevant = d.influence()
	d.flows = d.dataflow()
	if f := d.prec.Format; f != nil {
		maxF := new(big.Rat)
		maxF.SetFloat64(f.MaxFinite())
		half := d.spacing(maxF)
		half.Quo(half, big.NewRat(2, 1))
		d.overflowAt = maxF.Add(maxF, half)
		d.overflowIncl = !runner.Round(d.overflowAt).Finite()
	}
	return d, nil
}

// influence returns, for every state, the positions whose values there
// can reach the output at pos: going back from the last state, an
// attention sublayer adds the positions its mask lets an influencing
// position attend to; the other sublayers work position by position.
func (d *diagnosis) influence() [][]bool {
	n := len(d.got.Trace.States[0].Vectors)
	rel := make([][]bool, len(d.infos))
	last := make([]bool, n)
	last[d.pos] = true
	rel[len(rel)-1] = last
	for k := len(d.infos) - 1; k > 0; k-- {
		prev := append([]bool(nil), rel[k]...)
		info := d.infos[k]
		if info.attn {
			attended(d.m.Layers[info.layer].Attention.Mask, rel[k], prev)
		}
		rel[k-1] = prev
	}
	return rel
}

// attended sets keys[j] for every position j that some query position i
// with queries[i] set may attend to under mask m. The masks are
// intervals, so the extreme query decides.
func attended(m model.Mask, queries, keys []bool) {
	lo, hi := -1, -1
	for i, q := range queries {
		if q {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	if lo < 0 {
		return
	}
	for j := range keys {
		switch m {
		case model.Future, model.StrictFuture:
			keys[j] = keys[j] || maskAllows(m, hi+1, j+1)
		case model.Past, model.StrictPast:
			keys[j] = keys[j] || maskAllows(m, lo+1, j+1)
		default:
			keys[j] = true
		}
	}
}

// dataflow returns, for every state, the components at every position
// whose value can reach the output at pos through nonzero weights: the
// unembedding's columns at pos; back through a residual connection the
// same components; through a feed-forward sublayer that writes a
// flowing component, the columns its W1 reads; through an attention
// sublayer that writes one at a query position i, the columns of W^Q
// there and those of W^K and W^V at every position i may attend to;
// through a layer norm, every component it normalises. A finite error
// anywhere else is multiplied by zero before it reaches the output.
func (d *diagnosis) dataflow() [][][]bool {
	n, dim := len(d.got.Trace.States[0].Vectors), d.m.D
	newSet := func() [][]bool {
		s := make([][]bool, n)
		for i := range s {
			s[i] = make([]bool, dim)
		}
		return s
	}
	flows := make([][][]bool, len(d.infos))
	last := newSet()
	orInto(last[d.pos], nonzeroCols(d.m.Output.W))
	flows[len(flows)-1] = last
	all := make([]bool, dim)
	for c := range all {
		all[c] = true
	}
	for k := len(d.infos) - 1; k > 0; k-- {
		info := d.infos[k]
		cur, prev := flows[k], newSet()
		if info.layer < 0 { // the final norm
			for i := range cur {
				if anyOf(cur[i], nil) {
					orInto(prev[i], normReads(info.norm, dim))
				}
			}
			flows[k-1] = prev
			continue
		}
		if info.postNorm {
			after := newSet()
			for i := range cur {
				if anyOf(cur[i], nil) {
					orInto(after[i], all)
				}
			}
			cur = after
		}
		if info.residual {
			for i := range cur {
				orInto(prev[i], cur[i])
			}
		}
		// reads maps the columns a sublayer reads to the stream's: a
		// pre-norm sublayer reads what its norm normalises.
		reads := func(cols []bool) []bool {
			if !info.normedInput {
				return cols
			}
			if !anyOf(cols, nil) {
				return nil
			}
			return normReads(info.norm, dim)
		}
		layer := d.m.Layers[info.layer]
		if a := layer.Attention; info.attn && a != nil {
			writes := make([]bool, dim)
			var qr, kvr []bool
			for _, h := range a.Heads {
				orInto(writes, nonzeroRows(h.V))
				qr = orOf(qr, nonzeroCols(h.Q))
				kvr = orOf(orOf(kvr, nonzeroCols(h.K)), nonzeroCols(h.V))
			}
			qr, kvr = reads(qr), reads(kvr)
			queries := make([]bool, n)
			for i := range cur {
				if anyOf(cur[i], writes) {
					queries[i] = true
					orInto(prev[i], qr)
				}
			}
			keys := make([]bool, n)
			attended(a.Mask, queries, keys)
			for j, on := range keys {
				if on {
					orInto(prev[j], kvr)
				}
			}
		} else if f := layer.FeedForward; !info.attn && f != nil {
			writes := orOf(nonzeroRows(f.W2), nonzeroEntries(f.B2))
			r := reads(nonzeroCols(f.W1))
			for i := range cur {
				if anyOf(cur[i], writes) {
					orInto(prev[i], r)
				}
			}
		}
		flows[k-1] = prev
	}
	return flows
}

// normReads lists the components a layer norm reads: its selection's
// columns, or all of them.
func normReads(ln *model.LayerNorm, dim int) []bool {
	if ln != nil && ln.Select != nil {
		return nonzeroCols(*ln.Select)
	}
	all := make([]bool, dim)
	for c := range all {
		all[c] = true
	}
	return all
}

func nonzeroCols(m model.Matrix) []bool {
	out := make([]bool, m.Cols)
	for k, e := range m.Data {
		if !e.IsZero() {
			out[k%m.Cols] = true
		}
	}
	return out
}

func nonzeroRows(m model.Matrix) []bool {
	out := make([]bool, m.Rows)
	for k, e := range m.Data {
		if !e.IsZero() {
			out[k/m.Cols] = true
		}
	}
	return out
}

func nonzeroEntries(v model.Vector) []bool {
	out := make([]bool, len(v))
	for k, e := range v {
		out[k] = !e.IsZero()
	}
	return out
}

// orInto sets dst[c] where src[c] is set (src may be shorter or nil).
func orInto(dst, src []bool) {
	for c, on := range src {
		if on && c < len(dst) {
			dst[c] = true
		}
	}
}

// orOf returns a ∨ b, as long as the longer.
func orOf(a, b []bool) []bool {
	out := make([]bool, max(len(a), len(b)))
	orInto(out, a)
	orInto(out, b)
	return out
}

// anyOf reports whether some s[c] is set where mask[c] is (any, for a nil
// mask).
func anyOf(s, mask []bool) bool {
	for c, on := range s {
		if on && (mask == nil || c < len(mask) && mask[c]) {
			return true
		}
	}
	return false
}

// maskAllows reports whether position i may attend to position j (both
// 1-based), as model.Mask does.
func maskAllows(m model.Mask, i, j int) bool {
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

// cause scans the states in the order of the forward pass.
func (d *diagnosis) cause() *Cause {
	for k := range d.infos {
		if c := d.overflow(k); c != nil {
			return c
		}
		if c := d.normOverflow(k); c != nil {
			return c
		}
		if d.infos[k].attn && !d.infos[k].normedInput {
			if c := d.attention(k); c != nil {
				return c
			}
		}
		if c := d.ffAbsorbed(k); c != nil {
			return c
		}
		if c := d.absorbed(k); c != nil {
			return c
		}
		if c := d.rounding(k, roundingUnits); c != nil {
			return c
		}
	}
	if c := d.outputCause(roundingUnits); c != nil {
		return c
	}
	for k := range d.infos {
		if c := d.rounding(k, 0); c != nil {
			return c
		}
	}
	return d.outputCause(0)
}

// component names component c of the residual stream.
func (d *diagnosis) component(c int) string {
	if c < len(d.ref.Trace.Components) {
		return d.ref.Trace.Components[c]
	}
	return fmt.Sprintf("h%d", c+1)
}

// format names the runner's format in a sentence.
func (d *diagnosis) format() string {
	if d.prec.Format != nil {
		return d.prec.Format.Name
	}
	return fmt.Sprintf("%d-bit floating point", d.prec.Bits)
}

// withNote appends the reference's note to a detail.
func (d *diagnosis) withNote(s string) string {
	if d.note == "" {
		return s
	}
	return s + " (" + d.note + ")"
}

// overflow finds the first non-finite value of state k at an influencing
// position.
func (d *diagnosis) overflow(k int) *Cause {
	st, rs := d.got.Trace.States[k], d.ref.Trace.States[k]
	for i, vec := range st.Vectors {
		if !d.relevant[k][i] {
			continue
		}
		for c, v := range vec {
			if v.Finite() {
				continue
			}
			where := fmt.Sprintf("%s, position %d, component %s", st.Label, i+1, d.component(c))
			detail := d.overflowDetail(rs.Vectors[i][c], v)
			if x, ok := rs.Vectors[i][c].Rat(); !ok || !d.overflows(x) {
				// The value is in range: say what left it on the way.
				if w := d.firstWeight(k, func(_ *big.Rat, v model.Value) bool { return !v.Finite() }); w != nil {
					detail = d.withNote(fmt.Sprintf("the sublayer's weight %s = %s is beyond %s's largest finite value %s: %s holds it as %s, and %s computes %s here", w.name, w.expr, d.format(), d.maxFiniteText(), d.format(), heldText(w.held), d.format(), heldText(v)))
				} else if what := d.ffOverflow(k, i); what != "" {
					detail = d.withNote(fmt.Sprintf("%s is beyond %s's largest finite value %s, and %s computes %s here", what, d.format(), d.maxFiniteText(), d.format(), heldText(v)))
				}
			}
			return &Cause{Kind: "overflow", Where: where, Detail: detail}
		}
	}
	return nil
}

// overflowDetail explains a non-finite value got whose reference is ref.
func (d *diagnosis) overflowDetail(ref, got model.Value) string {
	x, ok := ref.Rat()
	if !ok {
		return fmt.Sprintf("%s holds %s, and so does the reference", d.format(), heldText(got))
	}
	if d.overflows(x) {
		return d.withNote(fmt.Sprintf("the exact value %s is beyond %s's largest finite value %s: %s holds %s", numText(x), d.format(), d.maxFiniteText(), d.format(), heldText(got)))
	}
	return d.withNote(fmt.Sprintf("the exact value is %s, within range, but %s holds %s: a value computed on the way (a product, a partial sum, an exp) left %s's range (largest finite value %s), or met one that had", numText(x), d.format(), heldText(got), d.format(), d.maxFiniteText()))
}

func (d *diagnosis) maxFiniteText() string {
	if d.prec.Format == nil {
		return "none"
	}
	return strconv.FormatFloat(d.prec.Format.MaxFinite(), 'g', -1, 64)
}

// overflows reports whether the format rounds x to a non-finite value.
func (d *diagnosis) overflows(x *big.Rat) bool {
	if d.overflowAt == nil {
		return false
	}
	a := new(big.Rat).Abs(x)
	switch a.Cmp(d.overflowAt) {
	case 1:
		return true
	case 0:
		return d.overflowIncl
	}
	return false
}

// rounding finds the first value of state k, at an influencing position,
// further than units units of the format's spacing from the reference;
// with units = 0, the first value that differs at all.
func (d *diagnosis) rounding(k, units int) *Cause {
	st, rs := d.got.Trace.States[k], d.ref.Trace.States[k]
	for i, vec := range st.Vectors {
		for c, v := range vec {
			if !d.flows[k][i][c] {
				continue
			}
			if detail, off := d.offBy(rs.Vectors[i][c], v, units); off {
				where := fmt.Sprintf("%s, position %d, component %s", st.Label, i+1, d.component(c))
				if note := d.inputDiffered(k, i); note != "" {
					detail += note
				} else {
					detail += d.roundedWeight(k)
				}
				return &Cause{Kind: "rounding", Where: where, Detail: d.withNote(detail)}
			}
		}
	}
	return nil
}

// inputDiffered says where the input of the sublayer that produced state
// k already differed from the reference, by less than the rounding
// threshold (else that would have been the cause): the sublayer then
// amplified an earlier, small error, as a comparison in its gray region
// does. Position i is looked at first, then the other influencing
// positions. It returns "" when the input was exact.
func (d *diagnosis) inputDiffered(k, i int) string {
	if k == 0 {
		return ""
	}
	prev, ref := d.got.Trace.States[k-1], d.ref.Trace.States[k-1]
	order := []int{i}
	for j := range prev.Vectors {
		if j != i {
			order = append(order, j)
		}
	}
	for _, j := range order {
		for c, v := range prev.Vectors[j] {
			if !d.flows[k-1][j][c] {
				continue
			}
			x, ok1 := ref.Vectors[j][c].Rat()
			y, ok2 := v.Rat()
			if ok1 && ok2 && x.Cmp(y) != 0 {
				return fmt.Sprintf("; the sublayer's input already differed: at position %d, %s is %s for the exact %s (%s)", j+1, d.component(c), heldText(v), numText(x), prev.Label)
			}
		}
	}
	return ""
}

// weightScan caps the parameters roundedWeight looks at: rounding each
// costs a conversion, and routed models hold millions of zeros but few
// other weights.
const weightScan = 1 << 14

// roundedWeight names the first parameter of the sublayer that produced
// state k that the format cannot hold exactly, for a value that left the
// exact one although the sublayer's input had not: "" when there is
// none (among the first weightScan nonzero ones).
func (d *diagnosis) roundedWeight(k int) string {
	w := d.firstWeight(k, func(x *big.Rat, v model.Value) bool {
		r, ok := v.Rat()
		return !ok || r.Cmp(x) != 0
	})
	if w == nil {
		return ""
	}
	return fmt.Sprintf("; the sublayer's input is exact, but %s holds its weight %s = %s as %s", d.format(), w.name, w.expr, heldText(w.held))
}

// sublayerWeight is a parameter of a sublayer, and the format's value of
// it.
type sublayerWeight struct {
	name string // e.g. "W2[1][3]", "head 1 W^Q[2][1]", "b1[2]"
	expr numeric.Expr
	held model.Value
}

// firstWeight returns the first nonzero parameter of the sublayer that
// produced state k (W^Q, W^K, W^V of each head; or W1, b1, W2, b2) for
// which pick(exact value, format's value) holds, among the first
// weightScan; nil when there is none.
func (d *diagnosis) firstWeight(k int, pick func(x *big.Rat, v model.Value) bool) *sublayerWeight {
	info := d.infos[k]
	if k == 0 || info.layer < 0 {
		return nil
	}
	type named struct {
		name string
		m    model.Matrix
	}
	var ms []named
	layer := d.m.Layers[info.layer]
	if info.attn {
		for h, head := range layer.Attention.Heads {
			p := fmt.Sprintf("head %d ", h+1)
			ms = append(ms, named{p + "W^Q", head.Q}, named{p + "W^K", head.K}, named{p + "W^V", head.V})
		}
	} else if ff := layer.FeedForward; ff != nil {
		ms = append(ms, named{"W1", ff.W1}, named{"b1", columnOf(ff.B1)}, named{"W2", ff.W2}, named{"b2", columnOf(ff.B2)})
	}
	seen := 0
	for _, nm := range ms {
		for idx, e := range nm.m.Data {
			if e.IsZero() {
				continue
			}
			if seen++; seen > weightScan {
				return nil
			}
			x, ok := d.weight(e)
			if !ok || x.Sign() == 0 {
				continue
			}
			v := d.runner.Round(x)
			if !pick(x, v) {
				continue
			}
			at := fmt.Sprintf("[%d][%d]", idx/nm.m.Cols+1, idx%nm.m.Cols+1)
			if nm.m.Cols == 1 {
				at = fmt.Sprintf("[%d]", idx+1)
			}
			return &sublayerWeight{name: nm.name + at, expr: e, held: v}
		}
	}
	return nil
}

// columnOf is a parameter vector as a one-column matrix.
func columnOf(v model.Vector) model.Matrix {
	return model.Matrix{Rows: len(v), Cols: 1, Data: v}
}

// outputCause looks at the unembedding's values at pos: non-finite, or
// further than units units from the reference's.
func (d *diagnosis) outputCause(units int) *Cause {
	ro, go_ := d.ref.Outputs[d.pos], d.got.Outputs[d.pos]
	for k, v := range go_.Values {
		if k >= len(ro.Values) {
			break
		}
		name := fmt.Sprintf("output %d", k+1)
		if k < len(d.m.Output.Labels) {
			name = d.m.Output.Labels[k]
		}
		where := fmt.Sprintf("output, position %d, %s", d.pos+1, name)
		if !v.Finite() {
			return &Cause{Kind: "overflow", Where: where, Detail: d.overflowDetail(ro.Values[k], v)}
		}
		if detail, off := d.offBy(ro.Values[k], v, units); off {
			return &Cause{Kind: "rounding", Where: where, Detail: d.withNote(detail)}
		}
	}
	return nil
}

// offBy reports whether got is further than units units of the format's
// spacing (at the larger of the two magnitudes) from ref, or, for
// units = 0, differs from it at all; and says by how much.
func (d *diagnosis) offBy(ref, got model.Value, units int) (string, bool) {
	x, ok1 := ref.Rat()
	y, ok2 := got.Rat()
	if !ok1 || !ok2 || x.Cmp(y) == 0 {
		return "", false
	}
	diff := new(big.Rat).Sub(y, x)
	diff.Abs(diff)
	big1 := new(big.Rat).Abs(x)
	if a := new(big.Rat).Abs(y); a.Cmp(big1) > 0 {
		big1 = a
	}
	sp := d.spacing(big1)
	if units > 0 && sp.Sign() > 0 && diff.Cmp(new(big.Rat).Mul(sp, big.NewRat(int64(units), 1))) <= 0 {
		return "", false
	}
	detail := fmt.Sprintf("the exact value is %s; %s computes %s", numText(x), d.format(), heldText(got))
	if sp.Sign() > 0 && x.Sign() != 0 {
		detail += fmt.Sprintf(", off by %s of its spacing %s there", unitsText(new(big.Rat).Quo(diff, sp)), spacingText(sp))
	}
	if units == 0 {
		if r, ok := d.runner.Round(x).Rat(); ok && r.Cmp(x) != 0 {
			detail += fmt.Sprintf(" (%s cannot hold %s: the first value to leave the exact one, and no larger error shows before)", d.format(), numText(x))
		} else {
			detail += fmt.Sprintf(" (the first value to leave the exact one, and no error of more than %d units shows before)", roundingUnits)
		}
	}
	return detail, true
}

// absorbed finds, in a residual sum x + y, the first influencing value
// whose reference moved (y ≠ 0) while the format's stayed at x, with |y|
// below the format's spacing at x: the format's x + y came out x.
func (d *diagnosis) absorbed(k int) *Cause {
	if k == 0 || !d.infos[k].sum {
		return nil
	}
	prevG, curG := d.got.Trace.States[k-1], d.got.Trace.States[k]
	prevR, curR := d.ref.Trace.States[k-1], d.ref.Trace.States[k]
	for i := range curG.Vectors {
		for c := range curG.Vectors[i] {
			if !d.flows[k][i][c] {
				continue
			}
			x, ok1 := prevR.Vectors[i][c].Rat()
			x2, ok2 := curR.Vectors[i][c].Rat()
			f, ok3 := prevG.Vectors[i][c].Rat()
			f2, ok4 := curG.Vectors[i][c].Rat()
			if !ok1 || !ok2 || !ok3 || !ok4 || f.Sign() == 0 || f.Cmp(f2) != 0 || x.Cmp(x2) == 0 || x2.Cmp(f2) == 0 {
				continue
			}
			y := new(big.Rat).Sub(x2, x)
			ay := new(big.Rat).Abs(y)
			sp := d.spacing(f)
			if ay.Cmp(sp) >= 0 || d.approx && d.belowReference(ay, x) {
				continue
			}
			half := new(big.Rat).Quo(sp, big.NewRat(2, 1))
			why := fmt.Sprintf("%s is below half its spacing %s at %s", numText(ay), spacingText(half), heldText(prevG.Vectors[i][c]))
			if ay.Cmp(half) >= 0 {
				why = fmt.Sprintf("%s is below its spacing %s at %s, and the addend %s computes is smaller still", numText(ay), spacingText(sp), heldText(prevG.Vectors[i][c]), d.format())
			}
			detail := fmt.Sprintf("the sublayer adds y = %s to x = %s, exactly %s; %s keeps x = %s, since |y| = %s", numText(y), numText(x), numText(x2), d.format(), heldText(prevG.Vectors[i][c]), why)
			where := fmt.Sprintf("%s, position %d, component %s", curG.Label, i+1, d.component(c))
			return &Cause{Kind: "absorbed", Where: where, Detail: d.withNote(detail)}
		}
	}
	return nil
}

// belowReference reports whether y is within the reference's own rounding
// at x: a change the reference makes that the exact values may not.
func (d *diagnosis) belowReference(y, x *big.Rat) bool {
	scale := new(big.Rat).Abs(x)
	if scale.Cmp(big.NewRat(1, 1)) < 0 {
		scale.SetInt64(1)
	}
	return y.Cmp(scale.Mul(scale, pow2(-(d.refBits-16)))) <= 0
}

// spacing is the distance between consecutive values of the format at
// |x| (its unit in the last place there): 2^(e−P+1) for 2^e ≤ |x| <
// 2^(e+1), with e at least the format's smallest normal exponent. A
// bigfloat has no subnormals: its spacing at 0 is 0.
func (d *diagnosis) spacing(x *big.Rat) *big.Rat {
	p := d.prec.SignificandBits()
	zero := x.Sign() == 0
	e := 0
	if !zero {
		e = floorLog2(x)
	}
	if f := d.prec.Format; f != nil {
		if zero || e < f.EMin {
			e = f.EMin
		}
	} else if zero {
		return new(big.Rat)
	}
	return pow2(e - p + 1)
}

// floorLog2 is ⌊log₂|x|⌋ for x ≠ 0.
func floorLog2(x *big.Rat) int {
	f := new(big.Float).SetPrec(64).SetMode(big.ToZero).SetRat(new(big.Rat).Abs(x))
	return f.MantExp(nil) - 1
}

// pow2 is 2^k as an exact rational.
func pow2(k int) *big.Rat {
	if k >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(k)))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-k)))
}

// numText prints an exact value briefly: an integer, a short exact
// decimal, a short fraction, or a decimal approximation marked ≈.
func numText(r *big.Rat) string {
	if r.Num().BitLen()+r.Denom().BitLen() > 1024 {
		return "≈" + floatText(new(big.Float).SetPrec(64).SetRat(r), 6)
	}
	if r.IsInt() {
		if s := r.RatString(); len(s) <= 20 {
			return s
		}
	}
	frac := r.RatString()
	if digits, ok := decimalDigits(r.Denom()); ok && digits <= 12 && r.Denom().BitLen() <= 64 {
		if s := strings.TrimRight(r.FloatString(digits), "0"); len(s) <= 14 && len(s) <= len(frac)+1 {
			return s
		}
	}
	if len(frac) <= 16 {
		return frac
	}
	return "≈" + floatText(new(big.Float).SetPrec(64).SetRat(r), 6)
}

// decimalDigits returns the number of decimals of 1/q when q = 2^a 5^b.
func decimalDigits(q *big.Int) (int, bool) {
	q = new(big.Int).Set(q)
	a, b := 0, 0
	two, five, rem := big.NewInt(2), big.NewInt(5), new(big.Int)
	for q.Cmp(big.NewInt(1)) > 0 {
		switch {
		case rem.Mod(q, two).Sign() == 0:
			q.Quo(q, two)
			a++
		case rem.Mod(q, five).Sign() == 0:
			q.Quo(q, five)
			b++
		default:
			return 0, false
		}
		if a > 64 || b > 64 {
			return 0, false
		}
	}
	return max(a, b), true
}

// unitsText prints a number u ≥ 0 of units in the last place: two
// significant digits below 100, a whole number below a million, and
// beyond that compactly ("about 2.2e219 units"), whatever its size.
func unitsText(u *big.Rat) string {
	var s string
	switch f, _ := u.Float64(); {
	case f < 100:
		s = strconv.FormatFloat(f, 'g', 2, 64)
	case f < 1e6:
		s = strconv.FormatFloat(f, 'f', 0, 64)
	default:
		return "about " + sciText(new(big.Float).SetPrec(64).SetRat(u), 2) + " units"
	}
	if s == "1" {
		return "1 unit"
	}
	return s + " units"
}

// sciText prints x ≠ 0 with digits significant digits in scientific
// notation, "2.2e219" (at any exponent, through floatText).
func sciText(x *big.Float, digits int) string {
	s := floatText(x, digits)
	if !strings.ContainsAny(s, "e") {
		// x.Text('g') chose a plain decimal: redo it in %e form.
		s = x.Text('e', digits-1)
	}
	mant, exp, ok := strings.Cut(s, "e")
	if !ok {
		return s
	}
	sign := ""
	if exp, ok = strings.CutPrefix(exp, "-"); ok {
		sign = "-"
	}
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "+"), "0")
	if exp == "" {
		exp = "0"
	}
	return mant + "e" + sign + exp
}

// ---------------------------------------------------------------------
// Attention: ties and gaps among the scores.

// sparseMatrix is a matrix of exact weights, each row listing its
// nonzero entries.
type sparseMatrix [][]sparseEntry

type sparseEntry struct {
	col int
	val *big.Rat
}

// weight is the value of a parameter: exact when rational; otherwise,
// against a floating-point reference, an approximation at the
// reference's precision (ok false against an exact one, which cannot
// arise, since exact arithmetic refuses irrational weights).
func (d *diagnosis) weight(e numeric.Expr) (*big.Rat, bool) {
	r, ok, err := e.Rat()
	if err != nil {
		return nil, false
	}
	if ok {
		return r, true
	}
	if !d.approx {
		return nil, false
	}
	lo, hi, err := e.Enclose(uint(d.refBits + 16))
	if err != nil {
		return nil, false
	}
	mid := new(big.Rat).Add(lo, hi)
	return mid.Quo(mid, big.NewRat(2, 1)), true
}

func (d *diagnosis) sparse(m model.Matrix) (sparseMatrix, bool) {
	out := make(sparseMatrix, m.Rows)
	for r := 0; r < m.Rows; r++ {
		for c := 0; c < m.Cols; c++ {
			e := m.At(r, c)
			if e.IsZero() {
				continue
			}
			v, ok := d.weight(e)
			if !ok {
				return nil, false
			}
			if v.Sign() != 0 {
				out[r] = append(out[r], sparseEntry{c, v})
			}
		}
	}
	return out, true
}

// cols marks the columns of w's nonzero entries (of n columns).
func (w sparseMatrix) cols(n int) []bool {
	out := make([]bool, n)
	for _, row := range w {
		for _, e := range row {
			out[e.col] = true
		}
	}
	return out
}

// apply returns W x, with nil for the zero entries.
func (w sparseMatrix) apply(x []*big.Rat) []*big.Rat {
	out := make([]*big.Rat, len(w))
	t := new(big.Rat)
	for r, row := range w {
		for _, e := range row {
			if x[e.col].Sign() == 0 {
				continue
			}
			t.Mul(e.val, x[e.col])
			if out[r] == nil {
				out[r] = new(big.Rat).Set(t)
			} else {
				out[r].Add(out[r], t)
			}
		}
	}
	return out
}

// keyScore is a key position's score at one query: exactly (from the
// reference's residual stream, in exact arithmetic, or the reference's
// own when it is not exact), and as the format computes it, from its own
// residual stream and in its own arithmetic.
type keyScore struct {
	j int      // 0-based
	s *big.Rat // exact
	f *big.Rat // the format's
}

// headScores holds what one head's scores and values are computed from.
type headScores struct {
	// The exact side: W^Q, the keys W^K h_j and the values W^V h_j of the
	// reference's residual stream h, and the factor dividing every score
	// (√d_key when scaled, times τ; nil: 1).
	q      sparseMatrix
	keys   [][]*big.Rat
	vals   [][]*big.Rat
	divide *big.Rat
	// The format's side (qf nil when it cannot be replayed): W^Q and W^K as
	// the format holds them, √d_key and τ as it holds them (nil: no
	// division), the columns W^Q and W^K read, the parameters the format
	// rounds, and the keys it computes from its residual stream (each on
	// first use; fkeyOver: the operation that left the range).
	qf, kf       sparseMatrix
	sqrtF, tempF *big.Rat
	qCols, kCols []bool
	paramSteps   []string
	fkeys        [][]*big.Rat
	fkeyOver     []string
}

// attnScan is the attention sublayer that produced state k, with the
// residual streams it reads.
type attnScan struct {
	d     *diagnosis
	k     int
	label string
	att   *model.Attention
	// h is the reference's residual stream, hf the format's (hf[j] nil
	// where a value is not finite).
	h, hf [][]*big.Rat
	heads []*headScores
}

// attention looks for a score overflow, a tie or a narrow gap in the
// attention sublayer that produced state k, at the influencing query
// positions where that state differs from the reference by more than a
// unit in the last place. The scores are compared twice: exactly, from
// the reference's residual stream, and as the format computes them, from
// its own residual stream, every product and partial sum of q·k (and of
// W^Q x and W^K x) rounded in model's order. A "tie" is two keys whose
// exact scores differ but whose computed scores are equal, at the
// computed maximum, where the weighting then gives weight to a key it
// should not; a "gap" is a computed lead within gapUnits units of the
// format's spacing: one reversed under a hardmax, or one softmax weighs.
// Either names only a partner key whose value W^V h_j differs exactly
// from the top key's: a tie between equal values changes no output.
// Overflows and ties come first, in position order; gaps only when the
// sublayer shows neither.
func (d *diagnosis) attention(k int) *Cause {
	info := d.infos[k]
	att := d.m.Layers[info.layer].Attention
	writes := make([]bool, d.m.D)
	for _, head := range att.Heads {
		orInto(writes, nonzeroRows(head.V))
	}
	var queries []int
	for i := range d.got.Trace.States[k].Vectors {
		if d.differs(k, i, writes) {
			queries = append(queries, i)
		}
	}
	if len(queries) == 0 {
		return nil
	}
	s := &attnScan{d: d, k: k, label: info.label, att: att}
	// The residual streams that feed the sublayer.
	var ok bool
	if s.h, ok = d.ratStates(d.ref.Trace.States[k-1].Vectors); !ok {
		return nil
	}
	s.hf = make([][]*big.Rat, len(s.h))
	for j, vec := range d.got.Trace.States[k-1].Vectors {
		s.hf[j], _ = d.ratVector(vec)
	}
	// The factor dividing every score: √d_key (when scaled) times τ.
	var temp, tempF *big.Rat
	formatSide := true
	if !att.Temperature.IsZero() {
		t, ok := d.weight(att.Temperature)
		if !ok || t.Sign() <= 0 {
			return nil
		}
		temp = t
		if tempF, ok = d.formatConst(att.Temperature); !ok || tempF.Sign() <= 0 {
			formatSide = false
		}
	}
	s.heads = make([]*headScores, len(att.Heads))
	for hi, head := range att.Heads {
		q, ok1 := d.sparse(head.Q)
		kw, ok2 := d.sparse(head.K)
		vw, ok3 := d.sparse(head.V)
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		hs := &headScores{q: q, divide: temp, keys: make([][]*big.Rat, len(s.h)), vals: make([][]*big.Rat, len(s.h)),
			qCols: q.cols(d.m.D), kCols: kw.cols(d.m.D), tempF: tempF}
		scaled := att.Scale == model.ScaleSqrtDKey && head.Q.Rows != 1
		if scaled {
			root := numeric.Sqrt(numeric.LitInt(int64(head.Q.Rows)))
			div, ok := d.weight(root)
			if !ok {
				continue // √d_key irrational against an exact reference
			}
			if hs.divide != nil {
				div.Mul(div, hs.divide)
			}
			hs.divide = div
		}
		for j := range s.h {
			hs.keys[j] = kw.apply(s.h[j])
			hs.vals[j] = vw.apply(s.h[j])
		}
		s.heads[hi] = hs
		if !formatSide {
			continue
		}
		var stepsQ, stepsK []string
		qf, okq := d.roundWeights(q, "W^Q", &stepsQ)
		kf, okk := d.roundWeights(kw, "W^K", &stepsK)
		if !okq || !okk {
			continue
		}
		if scaled {
			sq, ok := d.formatConst(numeric.Sqrt(numeric.LitInt(int64(head.Q.Rows))))
			if !ok || sq.Sign() <= 0 {
				continue
			}
			hs.sqrtF = sq
			hs.paramSteps = append(hs.paramSteps, fmt.Sprintf("√d_key = √%d rounds to %s", head.Q.Rows, numText(sq)))
		}
		if tempF != nil {
			if r, ok, _ := att.Temperature.Rat(); !ok || r.Cmp(tempF) != 0 {
				hs.paramSteps = append(hs.paramSteps, fmt.Sprintf("τ = %s rounds to %s", numText(temp), numText(tempF)))
			}
		}
		hs.paramSteps = append(append(hs.paramSteps, stepsQ...), stepsK...)
		hs.qf, hs.kf = qf, kf
		hs.fkeys, hs.fkeyOver = make([][]*big.Rat, len(s.h)), make([]string, len(s.h))
	}
	// Pass 1: overflows and ties.
	for _, i := range queries {
		for hi, hs := range s.heads {
			if hs == nil {
				continue
			}
			if c := d.scoreOverflow(s.label, hi, i, att, hs.q.apply(s.h[i]), hs.keys, hs.divide); c != nil {
				return c
			}
			ks, over := s.scores(hs, i)
			if over != nil {
				return s.overflowCause(hi, i, over)
			}
			if c := s.tie(hs, hi, i, ks); c != nil {
				return c
			}
		}
	}
	// Pass 2: narrow gaps.
	for _, i := range queries {
		for hi, hs := range s.heads {
			if hs == nil {
				continue
			}
			if ks, over := s.scores(hs, i); over == nil {
				if c := s.gap(hs, hi, i, ks); c != nil {
					return c
				}
			}
		}
	}
	return nil
}

// ratStates returns the points of a traced state (false if one is not a
// finite point).
func (d *diagnosis) ratStates(vs [][]model.Value) ([][]*big.Rat, bool) {
	out := make([][]*big.Rat, len(vs))
	for j, vec := range vs {
		var ok bool
		if out[j], ok = d.ratVector(vec); !ok {
			return nil, false
		}
	}
	return out, true
}

// roundWeights rounds exact weights to the format, keeping the zero
// entries' places, and logs into steps the weights it changes (false if
// one overflows).
func (d *diagnosis) roundWeights(w sparseMatrix, name string, steps *[]string) (sparseMatrix, bool) {
	out := make(sparseMatrix, len(w))
	for r, row := range w {
		for _, e := range row {
			v, ok := d.roundRat(e.val)
			if !ok {
				return nil, false
			}
			if v.Cmp(e.val) != 0 {
				*steps = append(*steps, fmt.Sprintf("%s[%d][%d] = %s rounds to %s", name, r+1, e.col+1, numText(e.val), numText(v)))
			}
			if v.Sign() != 0 {
				out[r] = append(out[r], sparseEntry{e.col, v})
			}
		}
	}
	return out, true
}

// formatConst is a constant as the format holds it, rounded once (false
// if it overflows, or if the reference's enclosure of an irrational one
// does not decide its rounding).
func (d *diagnosis) formatConst(e numeric.Expr) (*big.Rat, bool) {
	if r, ok, err := e.Rat(); err != nil {
		return nil, false
	} else if ok {
		return d.roundRat(r)
	}
	lo, hi, err := e.Enclose(uint(d.refBits + 16))
	if err != nil {
		return nil, false
	}
	a, ok1 := d.roundRat(lo)
	b, ok2 := d.roundRat(hi)
	if !ok1 || !ok2 || a.Cmp(b) != 0 {
		return nil, false
	}
	return a, true
}

// roundRat is the format's value of x, rounded once to nearest, ties to
// even, as every operation of the backends rounds; false when x is
// beyond the format's range.
func (d *diagnosis) roundRat(x *big.Rat) (*big.Rat, bool) {
	if f := d.prec.Format; f != nil {
		v := f.RoundRat(x)
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(v), true
	}
	if d.prec.Kind == numeric.KindBigFloat {
		r, _ := new(big.Float).SetPrec(d.prec.Bits).SetMode(big.ToNearestEven).SetRat(x).Rat(nil)
		return r, true
	}
	return d.runner.Round(x).Rat()
}

// replay computes as the format does: each operation's exact result,
// from operands the format holds, rounded once, which is what the
// backends compute. With keep it logs the operations that rounded; over
// is the first that left the format's range (its result then stays
// exact).
type replay struct {
	d    *diagnosis
	keep bool
	log  []string
	over string
}

func (r *replay) op(exact *big.Rat, what func() string) *big.Rat {
	v, ok := r.d.roundRat(exact)
	if !ok {
		if r.over == "" {
			r.over = what()
		}
		return exact
	}
	if r.keep && v.Cmp(exact) != 0 {
		r.log = append(r.log, what()+" rounds to "+numText(v))
	}
	return v
}

// paren prints a factor or an addend, negative ones in parentheses.
func paren(x *big.Rat) string {
	if x.Sign() < 0 {
		return "(" + numText(x) + ")"
	}
	return numText(x)
}

// matVec is W x as model's matVec computes it (w as the format holds it,
// x as the format holds it, no bias): in each row the products left to
// right, each rounded, and each partial sum rounded; zero terms, which
// change nothing, are skipped. row names the rows.
func (r *replay) matVec(w sparseMatrix, name string, x []*big.Rat, row func(int) string) []*big.Rat {
	out := make([]*big.Rat, len(w))
	for ri, entries := range w {
		var acc *big.Rat
		for _, e := range entries {
			xc := x[e.col]
			if xc.Sign() == 0 {
				continue
			}
			exact := new(big.Rat).Mul(e.val, xc)
			p := r.op(exact, func() string {
				return fmt.Sprintf("in %s, the product %s[%d][%d]·%s = %s × %s = %s", row(ri), name, ri+1, e.col+1, r.d.component(e.col), numText(e.val), paren(xc), numText(exact))
			})
			if acc == nil {
				acc = p
				continue
			}
			sum, a := new(big.Rat).Add(acc, p), acc
			acc = r.op(sum, func() string {
				return fmt.Sprintf("in %s, the sum %s + %s = %s", row(ri), numText(a), paren(p), numText(sum))
			})
		}
		if acc == nil {
			acc = new(big.Rat)
		}
		out[ri] = acc
	}
	return out
}

// score is the score of key j, q·k as model's dot computes it (left to
// right, each product and partial sum rounded), then divided by √d_key
// and by τ, each division rounded.
func (r *replay) score(q, k []*big.Rat, j int, sqrtF, tempF *big.Rat) *big.Rat {
	name := fmt.Sprintf("q·k of j = %d", j+1)
	var acc *big.Rat
	for c := range q {
		if q[c].Sign() == 0 || k[c].Sign() == 0 {
			continue
		}
		exact := new(big.Rat).Mul(q[c], k[c])
		p := r.op(exact, func() string {
			return fmt.Sprintf("in %s, the product q_%d·k_%d = %s × %s = %s", name, c+1, c+1, numText(q[c]), paren(k[c]), numText(exact))
		})
		if acc == nil {
			acc = p
			continue
		}
		sum, a := new(big.Rat).Add(acc, p), acc
		acc = r.op(sum, func() string {
			return fmt.Sprintf("in %s, the partial sum up to component %d, %s + %s = %s,", name, c+1, numText(a), paren(p), numText(sum))
		})
	}
	if acc == nil {
		acc = new(big.Rat)
	}
	for _, div := range []struct {
		by   *big.Rat
		name string
	}{{sqrtF, "√d_key"}, {tempF, "τ"}} {
		if div.by == nil {
			continue
		}
		exact, a := new(big.Rat).Quo(acc, div.by), acc
		acc = r.op(exact, func() string {
			return fmt.Sprintf("the score of j = %d divided by %s, %s / %s = %s,", j+1, div.name, numText(a), numText(div.by), numText(exact))
		})
	}
	return acc
}

// queryName and keyName name the components of q and of k_j.
func queryName(r int) string { return fmt.Sprintf("q_%d", r+1) }

func keyName(j int) func(int) string {
	return func(r int) string { return fmt.Sprintf("k_%d of j = %d", r+1, j+1) }
}

// formatKey is the key of position j as the format computes it (nil when
// its residual stream there is not finite).
func (s *attnScan) formatKey(hs *headScores, j int) ([]*big.Rat, string) {
	if hs.fkeys[j] == nil && hs.fkeyOver[j] == "" && s.hf[j] != nil {
		r := &replay{d: s.d}
		hs.fkeys[j] = r.matVec(hs.kf, "W^K", s.hf[j], keyName(j))
		hs.fkeyOver[j] = r.over
	}
	return hs.fkeys[j], hs.fkeyOver[j]
}

// scores returns the scores, exact and computed, at query i of the keys
// the mask allows, in position order; nil when the format's computation
// cannot be replayed (a value it reads is not finite). over is an
// operation of that computation that left the format's range.
func (s *attnScan) scores(hs *headScores, i int) (ks []keyScore, over *replayOverflow) {
	if hs.qf == nil || s.hf[i] == nil {
		return nil, nil
	}
	r := &replay{d: s.d}
	qf := r.matVec(hs.qf, "W^Q", s.hf[i], queryName)
	if r.over != "" {
		return nil, &replayOverflow{j: -1, what: r.over}
	}
	q := hs.q.apply(s.h[i])
	t := new(big.Rat)
	for j := range s.h {
		if !maskAllows(s.att.Mask, i+1, j+1) {
			continue
		}
		exact := new(big.Rat)
		for c, qc := range q {
			if qc != nil && hs.keys[j][c] != nil {
				exact.Add(exact, t.Mul(qc, hs.keys[j][c]))
			}
		}
		if hs.divide != nil {
			exact.Quo(exact, hs.divide)
		}
		kf, kover := s.formatKey(hs, j)
		if kover != "" {
			return nil, &replayOverflow{j: j, what: kover}
		}
		if kf == nil {
			return nil, nil
		}
		f := r.score(qf, kf, j, hs.sqrtF, hs.tempF)
		if r.over != "" {
			return nil, &replayOverflow{j: j, what: r.over}
		}
		ks = append(ks, keyScore{j: j, s: exact, f: f})
	}
	return ks, nil
}

// replayOverflow is an operation of the format's score computation that
// left its range, in the score of key j (−1: in the query).
type replayOverflow struct {
	j    int
	what string
}

func (s *attnScan) overflowCause(head, i int, o *replayOverflow) *Cause {
	d := s.d
	where := fmt.Sprintf("%s, head %d, position %d", s.label, head+1, i+1)
	in := "the query"
	if o.j >= 0 {
		where += fmt.Sprintf(", key j = %d", o.j+1)
		in = fmt.Sprintf("the score of j = %d", o.j+1)
	}
	detail := fmt.Sprintf("at position %d, in %s's computation of %s, %s is beyond %s's largest finite value %s", i+1, d.format(), in, strings.TrimSuffix(o.what, ","), d.format(), d.maxFiniteText())
	return &Cause{Kind: "overflow", Where: where, Detail: d.withNote(detail)}
}

// ranking sorts the scores of one head at one query: top is the key the
// exact weighting picks (the first exact maximum; the last under
// right-hardmax), inTop marks the exact maxima, atMax the computed ones,
// and picked the keys the format's weighting gives the largest weight:
// all the computed maxima, or under left- and right-hardmax the first or
// the last of them.
type ranking struct {
	top          int
	inTop, atMax []bool
	picked       []int
}

func (s *attnScan) rank(ks []keyScore) ranking {
	rk := ranking{inTop: make([]bool, len(ks)), atMax: make([]bool, len(ks))}
	best, fmax := 0, 0
	for k := range ks {
		if ks[k].s.Cmp(ks[best].s) > 0 {
			best = k
		}
		if ks[k].f.Cmp(ks[fmax].f) > 0 {
			fmax = k
		}
	}
	rk.top = -1
	var atMax []int
	for k := range ks {
		if s.d.equalScores(ks[k].s, ks[best].s) {
			rk.inTop[k] = true
			if rk.top < 0 || s.att.Weighting == model.RightHardmax {
				rk.top = k
			}
		}
		if ks[k].f.Cmp(ks[fmax].f) == 0 {
			rk.atMax[k] = true
			atMax = append(atMax, k)
		}
	}
	rk.picked = atMax
	switch s.att.Weighting {
	case model.LeftHardmax:
		rk.picked = atMax[:1]
	case model.RightHardmax:
		rk.picked = atMax[len(atMax)-1:]
	}
	return rk
}

// valuesDiffer reports whether the values W^V h_a and W^V h_b differ
// exactly (beyond the reference's rounding, against a floating-point
// reference); where names the first component that does.
func (s *attnScan) valuesDiffer(hs *headScores, a, b int) (bool, string) {
	va, vb := hs.vals[a], hs.vals[b]
	zero := new(big.Rat)
	for r := range va {
		x, y := va[r], vb[r]
		if x == nil {
			x = zero
		}
		if y == nil {
			y = zero
		}
		if !s.d.equalScores(x, y) {
			return true, fmt.Sprintf("%s: %s and %s", s.d.component(r), numText(x), numText(y))
		}
	}
	return false, ""
}

// wrongPick is the first key the format's weighting picks that is not an
// exact maximum and whose value differs from the top key's (−1: none).
func (s *attnScan) wrongPick(hs *headScores, ks []keyScore, rk ranking) int {
	for _, k := range rk.picked {
		if differ, _ := s.valuesDiffer(hs, ks[k].j, ks[rk.top].j); !rk.inTop[k] && differ {
			return k
		}
	}
	return -1
}

// tie finds a key that the format's weighting picks, tied in the
// computed scores with an exact maximum whose score is larger exactly,
// and whose value differs from it.
func (s *attnScan) tie(hs *headScores, head, i int, ks []keyScore) *Cause {
	if len(ks) < 2 {
		return nil
	}
	d := s.d
	rk := s.rank(ks)
	a := s.wrongPick(hs, ks, rk)
	if a < 0 {
		return nil
	}
	b := -1
	if rk.atMax[rk.top] {
		b = rk.top
	} else {
		for k := range ks {
			if rk.inTop[k] && rk.atMax[k] {
				if differ, _ := s.valuesDiffer(hs, ks[a].j, ks[k].j); differ {
					b = k
					break
				}
			}
		}
	}
	if b < 0 {
		return nil // the top key's computed score is below: a gap
	}
	steps := s.steps(hs, i, ks[a].j, ks[b].j)
	lo, hi := ks[a], ks[b]
	if hi.j < lo.j {
		lo, hi = hi, lo
	}
	_, vals := s.valuesDiffer(hs, lo.j, hi.j)
	count := 0
	for _, on := range rk.atMax {
		if on {
			count++
		}
	}
	fmax := ks[b].f
	where := fmt.Sprintf("%s, head %d, position %d, keys j = %d and %d", s.label, head+1, i+1, lo.j+1, hi.j+1)
	detail := fmt.Sprintf("at position %d, the scores of j = %d and j = %d are %s and %s %s, but %s computes both as %s (its spacing at %s is %s)%s",
		i+1, lo.j+1, hi.j+1, numText(lo.s), numText(hi.s), d.exactly(), d.format(), numText(fmax), numText(new(big.Rat).Abs(fmax)), spacingText(d.spacing(fmax)), stepsText(steps))
	if count > 2 {
		detail += fmt.Sprintf("; %d positions in all come out at the maximum", count)
	}
	detail += "; their values W^V h_j differ (" + vals + ")"
	return &Cause{Kind: "tie", Where: where, Detail: d.withNote(detail)}
}

// gap finds a computed lead of the top key over a key whose value
// differs that is within gapUnits units of the format's spacing and
// changes the weights: reversed, so that a hardmax picks the other key,
// or, under softmax, narrow either way.
func (s *attnScan) gap(hs *headScores, head, i int, ks []keyScore) *Cause {
	if len(ks) < 2 {
		return nil
	}
	d := s.d
	rk := s.rank(ks)
	top := ks[rk.top]
	a := -1
	if s.att.Weighting == model.Softmax {
		for k := range ks {
			if differ, _ := s.valuesDiffer(hs, ks[k].j, top.j); differ && !rk.inTop[k] && (a < 0 || ks[k].f.Cmp(ks[a].f) > 0) {
				a = k
			}
		}
	} else if a = s.wrongPick(hs, ks, rk); a >= 0 && rk.atMax[rk.top] {
		return nil // a tie, which tie reports
	}
	if a < 0 {
		return nil
	}
	other := ks[a]
	lead := new(big.Rat).Sub(top.f, other.f)
	scale := new(big.Rat).Abs(top.f)
	if o := new(big.Rat).Abs(other.f); o.Cmp(scale) > 0 {
		scale = o
	}
	sp := d.spacing(scale)
	alead := new(big.Rat).Abs(lead)
	if sp.Sign() == 0 || alead.Cmp(new(big.Rat).Mul(sp, big.NewRat(gapUnits, 1))) > 0 {
		return nil
	}
	units := unitsText(new(big.Rat).Quo(alead, sp))
	var computed string
	switch lead.Sign() {
	case -1:
		computed = fmt.Sprintf("reversed by %s of its spacing %s there", units, spacingText(sp))
	case 0:
		computed = fmt.Sprintf("a tie (its spacing there is %s)", spacingText(sp))
	default:
		computed = fmt.Sprintf("a lead of %s, %s of its spacing %s there", numText(lead), units, spacingText(sp))
	}
	steps := s.steps(hs, i, other.j, top.j)
	lo, hi := other, top
	if hi.j < lo.j {
		lo, hi = hi, lo
	}
	_, vals := s.valuesDiffer(hs, lo.j, hi.j)
	where := fmt.Sprintf("%s, head %d, position %d, keys j = %d and %d", s.label, head+1, i+1, lo.j+1, hi.j+1)
	detail := fmt.Sprintf("at position %d, the largest score, %s (j = %d), leads %s (j = %d) by %s %s, but %s computes them as %s and %s, %s%s; their values W^V h_j differ (%s)",
		i+1, numText(top.s), top.j+1, numText(other.s), other.j+1, numText(new(big.Rat).Sub(top.s, other.s)), d.exactly(),
		d.format(), numText(top.f), numText(other.f), computed, stepsText(steps), vals)
	return &Cause{Kind: "gap", Where: where, Detail: d.withNote(detail)}
}

// exactly qualifies a value of the reference.
func (d *diagnosis) exactly() string {
	if d.approx {
		return "in the reference"
	}
	return "exactly"
}

// steps lists what the format's computation of the scores of keys a and
// b at query i rounded: first what concerns each key, the partner a
// first (the components of the format's residual stream that W^K reads
// there and that differ from the reference's, and the products and sums
// of k_j and of q·k_j that rounded), then what the two share (the same
// for the query, and the weights and constants the format rounds).
func (s *attnScan) steps(hs *headScores, i, a, b int) []string {
	var out []string
	seen := map[string]bool{}
	add := func(xs []string) {
		for _, x := range xs {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	rq := &replay{d: s.d, keep: true}
	qf := rq.matVec(hs.qf, "W^Q", s.hf[i], queryName)
	for _, j := range []int{a, b} {
		add(s.inputSteps(j, hs.kCols))
		r := &replay{d: s.d, keep: true}
		kf := r.matVec(hs.kf, "W^K", s.hf[j], keyName(j))
		r.score(qf, kf, j, hs.sqrtF, hs.tempF)
		add(r.log)
	}
	add(s.inputSteps(i, hs.qCols))
	add(rq.log)
	add(hs.paramSteps)
	return out
}

// inputSteps lists the components among cols at position j where the
// format's residual stream differs from the reference's.
func (s *attnScan) inputSteps(j int, cols []bool) []string {
	d := s.d
	var out []string
	for c, on := range cols {
		if !on || c >= len(s.h[j]) {
			continue
		}
		e, f := s.h[j][c], s.hf[j][c]
		if e.Cmp(f) == 0 {
			continue
		}
		if d.approx && d.belowReference(new(big.Rat).Abs(new(big.Rat).Sub(e, f)), e) {
			continue
		}
		if r, ok := d.roundRat(e); ok && r.Cmp(f) == 0 {
			out = append(out, fmt.Sprintf("at position %d, %s = %s rounds to %s", j+1, d.component(c), numText(e), numText(f)))
			continue
		}
		ref := "the exact"
		if d.approx {
			ref = "the reference's"
		}
		out = append(out, fmt.Sprintf("at position %d, %s is %s for %s %s (%s)", j+1, d.component(c), numText(f), ref, numText(e), d.got.Trace.States[s.k-1].Label))
	}
	return out
}

// maxSteps is the number of rounding steps a cause names.
const maxSteps = 3

// stepsText joins the first maxSteps steps, after a colon.
func stepsText(steps []string) string {
	if len(steps) == 0 {
		return ""
	}
	s := ": " + strings.Join(steps[:min(len(steps), maxSteps)], "; ")
	if n := len(steps) - maxSteps; n > 0 {
		s += fmt.Sprintf("; and %d more", n)
	}
	return s
}

// differs reports whether position i of state k differs from the
// reference by more than one unit of the format's spacing (or is not
// finite) in some component that is set in mask and flows to the output
// (with a post-norm, which mixes the components, in any that flows).
func (d *diagnosis) differs(k, i int, mask []bool) bool {
	if d.infos[k].postNorm {
		mask = nil
	}
	for c, v := range d.got.Trace.States[k].Vectors[i] {
		if !d.flows[k][i][c] || mask != nil && !mask[c] {
			continue
		}
		if !v.Finite() {
			return true
		}
		if _, off := d.offBy(d.ref.Trace.States[k].Vectors[i][c], v, 1); off {
			return true
		}
	}
	return false
}

// scoreOverflow finds, at query position i, the first key j whose score
// computation q·k (the products q_c k_c summed left to right, then
// divided by √d_key and τ) passes through a value the format cannot hold.
func (d *diagnosis) scoreOverflow(label string, head, i int, att *model.Attention, q []*big.Rat, keys [][]*big.Rat, divide *big.Rat) *Cause {
	if d.overflowAt == nil {
		return nil
	}
	t := new(big.Rat)
	for j := range keys {
		if !maskAllows(att.Mask, i+1, j+1) {
			continue
		}
		acc := new(big.Rat)
		what := ""
		for c, qc := range q {
			kc := keys[j][c]
			if qc == nil || kc == nil {
				continue
			}
			t.Mul(qc, kc)
			if d.overflows(t) {
				what = fmt.Sprintf("the product q_%d·k_%d = %s × %s = %s", c+1, c+1, numText(qc), numText(kc), numText(t))
				break
			}
			acc.Add(acc, t)
			if d.overflows(acc) {
				what = fmt.Sprintf("the partial sum of q·k up to component %d, %s,", c+1, numText(acc))
				break
			}
		}
		if what == "" && divide != nil {
			s := new(big.Rat).Quo(acc, divide)
			if d.overflows(s) {
				what = fmt.Sprintf("the scaled score %s", numText(s))
			}
		}
		if what == "" {
			continue
		}
		where := fmt.Sprintf("%s, head %d, position %d, key j = %d", label, head+1, i+1, j+1)
		detail := fmt.Sprintf("at position %d, %s in the score of j = %d is beyond %s's largest finite value %s", i+1, what, j+1, d.format(), d.maxFiniteText())
		return &Cause{Kind: "overflow", Where: where, Detail: d.withNote(detail)}
	}
	return nil
}

// equalScores reports whether two reference scores are the same score:
// equal exactly, or, against a floating-point reference, within its own
// rounding.
func (d *diagnosis) equalScores(a, b *big.Rat) bool {
	if a.Cmp(b) == 0 {
		return true
	}
	if !d.approx {
		return false
	}
	diff := new(big.Rat).Sub(a, b)
	return d.belowReference(diff.Abs(diff), a)
}

// ---------------------------------------------------------------------
// Feed-forward sublayers: sums that lose an addend inside the sublayer.

// ffAbsorbed replays the feed-forward sublayer that produced state k in
// the format's arithmetic, at the influencing positions where that state
// differs from the reference by more than a unit in the last place: its
// input as the format holds it, its weights rounded to the format, each
// product and each partial sum rounded in matVec's order (left to right,
// the bias last), which is what the format computes, since every
// operation of the backends is correctly rounded. It reports the first
// sum acc + t with t ≠ 0 that comes out acc, in a hidden unit whose
// activation then differs from the exact one, or in an output row whose
// value does. Only ReLU and linear units are replayed past the
// activation; a sublayer that reads a layer norm is not replayed.
func (d *diagnosis) ffAbsorbed(k int) *Cause {
	info := d.infos[k]
	if info.attn || info.layer < 0 || info.normedInput {
		return nil
	}
	ff := d.m.Layers[info.layer].FeedForward
	if ff == nil {
		return nil
	}
	linearish := ff.Activation == model.ReLU || ff.Activation == model.Linear
	label := info.label
	writes := orOf(nonzeroRows(ff.W2), nonzeroEntries(ff.B2))
	var w *ffWeights
	for i := range d.got.Trace.States[k].Vectors {
		if !d.differs(k, i, writes) {
			continue
		}
		if w == nil {
			var ok bool
			if w, ok = d.ffWeightsOf(ff); !ok {
				return nil
			}
		}
		// The output rows, and the hidden units, that flow to the output.
		rowFlows := d.flows[k][i]
		if info.postNorm {
			rowFlows = nil
		}
		unitFlows := make([]bool, len(w.w1))
		for r, row := range w.w2 {
			if rowFlows == nil || rowFlows[r] {
				for _, e := range row {
					unitFlows[e.col] = true
				}
			}
		}
		xe, oke := d.ratVector(d.ref.Trace.States[k-1].Vectors[i])
		xf, okf := d.ratVector(d.got.Trace.States[k-1].Vectors[i])
		if !oke || !okf {
			continue
		}
		ze := exactRows(w.w1, w.b1, xe)
		zf, ev, _ := d.replayRows(w.w1f, w.b1f, xf, d.component)
		for r, e := range ev {
			if e == nil || !unitFlows[r] || w.act(ze[r]).Cmp(w.act(zf[r])) == 0 && (linearish || ze[r].Cmp(zf[r]) == 0) {
				continue
			}
			where := fmt.Sprintf("%s, position %d, hidden unit %d", label, i+1, r+1)
			detail := d.absorbedDetail(e, fmt.Sprintf("hidden unit %d of W1 x + b1", r+1), "W1", "b1", d.component) +
				fmt.Sprintf("; the unit's exact pre-activation is %s, the format's %s", numText(ze[r]), d.valueText(zf[r]))
			return &Cause{Kind: "absorbed", Where: where, Detail: d.withNote(detail)}
		}
		if !linearish {
			continue
		}
		ae, af := make([]*big.Rat, len(ze)), make([]*big.Rat, len(zf))
		for r := range ze {
			ae[r], af[r] = w.act(ze[r]), w.act(zf[r])
		}
		ye := exactRows(w.w2, w.b2, ae)
		yf, ev2, _ := d.replayRows(w.w2f, w.b2f, af, hiddenUnit)
		for r, e := range ev2 {
			if e == nil || rowFlows != nil && !rowFlows[r] || ye[r].Cmp(yf[r]) == 0 {
				continue
			}
			where := fmt.Sprintf("%s, position %d, component %s (before the residual connection)", label, i+1, d.component(r))
			detail := d.absorbedDetail(e, fmt.Sprintf("the sublayer's output %s = W2 act(…) + b2", d.component(r)), "W2", "b2", hiddenUnit) +
				fmt.Sprintf("; exactly the output is %s, the format's %s", numText(ye[r]), d.valueText(yf[r]))
			return &Cause{Kind: "absorbed", Where: where, Detail: d.withNote(detail)}
		}
	}
	return nil
}

// ffWeights are a feed-forward sublayer's parameters, exact and as the
// format holds them.
type ffWeights struct {
	w1, w2, w1f, w2f sparseMatrix
	b1, b2, b1f, b2f []*big.Rat
	// act applies the activation where it is ReLU (the identity
	// otherwise: only ReLU and linear units are replayed past it).
	act func(*big.Rat) *big.Rat
}

// ffWeightsOf evaluates ff's parameters, and rounds them to the format;
// false when a weight is irrational against an exact reference or
// overflows the format.
func (d *diagnosis) ffWeightsOf(ff *model.FeedForward) (*ffWeights, bool) {
	w := &ffWeights{act: func(z *big.Rat) *big.Rat {
		if ff.Activation == model.ReLU && z.Sign() < 0 {
			return new(big.Rat)
		}
		return z
	}}
	var ok1, ok2, ok3, ok4 bool
	w.w1, ok1 = d.sparse(ff.W1)
	w.w2, ok2 = d.sparse(ff.W2)
	w.b1, ok3 = d.vector(ff.B1, ff.W1.Rows)
	w.b2, ok4 = d.vector(ff.B2, ff.W2.Rows)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, false
	}
	w.w1f, w.w2f, w.b1f, w.b2f = d.roundMatrix(w.w1), d.roundMatrix(w.w2), d.roundVector(w.b1), d.roundVector(w.b2)
	if w.w1f == nil || w.w2f == nil || w.b1f == nil || w.b2f == nil {
		return nil, false
	}
	return w, true
}

// ffOverflow replays the feed-forward sublayer that produced state k at
// position i, as ffAbsorbed does, and describes the first product or
// partial sum that leaves the format's range: in W1 x + b1, then (for
// ReLU and linear units) in W2 act(·) + b2. It returns "" when none does
// or the sublayer cannot be replayed.
func (d *diagnosis) ffOverflow(k, i int) string {
	info := d.infos[k]
	if info.attn || info.layer < 0 || info.normedInput || d.overflowAt == nil {
		return ""
	}
	ff := d.m.Layers[info.layer].FeedForward
	if ff == nil {
		return ""
	}
	w, ok1 := d.ffWeightsOf(ff)
	xf, ok2 := d.ratVector(d.got.Trace.States[k-1].Vectors[i])
	if !ok1 || !ok2 {
		return ""
	}
	z, _, overs := d.replayRows(w.w1f, w.b1f, xf, d.component)
	for r, o := range overs {
		if o != "" {
			return fmt.Sprintf("in hidden unit %d of W1 x + b1, %s", r+1, o)
		}
	}
	if ff.Activation != model.ReLU && ff.Activation != model.Linear {
		return ""
	}
	a := make([]*big.Rat, len(z))
	for r, v := range z {
		a[r] = w.act(v)
	}
	_, _, overs = d.replayRows(w.w2f, w.b2f, a, hiddenUnit)
	for r, o := range overs {
		if o != "" {
			return fmt.Sprintf("in the output %s = W2 act(…) + b2, %s", d.component(r), o)
		}
	}
	return ""
}

// normOverflow replays, in the format's arithmetic, the layer norm that
// the sublayer producing state k reads (pre-norm) or the final norm, at
// the flowing positions where the state differs from the reference: the
// sum of the components, their mean μ, each (x_c − μ)² and the sum of
// those, as model's layer norm computes them. A square or sum beyond the
// format's range makes σ² infinite and the normalised vector 0, a wrong
// value but a finite one, which the state-level overflow check cannot see.
// (A post-norm reads x + f(x), which the trace does not hold.)
func (d *diagnosis) normOverflow(k int) *Cause {
	info := d.infos[k]
	if k == 0 || d.overflowAt == nil || !(info.normedInput || info.layer < 0) || info.norm == nil {
		return nil
	}
	var sel sparseMatrix
	if info.norm.Select != nil {
		var ok bool
		if sel, ok = d.sparse(*info.norm.Select); !ok {
			return nil
		}
		if sel = d.roundMatrix(sel); sel == nil {
			return nil
		}
	}
	label := info.label
	for i := range d.got.Trace.States[k].Vectors {
		if !d.differs(k, i, nil) {
			continue
		}
		x, ok := d.ratVector(d.got.Trace.States[k-1].Vectors[i])
		if !ok {
			continue
		}
		if sel != nil {
			zero := make([]*big.Rat, len(sel))
			for r := range zero {
				zero[r] = new(big.Rat)
			}
			x, _, _ = d.replayRows(sel, zero, x, d.component)
		}
		what := ""
		sum := new(big.Rat)
		for _, v := range x {
			if e := new(big.Rat).Add(sum, v); d.overflows(e) {
				what = fmt.Sprintf("the sum of the components reaches %s", numText(e))
				break
			} else {
				sum = d.round(e)
			}
		}
		if what == "" {
			mu := d.round(new(big.Rat).Quo(sum, big.NewRat(int64(len(x)), 1)))
			sq := new(big.Rat)
			for c, v := range x {
				cen := d.round(new(big.Rat).Sub(v, mu))
				t := new(big.Rat).Mul(cen, cen)
				if d.overflows(t) {
					base := numText(cen)
					if cen.Sign() < 0 || !cen.IsInt() {
						base = "(" + base + ")"
					}
					what = fmt.Sprintf("the square (x_%d − μ)² = %s² = %s", c+1, base, numText(t))
					break
				}
				if e := new(big.Rat).Add(sq, d.round(t)); d.overflows(e) {
					what = fmt.Sprintf("the sum of the squares (x_c − μ)² reaches %s", numText(e))
					break
				} else {
					sq = d.round(e)
				}
			}
		}
		if what == "" {
			continue
		}
		norm := "pre-norm"
		if info.layer < 0 {
			norm = "final norm"
		}
		where := fmt.Sprintf("%s (its %s), position %d", label, norm, i+1)
		detail := fmt.Sprintf("in the layer norm, %s, beyond %s's largest finite value %s: σ² is infinite and the normalised vector comes out 0", what, d.format(), d.maxFiniteText())
		return &Cause{Kind: "overflow", Where: where, Detail: d.withNote(detail)}
	}
	return nil
}

// hiddenUnit names hidden unit c (0-based) of a feed-forward sublayer.
func hiddenUnit(c int) string { return fmt.Sprintf("hidden unit %d", c+1) }

// absorption is a sum acc + t, computed in the format, that came out acc.
type absorption struct {
	acc, t *big.Rat
	// col is the column of the term t, or −1 for the bias.
	col    int
	weight *big.Rat // the term's rounded weight (nil for the bias)
	x      *big.Rat // the term's input
}

// absorbedDetail describes an absorption in a sum named sum, whose
// weights and bias are called wName and bName and whose inputs are named
// by input.
func (d *diagnosis) absorbedDetail(e *absorption, sum, wName, bName string, input func(int) string) string {
	term := fmt.Sprintf("the bias %s = %s", bName, numText(e.t))
	if e.col >= 0 {
		term = fmt.Sprintf("the term %s·%s = %s × %s = %s", wName, input(e.col), numText(e.weight), numText(e.x), numText(e.t))
	}
	sp := d.spacing(e.acc)
	at := new(big.Rat).Abs(e.t)
	why := fmt.Sprintf("|%s| is below half its spacing %s there", numText(at), spacingText(sp))
	if new(big.Rat).Mul(at, big.NewRat(2, 1)).Cmp(sp) == 0 {
		why = fmt.Sprintf("|%s| is half its spacing %s there, and the tie goes to the even value", numText(at), spacingText(sp))
	}
	sum2 := new(big.Rat).Add(e.acc, e.t)
	return fmt.Sprintf("in %s, adding %s to the sum so far, %s, gives %s exactly; %s keeps %s, since %s",
		sum, term, numText(e.acc), numText(sum2), d.format(), numText(e.acc), why)
}

// valueText prints a value the format holds, as the format prints it.
func (d *diagnosis) valueText(x *big.Rat) string { return heldText(d.runner.Round(x)) }

// heldText prints a value a format holds: an integer in full (fp16
// prints 2500 as 2.5e+03), anything else as the format prints it, up to
// maxDigits significant digits; a wider value (a bigfloat of hundreds of
// bits) is printed to maxDigits digits, marked ≈.
func heldText(v model.Value) string {
	r, ok := v.Rat()
	if ok && r.IsInt() && r.Num().BitLen() <= 64 {
		return r.Num().String()
	}
	if !ok || significantDigits(v.Text) <= maxDigits {
		return v.Text
	}
	return "≈" + floatText(new(big.Float).SetPrec(128).SetRat(r), maxDigits)
}

// maxDigits bounds the significant digits of a printed value.
const maxDigits = 20

// significantDigits counts the digits of a decimal's significand, "1.25e-3"
// has 3 (leading zeros excluded).
func significantDigits(s string) int {
	if k := strings.IndexAny(s, "eE"); k >= 0 {
		s = s[:k]
	}
	n, lead := 0, true
	for _, ch := range s {
		if ch < '0' || ch > '9' {
			continue
		}
		if lead && ch == '0' {
			continue
		}
		lead = false
		n++
	}
	return n
}

// exactRows returns W x + b exactly.
func exactRows(w sparseMatrix, b []*big.Rat, x []*big.Rat) []*big.Rat {
	out := make([]*big.Rat, len(w))
	t := new(big.Rat)
	for r, row := range w {
		acc := new(big.Rat)
		for _, e := range row {
			acc.Add(acc, t.Mul(e.val, x[e.col]))
		}
		out[r] = acc.Add(acc, b[r])
	}
	return out
}

// replayRows returns W x + b computed as the format computes it (w and b
// already rounded to it, x held by it): each product rounded, the sum
// rounded after each addition, left to right, the bias last. Zero terms
// are skipped (adding 0 changes no value). events[r] is the first
// addition in row r that came out as the sum so far although the addend
// was not zero.
func (d *diagnosis) replayRows(w sparseMatrix, b []*big.Rat, x []*big.Rat, input func(int) string) (out []*big.Rat, events []*absorption, overs []string) {
	out = make([]*big.Rat, len(w))
	events = make([]*absorption, len(w))
	overs = make([]string, len(w))
	for r, row := range w {
		acc := new(big.Rat)
		add := func(t *big.Rat, col int, weight, xv *big.Rat) {
			if t.Sign() == 0 {
				return
			}
			exact := new(big.Rat).Add(acc, t)
			if overs[r] == "" && d.overflows(exact) {
				overs[r] = fmt.Sprintf("the partial sum %s", numText(exact))
			}
			sum := d.round(exact)
			if acc.Sign() != 0 && sum.Cmp(acc) == 0 && events[r] == nil {
				events[r] = &absorption{acc: new(big.Rat).Set(acc), t: new(big.Rat).Set(t), col: col, weight: weight, x: xv}
			}
			acc = sum
		}
		for _, e := range row {
			if x[e.col] == nil || x[e.col].Sign() == 0 {
				continue
			}
			p := new(big.Rat).Mul(e.val, x[e.col])
			if overs[r] == "" && d.overflows(p) {
				overs[r] = fmt.Sprintf("the product of %s = %s by the weight %s, %s,", input(e.col), numText(x[e.col]), numText(e.val), numText(p))
			}
			add(d.round(p), e.col, e.val, x[e.col])
		}
		add(b[r], -1, nil, nil)
		out[r] = acc
	}
	return out, events, overs
}

// round is the format's value of x; a value that overflows is left
// exact (the overflow check reports it).
func (d *diagnosis) round(x *big.Rat) *big.Rat {
	if r, ok := d.roundRat(x); ok {
		return r
	}
	return x
}

// vector returns an exact parameter vector of length n (nil: zeros).
func (d *diagnosis) vector(v model.Vector, n int) ([]*big.Rat, bool) {
	out := make([]*big.Rat, n)
	for k := range out {
		out[k] = new(big.Rat)
		if v == nil || v[k].IsZero() {
			continue
		}
		x, ok := d.weight(v[k])
		if !ok {
			return nil, false
		}
		out[k] = x
	}
	return out, true
}

// roundMatrix rounds every weight to the format (nil if one overflows).
func (d *diagnosis) roundMatrix(w sparseMatrix) sparseMatrix {
	out := make(sparseMatrix, len(w))
	for r, row := range w {
		for _, e := range row {
			v, ok := d.runner.Round(e.val).Rat()
			if !ok {
				return nil
			}
			if v.Sign() != 0 {
				out[r] = append(out[r], sparseEntry{e.col, v})
			}
		}
	}
	return out
}

// roundVector rounds every entry to the format (nil if one overflows).
func (d *diagnosis) roundVector(v []*big.Rat) []*big.Rat {
	out := make([]*big.Rat, len(v))
	for k, x := range v {
		r, ok := d.runner.Round(x).Rat()
		if !ok {
			return nil
		}
		out[k] = r
	}
	return out
}

// ratVector returns the points of a traced vector (false if one is not
// a finite point).
func (d *diagnosis) ratVector(vs []model.Value) ([]*big.Rat, bool) {
	out := make([]*big.Rat, len(vs))
	for c, v := range vs {
		r, ok := v.Rat()
		if !ok {
			return nil, false
		}
		out[c] = r
	}
	return out, true
}

// spacingText prints a spacing, a power of two: small ones as 2^-k.
func spacingText(sp *big.Rat) string {
	if sp.Sign() > 0 && sp.Num().Cmp(big.NewInt(1)) == 0 {
		if k := sp.Denom().BitLen() - 1; k > 4 && new(big.Int).Lsh(big.NewInt(1), uint(k)).Cmp(sp.Denom()) == 0 {
			return fmt.Sprintf("2^-%d", k)
		}
	}
	return numText(sp)
}
