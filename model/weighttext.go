package model

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/numeric"
)

// Weights are stored in model files as text: a rational as its exact
// fraction ("-3/7", "0", "12"), an irrational constant as the expression
// numeric.Expr.String prints ("log(512)/(1/4)", "sqrt(2)*(-1/3)").
//
// The reader accepts the language that String prints — integers, pi,
// sqrt log exp sin cos, + - * /, unary minus and parentheses — with
// Python's reading of what String never prints (unary plus, "--1" = 1,
// "1/2/3" = (1/2)/3, left to right), and exact
// decimals ("0.25", "-1.5e-3", "1E+2"), which a file written by another
// tool holds: "0.1" is exactly 1/10, never the float64 nearest to it. A
// decimal's exponent is bounded by maxDecimalExponent, so that a weight's
// size in memory stays linear in its length in the file, whereas
// "1e99999" would be 330,000 bits from seven bytes; hex floats are not
// read. A weight's text is also bounded in length and in nesting, so that
// no file makes the reader recurse or allocate without bound.
//
// Reading is canonical, so that an Expr written and read back prints the
// same: a negated integer literal ("-3") becomes the literal −3, and an
// integer literal divided by a coprime integer literal ("-3/4") becomes
// the literal −3/4, just as String prints those literals; anything else
// keeps the structure of the text. Whole rational weights become literals
// (the engine rounds a rational once, whatever its structure, so this
// loses nothing), and irrational ones are checked to have a real value.
const (
	// maxWeightText bounds the length of one weight's text.
	maxWeightText = 1 << 16
	// maxWeightDepth bounds the nesting of parentheses, unary minus and
	// functions in one weight's text, and the depth of its expression
	// tree; the cookbook's deepest constants (the sinusoidal encodings)
	// are 6 operations deep.
	maxWeightDepth = 64
	// checkBits is the precision of the enclosure that checks an
	// irrational weight has a real value.
	checkBits = 64
	// maxDecimalExponent bounds |e| in a decimal "m.fe±x": every finite
	// number of the IEEE formats up to float64 prints in shortest form
	// with |e| ≤ 324 (5e-324 is the smallest), so no float written by
	// Python or numpy is refused, and 10^400 is 1,329 bits.
	maxDecimalExponent = 400
)

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
			return "", errors.New(clip(err))
		}
		s = e.String()
	}
	if len(s) > maxWeightText {
		return "", fmt.Errorf("%d characters, more than a model file holds (%d)", len(s), maxWeightText)
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

// parseWeight reads a weight's text (see weightText): a literal for a
// rational value, the expression for an irrational one, which must have a
// real value. Errors quote the text.
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
	if len(s) > maxWeightText {
		return numeric.Expr{}, fmt.Errorf("weight of %d characters, more than %d", len(s), maxWeightText)
	}
	if e, ok := plainNumber(s); ok {
		return e, nil
	}
	return parseExpression(s)
}

// parseExpression is parseWeight through the parser, for any text.
func parseExpression(s string) (numeric.Expr, error) {
	p := &weightParser{src: s}
	x, err := p.sum()
	e := x.e
	if err == nil {
		if p.skipSpace(); p.pos < len(s) {
			err = p.unexpected()
		}
	}
	if err != nil {
		return numeric.Expr{}, err
	}
	r, ok, err := e.Rat()
	if err != nil {
		return numeric.Expr{}, fmt.Errorf("%q has no real value: %s", abbreviate(s), clip(err))
	}
	if ok {
		return numeric.Lit(r), nil
	}
	if err := checkReal(e); err != nil {
		return numeric.Expr{}, fmt.Errorf("%q has no real value: %s", abbreviate(s), clip(err))
	}
	return e, nil
}

// plainNumber reads the text of a fraction "-"? digits "/" digits of a
// nonzero denominator, or of a decimal "-"? digits ("." digits)?
// (("e" | "E") ("+" | "-")? digits)? of an exponent within
// maxDecimalExponent: the forms in which a model file holds nearly every
// weight. It makes the literal at once instead of through the parser,
// which builds an expression and folds it to the same literal (reading a
// matrix of a million distinct fractions took seconds that way, and 50
// times the file's size in garbage); any other text is left to the
// parser.
func plainNumber(s string) (numeric.Expr, bool) {
	body := strings.TrimPrefix(s, "-")
	sign := int64(1)
	if body != s {
		sign = -1
	}
	if num, den, frac := strings.Cut(body, "/"); frac {
		if !allDigits(num) || !allDigits(den) || strings.Trim(den, "0") == "" {
			return numeric.Expr{}, false
		}
		// Within int64, without big.Rat.SetString's reader.
		a, errA := strconv.ParseInt(num, 10, 64)
		b, errB := strconv.ParseInt(den, 10, 64)
		if errA == nil && errB == nil {
			return numeric.Frac(sign*a, b), true
		}
		return ratText(s)
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(body), "e")
	whole, fracDigits, hasPoint := strings.Cut(mant, ".")
	if !allDigits(whole) || hasPoint && !allDigits(fracDigits) {
		return numeric.Expr{}, false
	}
	e := 0
	if hasExp {
		digits := exp
		if digits != "" && (digits[0] == '+' || digits[0] == '-') {
			digits = digits[1:]
		}
		if !allDigits(digits) {
			return numeric.Expr{}, false
		}
		digits = strings.TrimLeft(digits, "0")
		if len(digits) > 3 {
			return numeric.Expr{}, false
		}
		if e, _ = strconv.Atoi(digits); e > maxDecimalExponent {
			return numeric.Expr{}, false
		}
		if exp[0] == '-' {
			e = -e
		}
	}
	// m·10^(e − len(frac)) within int64, as most decimals a tool
	// writes are (a float32's shortest form has 9 digits, a float64's 17).
	if m, err := strconv.ParseInt(whole+fracDigits, 10, 64); err == nil {
		switch scale := len(fracDigits) - e; {
		case scale >= 0 && scale < len(pow10):
			return numeric.Frac(sign*m, pow10[scale]), true
		case scale < 0 && -scale < len(pow10) && m <= math.MaxInt64/pow10[-scale]:
			return numeric.Frac(sign*m*pow10[-scale], 1), true
		}
	}
	return ratText(s)
}

// pow10 holds the powers of ten within int64.
var pow10 = func() []int64 {
	p := []int64{1}
	for p[len(p)-1] <= math.MaxInt64/10 {
		p = append(p, p[len(p)-1]*10)
	}
	return p
}()

// ratText is the literal of a number's text that big.Rat reads.
func ratText(s string) (numeric.Expr, bool) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return numeric.Expr{}, false
	}
	return numeric.Lit(r), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
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

// litKind tells the parser whether an operand is a bare integer literal,
// which the canonical reading may fold (see weightText).
type litKind int

const (
	compound   litKind = iota // anything else, including a parenthesized literal
	natural                   // an integer literal as written: "3"
	negNatural                // a negated integer literal: "-3"
)

// operand is a parsed subexpression: its Expr, whether it is a bare
// literal, and the depth of its tree, which bounds the work of enclosing
// it: each level adds guard bits, so pi*pi*…*pi with ten thousand factors
// would need 80,000-bit arithmetic.
type operand struct {
	e     numeric.Expr
	kind  litKind
	depth int
}

type weightParser struct {
	src string
	pos int
	// nesting counts the parentheses, minus signs and functions the
	// parser is inside, which bounds its recursion.
	nesting int
}

func (p *weightParser) errorf(format string, args ...any) error {
	return fmt.Errorf("weight %q at offset %d: %s", abbreviate(p.src), p.pos, fmt.Sprintf(format, args...))
}

// clip is the message of err, shortened when it quotes a long expression.
func clip(err error) string {
	if msg := err.Error(); len(msg) > 300 {
		return msg[:200] + "…" + msg[len(msg)-80:]
	}
	return err.Error()
}

// abbreviate shortens a long text for an error message.
func abbreviate(s string) string {
	if len(s) > 60 {
		return s[:40] + "…" + s[len(s)-10:]
	}
	return s
}

func (p *weightParser) rest() string { return abbreviate(p.src[p.pos:]) }

func (p *weightParser) skipSpace() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

func (p *weightParser) peek() byte {
	p.skipSpace()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// enter counts one level of nesting; leave undoes it.
func (p *weightParser) enter() error {
	if p.nesting++; p.nesting > maxWeightDepth {
		return p.errorf("nested more than %d deep", maxWeightDepth)
	}
	return nil
}

func (p *weightParser) leave() { p.nesting-- }

// node builds an operation on args, checking the depth of its tree.
func (p *weightParser) node(e numeric.Expr, args ...operand) (operand, error) {
	d := 0
	for _, a := range args {
		d = max(d, a.depth)
	}
	if d+1 > maxWeightDepth {
		return operand{}, p.errorf("more than %d operations deep", maxWeightDepth)
	}
	return operand{e: e, depth: d + 1}, nil
}

// sum := product (("+" | "-") product)*
func (p *weightParser) sum() (operand, error) {
	x, err := p.product()
	for err == nil {
		op := p.peek()
		if op != '+' && op != '-' {
			break
		}
		p.pos++
		var y operand
		if y, err = p.product(); err != nil {
			break
		}
		if op == '+' {
			x, err = p.node(numeric.Add(x.e, y.e), x, y)
		} else {
			x, err = p.node(numeric.Sub(x.e, y.e), x, y)
		}
	}
	return x, err
}

// product := unary (("*" | "/") unary)*, where a bare integer literal
// divided by a coprime bare integer literal greater than 1 is read as the
// one literal that String prints that way.
func (p *weightParser) product() (operand, error) {
	x, err := p.unary()
	for err == nil {
		op := p.peek()
		if op != '*' && op != '/' {
			break
		}
		p.pos++
		var y operand
		if y, err = p.unary(); err != nil {
			break
		}
		switch {
		case op == '/' && x.kind != compound && y.kind == natural && foldable(x.e, y.e):
			r, _, _ := numeric.Quo(x.e, y.e).Rat()
			x = operand{e: numeric.Lit(r)}
		case op == '/':
			x, err = p.node(numeric.Quo(x.e, y.e), x, y)
		default:
			x, err = p.node(numeric.Mul(x.e, y.e), x, y)
		}
	}
	return x, err
}

// foldable reports whether the integer literals a and b are a fraction in
// lowest terms with b > 1, which is how String prints the literal a/b.
func foldable(a, b numeric.Expr) bool {
	ra, _, _ := a.Rat()
	rb, _, _ := b.Rat()
	if rb.Num().Cmp(big.NewInt(1)) <= 0 {
		return false
	}
	g := new(big.Int).GCD(nil, nil, new(big.Int).Abs(ra.Num()), rb.Num())
	return g.Cmp(big.NewInt(1)) == 0
}

// unary := ("-" | "+") unary | atom, as in Python: "--1" is 1, "+1" is
// 1 (a JSON number has no plus sign, but a string written by printf's
// %+g has).
func (p *weightParser) unary() (operand, error) {
	sign := p.peek()
	if sign != '-' && sign != '+' {
		return p.atom()
	}
	p.pos++
	if err := p.enter(); err != nil {
		return operand{}, err
	}
	defer p.leave()
	x, err := p.unary()
	if err != nil || sign == '+' {
		return x, err
	}
	if x.kind == natural {
		r, _, _ := x.e.Rat()
		return operand{e: numeric.Lit(r.Neg(r)), kind: negNatural}, nil
	}
	return p.node(numeric.Neg(x.e), x)
}

var weightFuncs = map[string]func(numeric.Expr) numeric.Expr{
	"sqrt": numeric.Sqrt, "log": numeric.Log, "exp": numeric.Exp, "sin": numeric.Sin, "cos": numeric.Cos,
}

// atom := digits | "pi" | name "(" sum ")" | "(" sum ")"
func (p *weightParser) atom() (operand, error) {
	c := p.peek()
	switch {
	case c == 0:
		return operand{}, p.errorf("unexpected end")
	case c == '(':
		p.pos++
		if err := p.enter(); err != nil {
			return operand{}, err
		}
		defer p.leave()
		x, err := p.sum()
		if err != nil {
			return x, err
		}
		if p.peek() != ')' {
			return x, p.errorf("missing )")
		}
		p.pos++
		x.kind = compound
		return x, nil
	case c >= 'a' && c <= 'z':
		start := p.pos
		for p.pos < len(p.src) && p.src[p.pos] >= 'a' && p.src[p.pos] <= 'z' {
			p.pos++
		}
		name := p.src[start:p.pos]
		if name == "pi" {
			return operand{e: numeric.Pi()}, nil
		}
		f, ok := weightFuncs[name]
		if !ok {
			p.pos = start
			return operand{}, p.errorf("unknown name %q (known: pi, sqrt, log, exp, sin, cos)", abbreviate(name))
		}
		if p.peek() != '(' {
			return operand{}, p.errorf("%s needs (", name)
		}
		x, err := p.atom()
		if err != nil {
			return x, err
		}
		return p.node(f(x.e), x)
	case c >= '0' && c <= '9':
		start := p.pos
		p.digits()
		if p.pos == len(p.src) || strings.IndexByte(".eE", p.src[p.pos]) < 0 {
			n, _ := new(big.Int).SetString(p.src[start:p.pos], 10)
			return operand{e: numeric.Lit(new(big.Rat).SetInt(n)), kind: natural}, nil
		}
		return p.decimal(start)
	}
	return operand{}, p.unexpected()
}

// digits skips a run of decimal digits, and reports how many.
func (p *weightParser) digits() int {
	start := p.pos
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}

// decimal reads the rest of a decimal whose integer digits start at
// start and end at p.pos: digits ("." digits)? (("e" | "E") ("+" | "-")?
// digits)?, as JSON writes a number, read exactly. It is a compound
// operand, never folded into a fraction: "0.5/3" is the quotient, whose
// value is the same.
func (p *weightParser) decimal(start int) (operand, error) {
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return operand{}, p.errorf("a decimal point needs digits after it")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		expStart := p.pos
		if p.digits() == 0 {
			return operand{}, p.errorf("an exponent needs digits")
		}
		// Checked before big.Rat sees the text, which would compute
		// 10^e for any e.
		exp := strings.TrimLeft(p.src[expStart:p.pos], "0")
		if e, _ := strconv.Atoi(exp); len(exp) > 3 || e > maxDecimalExponent {
			digits := p.src[expStart:p.pos]
			p.pos = expStart
			return operand{}, p.errorf("exponent %s out of range (at most ±%d)", abbreviate(digits), maxDecimalExponent)
		}
	}
	r, ok := new(big.Rat).SetString(p.src[start:p.pos])
	if !ok {
		return operand{}, p.errorf("%q is not a decimal", abbreviate(p.src[start:p.pos]))
	}
	return operand{e: numeric.Lit(r)}, nil
}

// unexpected reports the text at the current offset, with a hint when it
// looks like the rest of a decimal or a float.
func (p *weightParser) unexpected() error {
	if p.pos < len(p.src) && strings.IndexByte(".xXpP", p.src[p.pos]) >= 0 {
		return p.errorf("unexpected %q: weights are integers, decimals like 1.5e-3, fractions a/b and expressions over them, without hex floats", p.rest())
	}
	return p.errorf("unexpected %q", p.rest())
}
