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
	// gapUnits: a score gap at most this wide is a "gap" cause: the
	// rounding of the products q·k and of their sum can close it.
	gapUnits = 4
)

// exactLimit is the longest input run in exact arithmetic for the
// reference: an exact run costs O(n²) rational operations whose operands
// grow with n, so longer inputs use a refBits-bit reference instead.
const exactLimit = 2048

// refBits is the significand width of the floating-point reference used
// where exact arithmetic cannot run the model (softmax's exp, layer
// norm's square root, irrational weights) or would be too slow: its
// rounding is some 2^-200 below that of any format diagnosed.
const refBits = 256

// Diagnose explains why con's model, run by runner (a rounding format:
// fp16, bf16, fp32, fp64, fp8 or a P-bit bigfloat), gives a wrong output
// on input c at position pos (1-based): the first thing in the forward
// pass (embedding, layer 1 attention, layer 1 feed-forward, …, output)
// that the engine can see going wrong, where it can reach the output at
// pos. It runs c twice with the trace, exactly (or, where exact
// arithmetic cannot run the model or n > exactLimit, with a 256-bit
// reference, which Detail then names) and in the runner's format, and
// compares the two state by state, at the positions and components
// whose values flow to the output at pos through the masks and the
// nonzero weights. In each state it looks, in this order, for
//
//   - "overflow": a value the format holds as ±Inf or NaN (with the
//     weight, product or partial sum that left the range, where a
//     feed-forward replay finds it); a square or sum in a layer norm
//     beyond the range (which makes the normalised vector 0);
//   - in an attention sublayer whose output at a query position differs
//     from the reference's by more than a unit in the last place:
//     "overflow" of a product q_c k_c, partial sum or score; "tie", two
//     scores from the reference's residual stream that differ exactly
//     but round to one value of the format; then "gap", a lead of the
//     largest score within gapUnits units of the format's spacing, which
//     the rounding of the products and their sum can close;
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
		res, note, err := reference(con.Model, c)
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
	d, err := newDiagnosis(con.Model, runner, ref, got, pos, note)
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
// than exactLimit, at refBits bits; note says which and why, for Detail.
func reference(m *model.Model, c recipes.Case) (*model.Result, string, error) {
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
	r, err := model.Instantiate[*big.Float](fastFloat{numeric.NewBigFloat(refBits)}, m)
	if err != nil {
		return nil, "", fmt.Errorf("diagnose: no reference (%s; at %d bits: %w)", why, refBits, err)
	}
	res, err := runCase(r, c)
	if err != nil {
		return nil, "", fmt.Errorf("diagnose: no reference (%s; at %d bits: %w)", why, refBits, err)
	}
	return res, fmt.Sprintf("against a %d-bit reference: %s", refBits, why), nil
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
	// note names the reference when it is not exact; approx is then set.
	note   string
	approx bool
	// overflowAt is the smallest magnitude the format rounds to a
	// non-finite value, and overflowIncl whether overflowAt itself does;
	// nil for formats without overflow (bigfloat).
	overflowAt   *big.Rat
	overflowIncl bool
}

func newDiagnosis(m *model.Model, runner model.Runner, ref, got *model.Result, pos int, note string) (*diagnosis, error) {
	if ref.Trace == nil || got.Trace == nil {
		return nil, errors.New("diagnose: a run returned no trace")
	}
	first := ""
	if len(got.Trace.States) > 0 {
		first = got.Trace.States[0].Label
	}
	d := &diagnosis{m: m, runner: runner, prec: runner.Precision(), ref: ref, got: got,
		infos: stateInfos(m, first), pos: pos - 1, note: note, approx: note != ""}
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
		u, _ := new(big.Rat).Quo(diff, sp).Float64()
		detail += fmt.Sprintf(", off by %s of its spacing %s there", unitsText(u), spacingText(sp))
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
	return y.Cmp(scale.Mul(scale, pow2(-(refBits-16)))) <= 0
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

// unitsText prints a number of units in the last place.
func unitsText(u float64) string {
	s := strconv.FormatFloat(u, 'g', 2, 64)
	if u >= 100 {
		s = strconv.FormatFloat(u, 'f', 0, 64)
	}
	if s == "1" {
		return "1 unit"
	}
	return s + " units"
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
	lo, hi, err := e.Enclose(refBits + 16)
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

// scored is a key position with its exact score.
type scored struct {
	j int // 0-based
	s *big.Rat
}

// attention looks for a rounded tie, a score overflow, or a narrow gap in
// the attention sublayer that produced state k, at the influencing query
// positions where that state differs from the reference by more than a
// unit in the last place. Ties and overflows come first, in position
// order; gaps only when the sublayer shows neither.
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
	// The residual stream that feeds the sublayer, as the reference has it.
	in := d.ref.Trace.States[k-1].Vectors
	h := make([][]*big.Rat, len(in))
	for j, vec := range in {
		h[j] = make([]*big.Rat, len(vec))
		for c, v := range vec {
			r, ok := v.Rat()
			if !ok {
				return nil
			}
			h[j][c] = r
		}
	}
	// The factor dividing every score: √d_key (when scaled) times τ.
	var temp *big.Rat
	if !att.Temperature.IsZero() {
		t, ok := d.weight(att.Temperature)
		if !ok || t.Sign() <= 0 {
			return nil
		}
		temp = t
	}
	type headScores struct {
		q      sparseMatrix
		keys   [][]*big.Rat
		divide *big.Rat // nil: 1
	}
	heads := make([]*headScores, len(att.Heads))
	for hi, head := range att.Heads {
		q, ok1 := d.sparse(head.Q)
		kw, ok2 := d.sparse(head.K)
		if !ok1 || !ok2 {
			continue
		}
		hs := &headScores{q: q, keys: make([][]*big.Rat, len(h)), divide: temp}
		if att.Scale == model.ScaleSqrtDKey && head.Q.Rows != 1 {
			s, ok := d.weight(numeric.Sqrt(numeric.LitInt(int64(head.Q.Rows))))
			if !ok {
				continue // √d_key irrational against an exact reference
			}
			if hs.divide != nil {
				s.Mul(s, hs.divide)
			}
			hs.divide = s
		}
		for j := range h {
			hs.keys[j] = kw.apply(h[j])
		}
		heads[hi] = hs
	}
	scoresAt := func(hs *headScores, q []*big.Rat, i int) []scored {
		var out []scored
		for j := range h {
			if !maskAllows(att.Mask, i+1, j+1) {
				continue
			}
			s := new(big.Rat)
			t := new(big.Rat)
			for c, qc := range q {
				if qc == nil || hs.keys[j][c] == nil {
					continue
				}
				s.Add(s, t.Mul(qc, hs.keys[j][c]))
			}
			if hs.divide != nil {
				s.Quo(s, hs.divide)
			}
			out = append(out, scored{j, s})
		}
		return out
	}
	label := d.infos[k].label
	// Pass 1: overflows and rounded ties.
	for _, i := range queries {
		for hi, hs := range heads {
			if hs == nil {
				continue
			}
			q := hs.q.apply(h[i])
			if c := d.scoreOverflow(label, hi, i, att, q, hs.keys, hs.divide); c != nil {
				return c
			}
			if c := d.tie(label, hi, i, scoresAt(hs, q, i)); c != nil {
				return c
			}
		}
	}
	// Pass 2: narrow gaps.
	for _, i := range queries {
		for hi, hs := range heads {
			if hs == nil {
				continue
			}
			if c := d.gap(label, hi, i, scoresAt(hs, hs.q.apply(h[i]), i)); c != nil {
				return c
			}
		}
	}
	return nil
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

// maxScore returns the largest of the scores and where it first occurs.
func maxScore(ss []scored) (best scored) {
	for k, s := range ss {
		if k == 0 || s.s.Cmp(best.s) > 0 {
			best = s
		}
	}
	return best
}

// tie finds a key whose score is below the maximum exactly but rounds to
// the same value of the format: the first such key in position order.
func (d *diagnosis) tie(label string, head, i int, ss []scored) *Cause {
	if len(ss) < 2 {
		return nil
	}
	best := maxScore(ss)
	rmax := d.runner.Round(best.s)
	if !rmax.Finite() {
		where := fmt.Sprintf("%s, head %d, position %d, key j = %d", label, head+1, i+1, best.j+1)
		detail := fmt.Sprintf("at position %d, the largest score, of j = %d, is %s, beyond %s's largest finite value %s", i+1, best.j+1, numText(best.s), d.format(), d.maxFiniteText())
		return &Cause{Kind: "overflow", Where: where, Detail: d.withNote(detail)}
	}
	// A score rounds to the maximum's value only within a spacing of it:
	// only those are rounded (RoundRat is not free).
	sp := d.spacing(best.s)
	near := new(big.Rat).Sub(best.s, new(big.Rat).Mul(sp, big.NewRat(2, 1)))
	var tied []scored
	count := 0
	for _, s := range ss {
		if s.s.Cmp(near) < 0 {
			continue
		}
		if d.equalScores(s.s, best.s) {
			count++
			continue
		}
		if r := d.runner.Round(s.s); r.Finite() && r.Lo.Cmp(rmax.Lo) == 0 {
			tied = append(tied, s)
			count++
		}
	}
	if len(tied) == 0 {
		return nil
	}
	a, b := tied[0], best
	if b.j < a.j {
		a, b = b, a
	}
	exactly := "exactly"
	if d.approx {
		exactly = "in the reference"
	}
	where := fmt.Sprintf("%s, head %d, position %d, keys j = %d and %d", label, head+1, i+1, a.j+1, b.j+1)
	detail := fmt.Sprintf("at position %d, the scores of j = %d and j = %d are %s and %s %s; %s rounds both to %s (its spacing at %s is %s)",
		i+1, a.j+1, b.j+1, numText(a.s), numText(b.s), exactly, d.format(), heldText(rmax), numText(new(big.Rat).Abs(best.s)), spacingText(sp))
	if count > 2 {
		detail += fmt.Sprintf("; %d positions in all round to the maximum", count)
	}
	return &Cause{Kind: "tie", Where: where, Detail: d.withNote(detail)}
}

// gap finds a maximum score whose lead over the next is at most gapUnits
// units of the format's spacing at it.
func (d *diagnosis) gap(label string, head, i int, ss []scored) *Cause {
	best := maxScore(ss)
	var second *scored
	for k := range ss {
		s := &ss[k]
		if d.equalScores(s.s, best.s) {
			continue
		}
		if second == nil || s.s.Cmp(second.s) > 0 {
			second = s
		}
	}
	if second == nil {
		return nil
	}
	g := new(big.Rat).Sub(best.s, second.s)
	sp := d.spacing(best.s)
	if sp.Sign() == 0 || g.Cmp(new(big.Rat).Mul(sp, big.NewRat(gapUnits, 1))) > 0 {
		return nil
	}
	a, b := *second, best
	if b.j < a.j {
		a, b = b, a
	}
	u, _ := new(big.Rat).Quo(g, sp).Float64()
	where := fmt.Sprintf("%s, head %d, position %d, keys j = %d and %d", label, head+1, i+1, a.j+1, b.j+1)
	detail := fmt.Sprintf("at position %d, the largest score, %s (j = %d), leads the next, %s (j = %d), by %s, %s of %s's spacing %s there; the rounding of the products q·k and of their sum can close it",
		i+1, numText(best.s), best.j+1, numText(second.s), second.j+1, numText(g), unitsText(u), d.format(), spacingText(sp))
	return &Cause{Kind: "gap", Where: where, Detail: d.withNote(detail)}
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
// prints 2500 as 2.5e+03), anything else as the format prints it.
func heldText(v model.Value) string {
	if r, ok := v.Rat(); ok && r.IsInt() && r.Num().BitLen() <= 64 {
		return r.Num().String()
	}
	return v.Text
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
	if r, ok := d.runner.Round(x).Rat(); ok {
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
