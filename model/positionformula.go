package model

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/transformer-cookbook/verify/numeric"
)

// PositionFunction is one of the position encodings the paper names, as
// a function of the position i (1-based) and the length n. Model files
// store an encoding built from them as its formula, which holds for every
// length, instead of a table of its values, which would need n(n+1)/2
// rows to cover lengths up to n when the encoding depends on n.
type PositionFunction int

const (
	PosOne        PositionFunction = iota // 1
	PosI                                  // i
	PosN                                  // n
	PosIOverN                             // i/n
	PosInverseI                           // 1/i
	PosISquared                           // i²
	PosParity                             // (−1)^i: −1 at odd i, 1 at even i
	PosOneHot                             // e_i over Size components: 1 at component i−1 when i ≤ Size, else all 0
	PosSinusoidal                         // cos(i·M^(−2c/Size)) at component 2c, sin(…) at 2c+1
)

// positionFunctionNames are the names of the functions in a model file,
// in the order of the constants.
var positionFunctionNames = []string{"1", "i", "n", "i/n", "1/i", "i^2", "(-1)^i", "one-hot", "sinusoidal"}

// PositionFunctionNames lists the functions' names in order, as model
// files spell them.
func PositionFunctionNames() []string { return slices.Clone(positionFunctionNames) }

func (f PositionFunction) String() string {
	if f < 0 || int(f) >= len(positionFunctionNames) {
		return fmt.Sprintf("PositionFunction(%d)", int(f))
	}
	return positionFunctionNames[f]
}

// Sized reports whether f writes Size consecutive components rather than
// one.
func (f PositionFunction) Sized() bool { return f == PosOneHot || f == PosSinusoidal }

// DependsOnN reports whether f's values depend on the length n.
func (f PositionFunction) DependsOnN() bool { return f == PosN || f == PosIOverN }

// PositionTerm is one term of a position encoding given by a formula:
// Scale times the function f(i, n), added to the component Component (0-
// based) or, for one-hot and sinusoidal, to the Size components from
// Component on. The terms of an encoding add up; a component no term
// writes is 0.
type PositionTerm struct {
	Function  PositionFunction
	Component int
	// Size is the number of components a one-hot or sinusoidal term
	// writes (even for sinusoidal); it is 0 for the other functions.
	Size int
	// Scale multiplies the term; the zero Expr means 1 (as for an
	// attention's temperature), so that most terms need none.
	Scale numeric.Expr
	// Base is the sinusoidal base M (10000 in Vaswani et al.), positive;
	// it is unset for the other functions.
	Base numeric.Expr
}

// width is the number of components t writes.
func (t PositionTerm) width() int {
	if t.Function.Sized() {
		return t.Size
	}
	return 1
}

// Check reports a term that cannot be evaluated in a stream of width d.
func (t PositionTerm) Check(d int) error {
	if t.Function < 0 || int(t.Function) >= len(positionFunctionNames) {
		return fmt.Errorf("unknown position function %d", int(t.Function))
	}
	switch {
	case t.Function.Sized() && t.Size < 1:
		return fmt.Errorf("%s: size %d, want at least 1", t.Function, t.Size)
	case t.Function == PosSinusoidal && t.Size%2 != 0:
		return fmt.Errorf("sinusoidal: size %d, want an even number (a cos and a sin per frequency)", t.Size)
	case !t.Function.Sized() && t.Size != 0:
		return fmt.Errorf("%s: a size is only for one-hot and sinusoidal, got %d", t.Function, t.Size)
	case t.Component < 0 || t.Component >= d || t.width() > d-t.Component:
		return fmt.Errorf("%s: components %d … %d, outside 0 … %d (d = %d)", t.Function, t.Component, t.Component+t.width()-1, d-1, d)
	case t.Function == PosSinusoidal && t.Base.IsZero():
		return fmt.Errorf("sinusoidal: no base M")
	case t.Function != PosSinusoidal && !t.Base.IsZero():
		return fmt.Errorf("%s: a base is only for sinusoidal", t.Function)
	}
	if t.Function == PosSinusoidal {
		lo, _, err := t.Base.Enclose(64)
		if err != nil {
			return fmt.Errorf("sinusoidal: base %v: %w", t.Base, err)
		}
		if lo.Sign() <= 0 {
			// An irrational base whose enclosure touches 0 is refused
			// too: log M must have a real value the engine can certify.
			return fmt.Errorf("sinusoidal: base %v, want a positive number", t.Base)
		}
	}
	if !t.Scale.IsZero() {
		if _, _, err := t.Scale.Enclose(64); err != nil {
			return fmt.Errorf("%s: scale %v: %w", t.Function, t.Scale, err)
		}
	}
	return nil
}

// rational returns f(i, n) for the functions with rational values, of
// one component.
func (f PositionFunction) rational(i, n int) *big.Rat {
	switch f {
	case PosOne:
		return big.NewRat(1, 1)
	case PosI:
		return big.NewRat(int64(i), 1)
	case PosN:
		return big.NewRat(int64(n), 1)
	case PosIOverN:
		return big.NewRat(int64(i), int64(n))
	case PosInverseI:
		return big.NewRat(1, int64(i))
	case PosISquared:
		return new(big.Rat).SetInt(new(big.Int).Mul(big.NewInt(int64(i)), big.NewInt(int64(i))))
	case PosParity:
		if i%2 != 0 {
			return big.NewRat(-1, 1)
		}
		return big.NewRat(1, 1)
	}
	return nil
}

// Values returns the term's values at position i of an input of length
// n, one per component it writes (the zero Expr for 0), with Scale
// applied: rationals stay literals, so that exact arithmetic reads them,
// and the sinusoidal values are the expressions
//
//	cos(i), sin(i)                                  for c = 0
//	cos(i*exp(-((2c/Size)*log(M)))), sin(…)         for c ≥ 1
//
// i·M^(−2c/Size) written with the functions of the weight grammar.
func (t PositionTerm) Values(i, n int) []numeric.Expr {
	out := make([]numeric.Expr, t.width())
	switch t.Function {
	case PosOneHot:
		if i <= t.Size {
			out[i-1] = t.scaled(big.NewRat(1, 1))
		}
	case PosSinusoidal:
		logM := numeric.Log(t.Base)
		for c := 0; c < t.Size/2; c++ {
			arg := numeric.LitInt(int64(i))
			if c > 0 {
				arg = numeric.Mul(arg, numeric.Exp(numeric.Neg(numeric.Mul(numeric.Frac(int64(2*c), int64(t.Size)), logM))))
			}
			out[2*c], out[2*c+1] = t.scaledExpr(numeric.Cos(arg)), t.scaledExpr(numeric.Sin(arg))
		}
	default:
		out[0] = t.scaled(t.Function.rational(i, n))
	}
	return out
}

// scaled is Scale·r, a literal when Scale is rational.
func (t PositionTerm) scaled(r *big.Rat) numeric.Expr {
	if t.Scale.IsZero() {
		return numeric.Lit(r)
	}
	if s, ok, _ := t.Scale.Rat(); ok {
		return numeric.Lit(r.Mul(r, s))
	}
	return numeric.Mul(t.Scale, numeric.Lit(r))
}

// scaledExpr is Scale·x for an irrational x.
func (t PositionTerm) scaledExpr(x numeric.Expr) numeric.Expr {
	if t.Scale.IsZero() {
		return x
	}
	if s, ok, _ := t.Scale.Rat(); ok && s.Cmp(big.NewRat(1, 1)) == 0 {
		return x
	}
	return numeric.Mul(t.Scale, x)
}

// termsDependOnN reports whether any of terms depends on n.
func termsDependOnN(terms []PositionTerm) bool {
	for _, t := range terms {
		if t.Function.DependsOnN() {
			return true
		}
	}
	return false
}

// termsVector is the sum of terms at (i, n), of width d: components
// written by one term keep its value (a literal stays a literal); those
// written by several are summed, exactly when all are rational.
func termsVector(terms []PositionTerm, d, i, n int) Vector {
	v := make(Vector, d)
	written := make([]bool, d)
	for _, t := range terms {
		for k, x := range t.Values(i, n) {
			c := t.Component + k
			switch {
			case x.IsZero():
			case !written[c]:
				v[c], written[c] = x, true
			default:
				a, okA, _ := v[c].Rat()
				b, okB, _ := x.Rat()
				if okA && okB {
					v[c] = numeric.Lit(a.Add(a, b))
				} else {
					v[c] = numeric.Add(v[c], x)
				}
			}
		}
	}
	for c, x := range v {
		if r, ok, _ := x.Rat(); ok && r.Sign() == 0 {
			v[c] = numeric.Expr{}
		}
	}
	return v
}

// FormulaPositions returns the position encoding of width d that is the
// sum of terms, named name: its Vector evaluates the terms, and model
// files store the terms themselves when the encoding depends on n, so
// that it holds at every length. It reports a term that does not fit d.
func FormulaPositions(name string, d int, terms []PositionTerm) (*PositionEncoding, error) {
	if err := checkTerms(terms, d); err != nil {
		return nil, err
	}
	terms = append([]PositionTerm(nil), terms...)
	return &PositionEncoding{
		Name:           name,
		Terms:          terms,
		IndependentOfN: !termsDependOnN(terms),
		Vector:         func(i, n int) Vector { return termsVector(terms, d, i, n) },
	}, nil
}

// checkTerms reports the first term that does not fit width d, or an
// empty formula.
func checkTerms(terms []PositionTerm, d int) error {
	if len(terms) == 0 {
		return fmt.Errorf("a position formula needs at least one term")
	}
	for k, t := range terms {
		if err := t.Check(d); err != nil {
			return fmt.Errorf("term %d: %w", k, err)
		}
	}
	return nil
}

// DependsOnN reports whether p depends on the length n, when p says so
// (known): by its formula, or by being declared independent of n. An
// encoding given by a function alone is unknown until sampled.
func (p *PositionEncoding) DependsOnN() (depends, known bool) {
	switch {
	case p.Terms != nil:
		return termsDependOnN(p.Terms), true
	case p.IndependentOfN:
		return false, true
	}
	return false, false
}
