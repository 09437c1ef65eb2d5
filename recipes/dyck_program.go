package recipes

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The programs of the Dyck recipes: Dyck-1's two averaging layers (and
// dyck1N's decision after them), and the rounds of select-nearest-active
// and check-match of dyck12, dyck12Literal and dyckKD (see dyck.go for
// what the paper says of each).

// dyck1Program is the two layers of dyck1 under weighting w.
func dyck1Program(name string, w model.Weighting) *stream.Program {
	return stream.New(name+"-"+WeightingAcronym(w), "o").
		Symbols(dyckAlphabet(1), func(s int) stream.Values {
			return stream.Values{"o": numeric.LitInt(int64(dyckO(s)))}
		}).
		Then(
			blocks.Avg([]string{"o"}, []string{"B/i"}, model.Future, w),
			blocks.NegPart("B/i", "E"),
			blocks.Avg([]string{"E"}, []string{"t"}, model.Future, w),
		)
}

func dyck1Weighting(w model.Weighting) error {
	if w != model.AverageHardmax && w != model.Softmax {
		return fmt.Errorf("the construction averages with Avg←, exact under AHAT and SMAT, not %s", WeightingAcronym(w))
	}
	return nil
}

func buildDyck1(cfg Config) (*Construction, error) {
	if err := dyck1Weighting(cfg.Weighting); err != nil {
		return nil, err
	}
	m, err := dyck1Program("dyck1", cfg.Weighting).Readout("B/i", "t").Model()
	return &Construction{Model: m, Inputs: dyckInputs(1, 0), AllStrings: true, Expected: dyck1Expected, ExpectedLast: dyck1ExpectedLast}, err
}

// dyckEps reads a threshold parameter: the formula def (1/N or 1/N^2)
// or a positive rational.
func dyckEps(cfg Config, name string) (*big.Rat, error) {
	n := int64(cfg.MaxN)
	switch cfg.Params[name] {
	case "1/N":
		return big.NewRat(1, n), nil
	case "1/N^2":
		return big.NewRat(1, n*n), nil
	}
	return cfg.PositiveRat(name)
}

// dyckMaxN checks that the maximum length N is usable.
func dyckMaxN(cfg Config) error {
	if cfg.MaxN < 1 || cfg.MaxN > 1<<24 {
		return fmt.Errorf("the maximum length N must be from 1 to %d, got %d", 1<<24, cfg.MaxN)
	}
	return nil
}

func buildDyck1N(cfg Config) (*Construction, error) {
	if err := dyck1Weighting(cfg.Weighting); err != nil {
		return nil, err
	}
	if err := dyckMaxN(cfg); err != nil {
		return nil, err
	}
	gtEps, err := dyckEps(cfg, "gt-eps")
	if err != nil {
		return nil, err
	}
	eqEps, err := dyckEps(cfg, "eq-eps")
	if err != nil {
		return nil, err
	}
	// accept = ¬g ∧ e: true only at (g, e) = (0, 1), the table's entry 1
	// (g is the most significant input).
	and, err := blocks.Boolean([]string{"g", "e"}, "accept", []bool{false, true, false, false})
	if err != nil {
		return nil, err
	}
	m, err := dyck1Program("dyck1-n", cfg.Weighting).
		Then(stream.Parallel(
			blocks.GTZeroEps("t", "g", gtEps, new(big.Rat)),
			blocks.EqZeroEps("B/i", "e", eqEps, new(big.Rat)),
		), and).
		Readout("accept").Model()
	con := &Construction{Model: m, Inputs: dyckInputs(1, 0), AllStrings: true, Valid: dyckValidN(cfg.MaxN), Expected: dyck1NExpected}
	con.Notes = []string{fmt.Sprintf("thresholds ε_g = %s (GTZero of t), ε_e = %s (EqZero of B/i), for N = %d", gtEps.RatString(), eqEps.RatString(), cfg.MaxN)}
	return con, err
}

// buildDyckRounds assembles the round construction for k bracket types
// and d rounds: dyck12 (k = 1, the one-type FFN), dyck12Literal and
// dyckKD (the typed FFN, for every k).
func buildDyckRounds(cfg Config, name string, k, d int, literal bool) (*Construction, error) {
	w := cfg.Weighting
	if w != model.LeftHardmax && w != model.RightHardmax && w != model.AverageHardmax {
		return nil, fmt.Errorf("the construction needs hard attention (UHAT or AHAT), not %s", WeightingAcronym(w))
	}
	if err := dyckMaxN(cfg); err != nil {
		return nil, err
	}
	check, err := cfg.Choice("check", "avg", "max")
	if err != nil {
		return nil, err
	}
	outputs, err := cfg.Choice("outputs", "accept,s", "accept")
	if err != nil {
		return nil, err
	}
	typed := name == "dyck-kd"
	// The paper's x_i = [o_i, 1, 0, 0, i/n]: o, the active bit a, the
	// scratch l and r (each the neighbour's o and active bit; as printed,
	// its o alone), i/n; and the constant 1.
	scratch := []string{"l.o", "l.a", "r.o", "r.a"}
	leftIn, leftOut, rightOut := []string{"o", "a"}, []string{"l.o", "l.a"}, []string{"r.o", "r.a"}
	if literal {
		scratch = []string{"l", "r"}
		leftIn, leftOut, rightOut = []string{"o"}, []string{"l"}, []string{"r"}
	}
	p := stream.New(name+"-"+WeightingAcronym(w), append(append([]string{"o", "a"}, scratch...), "1", "i/n")...).
		Symbols(dyckAlphabet(k), func(s int) stream.Values {
			return stream.Values{"o": numeric.LitInt(int64(dyckO(s))), "a": numeric.LitInt(1)}
		}).
		Positions("(1, i/n)", func(i, n int) stream.Values {
			return stream.Values{"1": numeric.LitInt(1), "i/n": numeric.Frac(int64(i), int64(n))}
		}).
		Formula(stream.Pos(model.PosOne, "1"), stream.Pos(model.PosIOverN, "i/n"))
	for r := 1; r <= d; r++ {
		// Step 1 is the predecessor and successor of §Predecessor; the
		// printed sequence is step 2's.
		lit := literal && r >= 2
		left := blocks.NearestActive(fmt.Sprintf("left-nearest-active(%d)", r), false, lit, "i/n", "1", "a",
			leftIn, leftOut, w)
		right := blocks.NearestActive(fmt.Sprintf("right-nearest-active(%d)", r), true, lit, "i/n", "1", "a",
			leftIn, rightOut, w)
		// The scratch is 0 at the start of every round (the input, then
		// the check-match FFN clears it): the heads add to it.
		left.Accumulate, right.Accumulate = true, true
		p.Then(left)
		if typed && r == 1 {
			// p_i = GTZero_1(o_i): 1 for an open bracket (o ≥ 1), 0 for a
			// close one (o ≤ −1); in layer 1's FFN.
			p.Then(blocks.GTZeroEps("o", "p", big.NewRat(1, 1), new(big.Rat)))
		}
		p.Then(right)
		switch {
		case typed:
			p.Then(blocks.MatchDyckK("o", "p", "a", "l.o", "l.a", "r.o", "r.a", k))
		case literal:
			p.Then(blocks.MatchDyck1Types("o", "a", "l", "r"))
		default:
			p.Then(blocks.MatchDyck1("o", "a", "l.o", "l.a", "r.o", "r.a"))
		}
	}
	if check == "avg" {
		p.Then(blocks.Avg([]string{"a"}, []string{"s"}, model.NoMask, model.AverageHardmax),
			blocks.EqZeroEps("s", "accept", big.NewRat(1, int64(cfg.MaxN)), new(big.Rat)))
	} else {
		p.Then(blocks.AnyActive("1", "a", "s", w), blocks.Not("s", "accept"))
	}
	if outputs == "accept" {
		p.Readout("accept")
	} else {
		p.Readout("accept", "s")
	}
	m, err := p.Model()
	con := &Construction{Model: m, Inputs: dyckInputs(k, d), AllStrings: true, Expected: dyckRoundsExpected(d, check == "max", outputs == "accept")}
	if check == "avg" {
		// Only the average's threshold 1/N depends on a maximum length.
		con.Valid = dyckValidN(cfg.MaxN)
		if w != model.AverageHardmax {
			con.Notes = append(con.Notes, "the final all-matched check is an average-hard head (uniform attention has no unique-hard form); --param check=max keeps every head "+WeightingAcronym(w))
		}
	}
	return con, err
}
