package main

import (
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/internal/suggest"
	"github.com/transformer-cookbook/verify/numeric"
)

// edelmanMaxGap bounds the gap and the spread of the scores the command
// encloses: e^{−10^5} ≈ 10^{−43430} still converts to an exact rational
// quickly; a score further below the maximum than that is enclosed by
// [0, e^{−10^5}], a gap beyond it refused.
const edelmanMaxGap = 100000

// edelmanResult is what 'verify edelman' reports, and its JSON.
type edelmanResult struct {
	Schema     string    `json:"schema"`
	N          int       `json:"n"`
	Scores     []string  `json:"scores"`
	Argmax     int       `json:"argmax"` // j*, 1-based
	Max        string    `json:"max"`
	Gap        string    `json:"gap"`   // s* − the second largest score, exactly; "" for one score
	Gamma      string    `json:"gamma"` // the γ the bound uses
	GammaGiven bool      `json:"gamma_given"`
	S          enclosure `json:"S"`     // Σ_{j≠j*} e^{s_j − s*}
	Norm       enclosure `json:"norm"`  // ‖hardmax(s) − softmax(s)‖₁, summed weight by weight
	Sharp      enclosure `json:"sharp"` // 2S/(1 + S)
	Bound      enclosure `json:"bound"` // 2n e^{−γ}
	Holds      bool      `json:"holds"` // certified: Norm's upper end below Bound's lower end
	Bits       uint      `json:"bits"`  // the interval precision that decided it
}

// enclosure is a certified interval [Lo, Hi], printed outward to 30
// significant digits, and a 6-digit approximation of its midpoint.
type enclosure struct {
	Approx string `json:"approx"`
	Lo     string `json:"lo"`
	Hi     string `json:"hi"`
	lo, hi *big.Rat
}

func newEnclosure(lo, hi *big.Rat) enclosure {
	mid := new(big.Rat).Add(lo, hi)
	mid.Quo(mid, big.NewRat(2, 1))
	return enclosure{Approx: decimalText(mid, 6, 0), Lo: decimalText(lo, 30, -1), Hi: decimalText(hi, 30, 1), lo: lo, hi: hi}
}

func (e enclosure) String() string { return "≈ " + e.Approx + " ∈ [" + e.Lo + ", " + e.Hi + "]" }

// cmdEdelman evaluates Edelman's lemma (Lemma B.7, §Simulating
// Average-Hard Attention with Soft Attention) on one score vector: its
// gap, the certified ‖hardmax(s) − softmax(s)‖₁ beside the bound
// 2n e^{−γ} and the sharp form 2S/(1 + S). A tie in the maximum, where
// the lemma's hypothesis fails, is bad input (exit 2).
func cmdEdelman(args []string, stdout io.Writer) error {
	o := new(edelmanOptions)
	positional, err := parseFlags("edelman", args, o)
	if err != nil {
		return err
	}
	if err := noPositional("edelman", positional); err != nil {
		return err
	}
	scores, gamma, err := o.read()
	if err != nil {
		return err
	}
	res, err := edelman(scores, gamma)
	if err != nil {
		return err
	}
	if o.json.on() {
		res.Schema = schemaID(kindEdelman)
		return writeJSON(stdout, res)
	}
	writeEdelman(stdout, res)
	return nil
}

// read reads --scores and --gamma (nil when not given).
func (o *edelmanOptions) read() (scores []*big.Rat, gamma *big.Rat, err error) {
	text, ok := o.scores.text, o.scores.set
	if !ok {
		return nil, nil, badInput("edelman needs --scores \"s1, s2, …\" (exact rationals separated by commas or spaces)")
	}
	if strings.Contains(text, ";") {
		// ParseVector reads ';' as a comma, for the rows of a vector
		// input; a list of scores has no rows.
		return nil, nil, badInput("--scores: %s holds ';': separate the scores by commas or spaces", suggest.Quote(text))
	}
	if scores, err = exact.ParseVector(text); err != nil {
		return nil, nil, badInput("--scores: %v", err)
	}
	if o.gamma.set {
		if gamma, err = exact.ParseRat(o.gamma.text); err != nil {
			return nil, nil, badInput("--gamma: %v", err)
		}
	}
	return scores, gamma, nil
}

// writeEdelman prints the lemma's quantities, a line each.
func writeEdelman(stdout io.Writer, res *edelmanResult) {
	given := "the gap of the scores: the lemma states s_j < s* − γ, strict, which fails at the second largest score; the bound holds at γ = gap all the same, 2S/(1 + S) < 2S ≤ 2(n − 1)e^{−γ}"
	gap := res.Gap + " (s* − the second largest score)"
	switch {
	case res.Gap == "":
		gap = "none: one score, so the hypothesis holds for every γ > 0 and hardmax = softmax = (1)"
		given = "any γ > 0 will do: shown at 1; --gamma sets another"
		if res.GammaGiven {
			given = "given"
		}
	case res.GammaGiven:
		given = "given, at most the gap " + res.Gap
	}
	fmt.Fprintf(stdout, "Edelman's lemma (Lemma B.7, §Simulating Average-Hard Attention with Soft Attention) on %s\n", plural.Of(res.N, "score"))
	fmt.Fprintf(stdout, "  maximum                    s* = %s at j* = %d, unique\n", res.Max, res.Argmax)
	fmt.Fprintf(stdout, "  gap                        %s\n", gap)
	fmt.Fprintf(stdout, "  γ                          %s (%s)\n", res.Gamma, given)
	fmt.Fprintf(stdout, "  S = Σ_{j≠j*} e^{s_j − s*}  %s\n", res.S)
	fmt.Fprintf(stdout, "  ‖hardmax − softmax‖₁       %s\n", res.Norm)
	fmt.Fprintf(stdout, "  sharp form 2S/(1 + S)      %s\n", res.Sharp)
	fmt.Fprintf(stdout, "  bound 2n e^{−γ}            %s\n", res.Bound)
	fmt.Fprintf(stdout, "  the bound holds            yes (certified in interval:%d: the norm's enclosure lies below the bound's)\n", res.Bits)
}

// edelman computes the lemma's quantities for the scores, with γ the gap
// of the scores, or the given γ (0 < γ ≤ gap).
func edelman(scores []*big.Rat, gamma *big.Rat) (*edelmanResult, error) {
	n := len(scores)
	if n == 0 {
		return nil, badInput("--scores: no score; give at least one")
	}
	best := 0
	for j, s := range scores {
		if s.Cmp(scores[best]) > 0 {
			best = j
		}
	}
	var tied []string
	second := (*big.Rat)(nil)
	for j, s := range scores {
		if j == best {
			continue
		}
		if s.Cmp(scores[best]) == 0 {
			tied = append(tied, fmt.Sprint(j+1))
		}
		if second == nil || s.Cmp(second) > 0 {
			second = s
		}
	}
	if len(tied) > 0 {
		// The first few positions: a message is one line, whatever the
		// number of ties.
		const most = 4
		list := strings.Join(tied[:min(len(tied), most)], ", ")
		if len(tied) > most {
			list += fmt.Sprintf(" and %d more", len(tied)-most)
		}
		return nil, badInput("the maximum %s is attained at positions %d and %s: the lemma's hypothesis (one j* with s_j < s_{j*} − γ, γ > 0, for every j ≠ j*) fails: a tie leaves no gap", clipNumber(scores[best]), best+1, list)
	}
	res := &edelmanResult{N: n, Argmax: best + 1, Max: scores[best].RatString()}
	for _, s := range scores {
		res.Scores = append(res.Scores, s.RatString())
	}
	var gap *big.Rat // nil: one score, no gap to bound γ
	if second != nil {
		gap = new(big.Rat).Sub(scores[best], second)
		res.Gap = gap.RatString()
	}
	switch {
	case gamma == nil && gap == nil:
		// One score: hardmax and softmax are both (1), and the hypothesis
		// holds for every γ > 0; the bound is shown at γ = 1.
		gamma = big.NewRat(1, 1)
	case gamma == nil:
		gamma = gap
	default:
		res.GammaGiven = true
		if gamma.Sign() <= 0 {
			return nil, badInput("--gamma %s: the lemma needs γ > 0", clipNumber(gamma))
		}
		if gap != nil && gamma.Cmp(gap) > 0 {
			return nil, badInput("--gamma %s is larger than the gap %s of these scores (s* = %s, the second largest %s): the lemma's hypothesis fails", clipNumber(gamma), clipNumber(gap), clipNumber(scores[best]), clipNumber(second))
		}
	}
	if gamma.Cmp(big.NewRat(edelmanMaxGap, 1)) > 0 {
		return nil, badInput("γ = %s is more than %d: e^{−γ} is below 10^{−43429}, smaller than this command encloses", clipNumber(gamma), edelmanMaxGap)
	}
	res.Gamma = gamma.RatString()
	for bits := uint(128); bits <= 1024; bits *= 2 {
		holds, decided, err := edelmanAt(res, scores, best, gamma, bits)
		if err != nil {
			return nil, err
		}
		if decided {
			if !holds {
				// The lemma is proved (lemma.edelman in 'verify claims'):
				// a certified failure is a bug in the arithmetic.
				return nil, fmt.Errorf("the bound fails on these scores (certified in interval:%d): ‖hardmax − softmax‖₁ %s, 2n e^{−γ} %s; the lemma is proved, so this is a bug in the engine", bits, res.Norm, res.Bound)
			}
			res.Holds = true
			return res, nil
		}
	}
	return nil, fmt.Errorf("the comparison of ‖hardmax − softmax‖₁ %s with 2n e^{−γ} %s is undecided at 1024 bits", res.Norm, res.Bound)
}

// edelmanAt encloses the quantities at the given interval precision and
// reports whether the norm lies below the bound (holds), above it, or
// neither (decided false).
func edelmanAt(res *edelmanResult, scores []*big.Rat, best int, gamma *big.Rat, bits uint) (holds, decided bool, err error) {
	b := numeric.NewIntervals(bits)
	floor := new(big.Rat).Neg(big.NewRat(edelmanMaxGap, 1))
	tiny, err := b.Exp(nil, b.SetRat(nil, floor))
	if err != nil {
		return false, false, err
	}
	// e_j = e^{s_j − s*} for j ≠ j*; below e^{−10^5}, the hull [0, e^{−10^5}].
	var es []*numeric.Interval
	sum := b.SetInt64(nil, 0)
	for j, s := range scores {
		if j == best {
			continue
		}
		d := new(big.Rat).Sub(s, scores[best])
		var e *numeric.Interval
		if d.Cmp(floor) < 0 {
			e = b.New()
			e.Lo.SetInt64(0)
			e.Hi.Set(tiny.Hi)
		} else if e, err = b.Exp(nil, b.SetRat(nil, d)); err != nil {
			return false, false, err
		}
		es = append(es, e)
		sum = b.Add(nil, sum, e)
	}
	z := b.Add(nil, b.SetInt64(nil, 1), sum)
	// ‖hardmax − softmax‖₁ = |1 − softmax_{j*}| + Σ_{j≠j*} softmax_j, with
	// 1 − 1/Z = S/Z (no cancellation), each weight divided on its own.
	norm, err := b.Div(nil, sum, z)
	if err != nil {
		return false, false, err
	}
	for _, e := range es {
		w, err := b.Div(nil, e, z)
		if err != nil {
			return false, false, err
		}
		norm = b.Add(nil, norm, w)
	}
	sharp, err := b.Div(nil, b.Mul(nil, b.SetInt64(nil, 2), sum), z)
	if err != nil {
		return false, false, err
	}
	eg, err := b.Exp(nil, b.SetRat(nil, new(big.Rat).Neg(gamma)))
	if err != nil {
		return false, false, err
	}
	bound := b.Mul(nil, b.SetInt64(nil, 2*int64(len(scores))), eg)
	encl := func(x *numeric.Interval) (enclosure, error) {
		lo, hi, err := b.Bounds(x)
		if err != nil {
			return enclosure{}, err
		}
		return newEnclosure(lo, hi), nil
	}
	for _, q := range []struct {
		dst *enclosure
		x   *numeric.Interval
	}{{&res.S, sum}, {&res.Norm, norm}, {&res.Sharp, sharp}, {&res.Bound, bound}} {
		if *q.dst, err = encl(q.x); err != nil {
			return false, false, err
		}
	}
	res.Bits = bits
	switch {
	case res.Norm.hi.Cmp(res.Bound.lo) < 0:
		return true, true, nil
	case res.Norm.lo.Cmp(res.Bound.hi) > 0:
		return false, true, nil
	}
	return false, false, nil
}

// decimalText prints r with sig significant digits: rounded down (dir
// < 0), up (dir > 0) or to nearest (dir = 0), so that an enclosure's ends
// printed outward still enclose. Plain below a million and above 10^−4,
// else in scientific notation.
func decimalText(r *big.Rat, sig int, dir int) string {
	if r.Sign() == 0 {
		return "0"
	}
	neg := r.Sign() < 0
	a := new(big.Rat).Abs(r)
	// e with 10^e ≤ a < 10^{e+1}: estimated from the binary exponent,
	// then corrected.
	x, _ := new(big.Float).SetPrec(64).SetRat(a).Float64()
	e := 0
	if x != 0 && x < 1e300 && x > 1e-300 {
		e = int(math.Floor(math.Log10(x)))
	} else {
		e = int(float64(new(big.Float).SetRat(a).MantExp(nil)) * 0.30102999566398)
	}
	pow := func(k int) *big.Rat {
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(k, -k))), nil)
		if k < 0 {
			return new(big.Rat).SetFrac(big.NewInt(1), p)
		}
		return new(big.Rat).SetInt(p)
	}
	for pow(e).Cmp(a) > 0 {
		e--
	}
	for pow(e+1).Cmp(a) <= 0 {
		e++
	}
	scaled := new(big.Rat).Mul(a, pow(sig-1-e))
	q, rem := new(big.Int).QuoRem(scaled.Num(), scaled.Denom(), new(big.Int))
	// Directions are on r, not |r|: rounding r up is rounding |r| down
	// when r < 0.
	up := dir > 0 != neg
	switch {
	case dir == 0:
		if new(big.Int).Lsh(rem, 1).Cmp(scaled.Denom()) >= 0 {
			q.Add(q, big.NewInt(1))
		}
	case up && rem.Sign() > 0:
		q.Add(q, big.NewInt(1))
	}
	digits := q.String()
	if len(digits) > sig { // 9.99… rounded up to 10.0…
		digits, e = digits[:sig], e+1
	}
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		digits = "0"
	}
	var s string
	switch {
	case e >= 0 && e < 6:
		if len(digits) <= e+1 {
			s = digits + strings.Repeat("0", e+1-len(digits))
		} else {
			s = digits[:e+1] + "." + digits[e+1:]
		}
	case e < 0 && e >= -4:
		s = "0." + strings.Repeat("0", -e-1) + digits
	default:
		s = digits[:1]
		if len(digits) > 1 {
			s += "." + digits[1:]
		}
		s += fmt.Sprintf("e%+d", e)
	}
	if neg {
		s = "-" + s
	}
	return s
}

// clipNumber prints r for a message: whole up to 60 characters, else its
// first 40 and the count, so that a message stays one line.
func clipNumber(r *big.Rat) string {
	text := r.RatString()
	if len(text) <= 60 {
		return text
	}
	return text[:40] + fmt.Sprintf("… (%d characters)", len(text))
}
