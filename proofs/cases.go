package proofs

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ProveAt proves a fixed-ε block for several ε, each on all of ℝ.
func ProveAt(epsilons []string, build func(eps *big.Rat) *stream.FF, pieces func(eps *big.Rat) []cpwl.Piece) func() (*Evidence, error) {
	return func() (*Evidence, error) {
		var cases []FFNCase
		for _, e := range epsilons {
			eps := Q(e)
			cases = append(cases, FFNCase{Label: "ε = " + e, F: build(eps), Domain: Space(1), Pieces: pieces(eps)})
		}
		return ProveCases(cases)
	}
}

// FFNCase is one decision of the procedure: the block f against the
// reference pieces, or against the block g when pieces is nil, on domain.
type FFNCase struct {
	Label  string
	F      *stream.FF
	Domain *exact.Polyhedron
	Pieces []cpwl.Piece
	g      *stream.FF
}

// Decide runs the decision procedure on the case, its certificate
// checked.
func (c FFNCase) Decide() (*cpwl.Result, *cpwl.Report, error) {
	f, err := FFNOf(c.F)
	if err != nil {
		return nil, nil, err
	}
	if c.Pieces == nil {
		g, err := FFNOf(c.g)
		if err != nil {
			return nil, nil, err
		}
		return DecideEquivalent(f, g, c.Domain)
	}
	return DecideVerify(f, c.Domain, c.Pieces)
}

// ProveCases decides every case: PROVED when each is, else the first
// counterexample (or uncovered point), labelled with its case.
func ProveCases(cases []FFNCase) (*Evidence, error) {
	var parts, explain []string
	cells := 0
	var cert CertTally
	for _, c := range cases {
		res, rep, err := c.Decide()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Label, err)
		}
		ev, err := CPWLEvidence(res, rep, c.F.In, c.F.Out)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Label, err)
		}
		if ev.Verdict != Proved {
			if c.Label != "" {
				ev.Summary = c.Label + ": " + ev.Summary
			}
			return ev, nil
		}
		if len(cases) == 1 {
			return ev, nil
		}
		cells += res.Cells
		cert.AddAll(ev.Cert)
		parts = append(parts, fmt.Sprintf("%s (%s)", c.Label, plural.Of(res.Regions, "region")))
		for _, e := range ev.Explain {
			explain = append(explain, c.Label+": "+e)
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("on the whole domain of every case: %s; %s compared exactly (exact LP); %s",
		JoinComma(parts), plural.Of(cells, "cell"), cert.Note()), Explain: explain, Cert: cert}, nil
}

// ExpectDiffer turns a refutation into the proof of a negative claim ("the
// bound is needed", "not exact"): PROVED with the counterexample when the
// procedure finds one, REFUTED when the block turns out equal after all.
func ExpectDiffer(c FFNCase, what string) (*Evidence, error) {
	res, rep, err := c.Decide()
	if err != nil {
		return nil, err
	}
	ev, err := CPWLEvidence(res, rep, c.F.In, c.F.Out)
	if err != nil {
		return nil, err
	}
	if ev.Verdict == Proved {
		return &Evidence{Verdict: Refuted, Summary: c.Label + ": the block equals the reference on the whole domain after all (" + ev.Summary + ")", Explain: ev.Explain}, nil
	}
	return &Evidence{Verdict: Proved, Summary: what + ": " + ev.Summary + " (exact)", Explain: ev.Explain}, nil
}

// EpsHalf is the half-space {(x, ε) : ε ≥ 0} cut by the rows rs, where
// the input-dependent comparisons are decided.
func EpsHalf(rs ...[]string) *exact.Polyhedron {
	return Halfspaces(2, append([][]string{Row("0", "-1", "0")}, rs...)...)
}

// GEZeroPieces is the reference the block GEZero(x, ε) is decided
// against on {(x, ε) : ε ≥ 0}, piece by piece: 0 for x ≤ −ε, x + ε
// between, ε for x ≥ 0.
func GEZeroPieces() []cpwl.Piece {
	return []cpwl.Piece{
		Piece(EpsHalf(Row("1", "1", "0")), Affine(Rows(Row("0", "0")))),                       // x ≤ −ε: 0
		Piece(EpsHalf(Row("-1", "-1", "0"), Row("1", "0", "0")), Affine(Rows(Row("1", "1")))), // −ε ≤ x ≤ 0: x + ε
		Piece(EpsHalf(Row("-1", "0", "0")), Affine(Rows(Row("0", "1"))))}                      // x ≥ 0: ε
}

// EveryEps proves a claim about a printed family of blocks f_ε, ε > 0,
// for every ε at once, from a region proof at ε = 1. The family's weights
// scale with ε as the paper prints them: W1 fixed, b1 = ε·b1(1), W2 =
// ε^(k−1)·W2(1), b2 = ε^k·b2(1) (k = 0 for the comparisons, whose outputs
// are 0 and 1; k = 1 for clip_δ, whose output is a length). ReLU is
// positively homogeneous, ReLU(εt) = ε·ReLU(t) for ε > 0, so
//
//	f_ε(x) = ε^(k−1)·W2(1)·ReLU(ε(W1 x/ε + b1(1))) + ε^k b2(1) = ε^k f_1(x/ε),
//
// and the claimed pieces (breakpoints at multiples of ε, values ε^k times
// those at ε = 1, as printed) scale the same way: f_ε matches them at x
// exactly when f_1 matches them at x/ε. atOne proves the claim at ε = 1
// on all of ℝ; the engine's blocks are checked to follow the printed
// scaling at every ε of samples (the blocks are code, the family is
// the paper's formula).
func EveryEps(build func(eps *big.Rat) *stream.FF, k int, samples []string, atOne func() (*Evidence, error)) func() (*Evidence, error) {
	return func() (*Evidence, error) {
		ev, err := atOne()
		if err != nil || ev.Verdict != Proved {
			return ev, err
		}
		one, err := FFNOf(build(big.NewRat(1, 1)))
		if err != nil {
			return nil, err
		}
		for _, s := range samples {
			eps := Q(s)
			f, err := FFNOf(build(eps))
			if err != nil {
				return nil, err
			}
			pow := func(p int) *big.Rat { // ε^p for p ∈ {−1, 0, 1}
				switch p {
				case -1:
					return new(big.Rat).Inv(eps)
				case 0:
					return big.NewRat(1, 1)
				}
				return eps
			}
			if why := ScalesAs(f.W1, one.W1, pow(0), "W1"); why != "" {
				return nil, fmt.Errorf("ε = %s: %s", s, why)
			}
			for _, c := range []struct {
				got, at1 exact.Vector
				by       *big.Rat
				name     string
			}{{f.B1, one.B1, eps, "b1"}, {f.B2, one.B2, pow(k), "b2"}} {
				if why := VectorScalesAs(c.got, c.at1, c.by, c.name); why != "" {
					return nil, fmt.Errorf("ε = %s: %s", s, why)
				}
			}
			if why := ScalesAs(f.W2, one.W2, pow(k-1), "W2"); why != "" {
				return nil, fmt.Errorf("ε = %s: %s", s, why)
			}
		}
		scale := map[int]string{0: "f_ε(x) = f_1(x/ε)", 1: "f_ε(x) = ε·f_1(x/ε)"}[k]
		w2 := map[int]string{0: "W2 ∝ 1/ε", 1: "W2 fixed, b2 ∝ ε"}[k]
		ev.Summary = fmt.Sprintf("for every ε > 0: %s by ReLU's positive homogeneity (the printed b1 ∝ ε, %s; the engine's blocks follow that scaling at ε = %s), and the claimed pieces scale the same way, so the proof at ε = 1 covers every ε: %s",
			scale, w2, strings.Join(samples, ", "), ev.Summary)
		return ev, nil
	}
}

// ScalesAs says why m ≠ c·at1, or "".
func ScalesAs(m, at1 exact.Matrix, c *big.Rat, name string) string {
	if m.Rows != at1.Rows || m.Cols != at1.Cols {
		return fmt.Sprintf("%s is %d×%d, at ε = 1 %d×%d", name, m.Rows, m.Cols, at1.Rows, at1.Cols)
	}
	for i := range m.Data {
		if want := new(big.Rat).Mul(c, at1.Data[i]); m.Data[i].Cmp(want) != 0 {
			return fmt.Sprintf("%s has %s where the printed scaling gives %s", name, m.Data[i].RatString(), want.RatString())
		}
	}
	return ""
}

// VectorScalesAs says why v ≠ c·at1, or "".
func VectorScalesAs(v, at1 exact.Vector, c *big.Rat, name string) string {
	if len(v) != len(at1) {
		return fmt.Sprintf("%s has %d entries, at ε = 1 %d", name, len(v), len(at1))
	}
	for i := range v {
		if want := new(big.Rat).Mul(c, at1[i]); v[i].Cmp(want) != 0 {
			return fmt.Sprintf("%s has %s where the printed scaling gives %s", name, v[i].RatString(), want.RatString())
		}
	}
	return ""
}
