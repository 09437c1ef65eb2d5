package modelfile

import (
	"errors"
	"fmt"

	"github.com/transformer-cookbook/verify/numeric"
)

// Weights are stored in model files as text: a rational as its exact
// fraction ("-3/7", "0", "12"), an irrational constant as the expression
// numeric.Expr.String prints ("log(512)/(1/4)", "sqrt(2)*(-1/3)").
//
// The reader reads a weight with numeric.ParseExpr, the one parser of the
// expression language (its doc gives the language, its canonical reading
// and its bounds on length, nesting and exponents, so that no file makes
// the reader recurse or allocate without bound). Whole rational weights
// become literals (the engine rounds a rational once, whatever its
// structure, so this loses nothing), and irrational ones are checked to
// have a real value.

// checkBits is the precision of the enclosure that checks an irrational
// weight has a real value.
const checkBits = 64

// weightText returns the text of e in a model file: its exact fraction
// when e is rational, else e.String(), checked to read back with the same
// text. Expressions without a real value (division by zero, log 0) are an
// error.
func weightText(e numeric.Expr) (string, error) {
	if e.IsZero() {
		return "0", nil
	}
	r, ok, err := e.Rat()
	if err != nil {
		return "", err
	}
	var s string
	if ok {
		s = r.RatString()
	} else {
		if err := checkReal(e); err != nil {
			return "", clip(err)
		}
		s = e.String()
	}
	if len(s) > numeric.MaxExprText {
		return "", fmt.Errorf("%d characters, more than a model file holds (%d)", len(s), numeric.MaxExprText)
	}
	if !ok {
		// The grammar's limits (depth) and the canonical reading must
		// give back this very text; a weight that would not is refused
		// here rather than written lossily.
		back, err := parseWeight(s)
		if err != nil {
			return "", fmt.Errorf("cannot be stored: %w", err)
		}
		if back.String() != s {
			return "", fmt.Errorf("%s reads back as %s", s, back.String())
		}
	}
	return s, nil
}

// parseWeight reads a weight's text (see weightText) with
// numeric.ParseExpr: a literal for a rational value, the expression for
// an irrational one, which must have a real value. Errors quote the
// text.
func parseWeight(s string) (_ numeric.Expr, err error) {
	// A file is untrusted input, and the expressions it can build are
	// more varied than the cookbook's: should evaluating one panic (a bug
	// in numeric), the file is refused with an error rather than crashing
	// the reader.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("weight %q: evaluating it failed: %v", abbreviate(s), r)
		}
	}()
	if len(s) > numeric.MaxExprText {
		return numeric.Expr{}, fmt.Errorf("weight of %d characters, more than %d", len(s), numeric.MaxExprText)
	}
	e, err := numeric.ParseExpr(s)
	var syntax *numeric.SyntaxError
	if errors.As(err, &syntax) {
		return numeric.Expr{}, fmt.Errorf("weight %q at offset %d: %s", abbreviate(s), syntax.Offset, syntax.Msg)
	}
	if err != nil || e.IsLiteral() {
		return e, err
	}
	r, ok, err := e.Rat()
	if err != nil {
		return numeric.Expr{}, fmt.Errorf("%q has no real value: %w", abbreviate(s), clip(err))
	}
	if ok {
		return numeric.Lit(r), nil
	}
	if err := checkReal(e); err != nil {
		return numeric.Expr{}, fmt.Errorf("%q has no real value: %w", abbreviate(s), clip(err))
	}
	return e, nil
}

// checkReal reports an irrational expression without a real value (log
// of a non-positive number, a division by zero, an overflow) by
// enclosing it in interval arithmetic. (Not Expr.Enclose, which turns the
// enclosure into rationals and fails on exp(−3·10⁹), whose lower end has
// an exponent no big.Rat holds.)
func checkReal(e numeric.Expr) error {
	_, err := numeric.NewIntervals(checkBits).Eval(nil, e)
	return err
}

// clip is err with its message shortened when it quotes a long
// expression. It still wraps err, so that a caller can tell a division by
// zero from a domain error (errors.Is with numeric's sentinels).
func clip(err error) error { return clipped{err} }

type clipped struct{ err error }

func (c clipped) Error() string {
	if msg := c.err.Error(); len(msg) > 300 {
		return msg[:200] + "…" + msg[len(msg)-80:]
	}
	return c.err.Error()
}

func (c clipped) Unwrap() error { return c.err }

// abbreviate shortens a long text for an error message.
func abbreviate(s string) string {
	if len(s) > 60 {
		return s[:40] + "…" + s[len(s)-10:]
	}
	return s
}
