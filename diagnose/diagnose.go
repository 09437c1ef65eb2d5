package diagnose

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
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

// minRefBits is the least significand width of the floating-point
// reference used where exact arithmetic cannot run the model (softmax's
// exp, layer norm's square root, irrational weights); refBits widens it
// for wide formats. Where it can, the exact run is also the faster one:
// at n = 4097 it took 0.15 s for the lookup and 2 to 7 s for dyck1,
// count and the prefix average, against 3 to 26 s at 256 bits.
const minRefBits = 256

// refBits is the reference's width for a P-bit format: at least
// minRefBits, and 64 bits beyond P, so that the reference's rounding stays
// some 2^-64 or more below the format's (a 256-bit reference would blame a
// 1000-bit format for the reference's own error).
func refBits(p numeric.Precision) int {
	return max(minRefBits, p.SignificandBits()+64)
}

// Cause is what the engine sees behind a failure: the kind, and one line
// that says where and why.
type Cause struct {
	// Kind is one of "tie" (two scores that differ exactly but that the
	// format computes as one value, each product and partial sum rounded
	// as the model rounds them), "gap" (a computed lead within a few
	// units of the format's spacing, reversed under a hardmax),
	// "overflow" (a value beyond the format's range: ±inf or NaN),
	// "absorbed" (a sum that lost its smallest addend), "rounding" (the
	// first value that left the exact one, when none of the above fits),
	// or "unknown" when the diagnosis itself could not run (Detail says
	// why).
	Kind CauseKind `json:"kind"`
	// Where names the sublayer (as in the trace), the position and the
	// component.
	Where  string `json:"where"`
	Detail string `json:"detail"`
}

// CauseKind is the kind of a Cause: reports write it as its string.
type CauseKind string

// The kinds of cause, as Cause.Kind describes them.
const (
	KindTie      CauseKind = "tie"
	KindGap      CauseKind = "gap"
	KindOverflow CauseKind = "overflow"
	KindAbsorbed CauseKind = "absorbed"
	KindRounding CauseKind = "rounding"
	KindUnknown  CauseKind = "unknown"
)

// Failure explains why con's model, run by runner (a rounding format:
// fp16, bf16, fp32, fp64, fp8 or a P-bit bigfloat), gives a wrong output
// on input c at position pos (1-based): the first thing in the forward
// pass (embedding, layer 1 attention, layer 1 feed-forward, …, output)
// that the engine can see going wrong, where it can reach the output at
// pos. It runs c twice with the trace, exactly (or, where exact
// arithmetic cannot run the model, with a reference of refBits bits,
// max(256, P + 64) for a P-bit format, which Detail then names) and in
// the runner's format, and
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
// Failure returns nil, nil when it sees nothing it can name: when the
// output at pos is right in the runner's format (check.Compare with
// con.Expected and con.Bounds), when the runner does not round (exact or
// interval precision: a failure there is the construction's, not the
// format's), and when the two runs agree everywhere (the construction
// itself is wrong, which no rounding explains). An error means it could
// not run: a bad position, or a model that neither exact arithmetic nor
// the reference can compute on c.
func Failure(con *recipes.Construction, runner eval.Runner, c recipes.Case, pos int) (*Cause, error) {
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
		// error (as in check.Run).
		c.Stream = check.RoundStream(runner, c.Stream)
	}
	// The reference, the costlier run, goes on while the format's runs
	// and is checked.
	type refRun struct {
		res  *eval.Result
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
			// Compare, not CompareAt: a real reference's correct
			// rounding passes CompareAt, and is still a value whose
			// distance to the real the diagnosis can explain.
			if ok, _ := check.Compare(want[pos-1], got.Outputs[pos-1], con.Bounds, con.Model.Output.Labels); ok {
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
func runCase(r eval.Runner, c recipes.Case) (*eval.Result, error) {
	if c.Stream != nil {
		return r.RunStream(c.Stream, true)
	}
	return r.Run(c.Symbols, true)
}

// reference runs c exactly, or, when exact arithmetic cannot (an
// irrational weight, softmax's exp, a square root), at bits bits; note
// says which and why, for Detail.
func reference(m *model.Model, c recipes.Case, bits int) (*eval.Result, string, error) {
	r, err := eval.New(numeric.Precision{Kind: numeric.KindExact}, m)
	if err == nil {
		var res *eval.Result
		if res, err = runCase(r, c); err == nil {
			return res, "", nil
		}
	}
	why := "exact arithmetic cannot run the model: " + err.Error()
	if errors.Is(err, numeric.ErrIrrational) {
		msg := err.Error()
		if k := strings.Index(msg, ": exact backend"); k >= 0 {
			msg = msg[:k]
		}
		why = "in exact arithmetic " + msg + " is irrational"
	}
	wide, err := eval.Instantiate[*big.Float](fastFloat{numeric.NewBigFloat(uint(bits))}, m)
	if err != nil {
		return nil, "", fmt.Errorf("diagnose: no reference (%s; at %d bits: %w)", why, bits, err)
	}
	res, err := runCase(wide, c)
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
func tracer(runner eval.Runner, m *model.Model) eval.Runner {
	p := runner.Precision()
	if p.Kind != numeric.KindBigFloat {
		return runner
	}
	if inst, err := eval.Instantiate[*big.Float](fastFloat{numeric.NewBigFloat(p.Bits)}, m); err == nil {
		return inst
	}
	return runner
}

// diagnosis holds the two traced runs of one case.
type diagnosis struct {
	m      *model.Model
	runner eval.Runner
	prec   numeric.Precision
	// ref and got are the reference's and the format's runs.
	ref, got *eval.Result
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

func newDiagnosis(m *model.Model, runner eval.Runner, ref, got *eval.Result, pos int, note string, refBits int) (*diagnosis, error) {
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

// exactly qualifies a value of the reference.
func (d *diagnosis) exactly() string {
	if d.approx {
		return "in the reference"
	}
	return "exactly"
}
