package numeric

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ParseExpr reads an exact real expression: the language that
// Expr.String prints (integers, pi, the functions sqrt, log, exp, sin and
// cos, the operators + - * /, unary minus and parentheses, with the usual
// precedence), with Python's reading of what String never prints (unary
// plus, "--1" = 1, "1/2/3" = (1/2)/3: operators of one precedence left to
// right), and exact decimals ("0.25", "-1.5e-3", "1E+2"), which other
// tools write: "0.1" is exactly 1/10, never the float64 nearest to it.
// Hex floats are not read.
//
// The reading is canonical, so that an Expr printed and read back prints
// the same: a negated integer literal ("-3") is the literal −3, and an
// integer literal divided by a coprime integer literal greater than 1
// ("-3/4") is the literal −3/4, as String prints those literals; anything
// else keeps the structure of the text ("2/4" is a quotient, "(1+2)*3" a
// product of a sum).
//
// The text is untrusted input (a model file's weights are read with it),
// and so bounded: at most MaxExprText characters, nesting (parentheses,
// signs, functions) and expression trees at most MaxExprDepth deep, and
// a decimal's exponent at most MaxDecimalExponent, so that the size of
// the result stays linear in the text ("1e99999" would be 330,000 bits
// from seven bytes) and enclosing it needs no unbounded precision.
func ParseExpr(s string) (Expr, error) {
	if len(s) > MaxExprText {
		return Expr{}, fmt.Errorf("an expression of %d characters, more than %d", len(s), MaxExprText)
	}
	if e, ok := plainNumber(s); ok {
		return e, nil
	}
	p := &exprParser{src: s}
	x, err := p.sum()
	if err == nil {
		if p.skipSpace(); p.pos < len(s) {
			err = p.unexpected()
		}
	}
	if err != nil {
		return Expr{}, err
	}
	return x.e, nil
}

const (
	// MaxExprText bounds the length of an expression's text.
	MaxExprText = 1 << 16
	// MaxExprDepth bounds the nesting of parentheses, signs and
	// functions in an expression's text, and the depth of its tree; the
	// cookbook's deepest constants (the sinusoidal encodings) are 6
	// operations deep.
	MaxExprDepth = 64
	// MaxDecimalExponent bounds |e| in a decimal "m.fe±x": every finite
	// number of the IEEE formats up to float64 prints in shortest form
	// with |e| ≤ 324 (5e-324 is the smallest), so no float written by
	// Python or numpy is refused, and 10^400 is 1,329 bits.
	MaxDecimalExponent = 400
)

// plainNumber reads the text of a fraction "-"? digits "/" digits in
// lowest terms, of a denominator above 1 and within int64, or of a decimal "-"? digits ("." digits)?
// (("e" | "E") ("+" | "-")? digits)? of an exponent within
// MaxDecimalExponent: the forms in which a model file holds nearly every
// weight. It makes the literal at once instead of through the parser,
// which builds an expression and folds it to the same literal (reading a
// matrix of a million distinct fractions took seconds that way, and 50
// times the file's size in garbage); any other text is left to the
// parser.
func plainNumber(s string) (Expr, bool) {
	body := strings.TrimPrefix(s, "-")
	sign := int64(1)
	if body != s {
		sign = -1
	}
	if num, den, frac := strings.Cut(body, "/"); frac {
		if !allDigits(num) || !allDigits(den) || strings.Trim(den, "0") == "" {
			return Expr{}, false
		}
		// Within int64, without big.Rat.SetString's reader; and only a
		// fraction in lowest terms, which the parser reads as one literal
		// too (it keeps 2/4 a quotient).
		a, errA := strconv.ParseInt(num, 10, 64)
		b, errB := strconv.ParseInt(den, 10, 64)
		if errA != nil || errB != nil || b < 2 || gcd(a, b) != 1 {
			return Expr{}, false
		}
		return Frac(sign*a, b), true
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(body), "e")
	whole, fracDigits, hasPoint := strings.Cut(mant, ".")
	if !allDigits(whole) || hasPoint && !allDigits(fracDigits) {
		return Expr{}, false
	}
	e := 0
	if hasExp {
		digits := exp
		if digits != "" && (digits[0] == '+' || digits[0] == '-') {
			digits = digits[1:]
		}
		if !allDigits(digits) {
			return Expr{}, false
		}
		digits = strings.TrimLeft(digits, "0")
		if len(digits) > 3 {
			return Expr{}, false
		}
		if e, _ = strconv.Atoi(digits); e > MaxDecimalExponent {
			return Expr{}, false
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
			return Frac(sign*m, pow10[scale]), true
		case scale < 0 && -scale < len(pow10) && m <= math.MaxInt64/pow10[-scale]:
			return Frac(sign*m*pow10[-scale], 1), true
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

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// ratText is the literal of a number's text that big.Rat reads.
func ratText(s string) (Expr, bool) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return Expr{}, false
	}
	return Lit(r), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// litKind tells the parser whether an operand is a bare integer literal,
// which the canonical reading may fold (see ParseExpr).
type litKind int

const (
	compound   litKind = iota // anything else, including a parenthesized literal
	natural                   // an integer literal as written: "3"
	negNatural                // a negated integer literal: "-3"
	decimal                   // a decimal as written: "1.5", "2e-3"
)

// operand is a parsed subexpression: its Expr, whether it is a bare
// literal, and the depth of its tree, which bounds the work of enclosing
// it: each level adds guard bits, so pi*pi*…*pi with ten thousand factors
// would need 80,000-bit arithmetic.
type operand struct {
	e     Expr
	kind  litKind
	depth int
}

type exprParser struct {
	src string
	pos int
	// nesting counts the parentheses, minus signs and functions the
	// parser is inside, which bounds its recursion.
	nesting int
}

func (p *exprParser) errorf(format string, args ...any) error {
	return &SyntaxError{Text: p.src, Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

// SyntaxError is ParseExpr's error for a text outside the language: where
// (Offset, in bytes) and what. A reader of a file names the text its own
// way (a model file's "weight").
type SyntaxError struct {
	Text   string
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("expression %q at offset %d: %s", abbreviate(e.Text), e.Offset, e.Msg)
}

// abbreviate shortens a long text for an error message.
func abbreviate(s string) string {
	if len(s) > 60 {
		return s[:40] + "…" + s[len(s)-10:]
	}
	return s
}

func (p *exprParser) rest() string { return abbreviate(p.src[p.pos:]) }

func (p *exprParser) skipSpace() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

func (p *exprParser) peek() byte {
	p.skipSpace()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// enter counts one level of nesting; leave undoes it.
func (p *exprParser) enter() error {
	if p.nesting++; p.nesting > MaxExprDepth {
		return p.errorf("nested more than %d deep", MaxExprDepth)
	}
	return nil
}

func (p *exprParser) leave() { p.nesting-- }

// node builds an operation on args, checking the depth of its tree.
func (p *exprParser) node(e Expr, args ...operand) (operand, error) {
	d := 0
	for _, a := range args {
		d = max(d, a.depth)
	}
	if d+1 > MaxExprDepth {
		return operand{}, p.errorf("more than %d operations deep", MaxExprDepth)
	}
	return operand{e: e, depth: d + 1}, nil
}

// sum := product (("+" | "-") product)*
func (p *exprParser) sum() (operand, error) {
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
			x, err = p.node(Add(x.e, y.e), x, y)
		} else {
			x, err = p.node(Sub(x.e, y.e), x, y)
		}
	}
	return x, err
}

// product := unary (("*" | "/") unary)*, where a bare integer literal
// divided by a coprime bare integer literal greater than 1 is read as the
// one literal that String prints that way.
func (p *exprParser) product() (operand, error) {
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
		case op == '/' && (x.kind == natural || x.kind == negNatural) && y.kind == natural && foldable(x.e, y.e):
			r, _, _ := Quo(x.e, y.e).Rat()
			x = operand{e: Lit(r)}
		case op == '/':
			x, err = p.node(Quo(x.e, y.e), x, y)
		default:
			x, err = p.node(Mul(x.e, y.e), x, y)
		}
	}
	return x, err
}

// foldable reports whether the integer literals a and b are a fraction in
// lowest terms with b > 1, which is how String prints the literal a/b.
func foldable(a, b Expr) bool {
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
func (p *exprParser) unary() (operand, error) {
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
	switch x.kind {
	case natural:
		r, _, _ := x.e.Rat()
		return operand{e: Lit(r.Neg(r)), kind: negNatural}, nil
	case decimal:
		// A negative decimal is a number, as a JSON file writes it.
		r, _, _ := x.e.Rat()
		return operand{e: Lit(r.Neg(r))}, nil
	}
	return p.node(Neg(x.e), x)
}

var exprFuncs = map[string]func(Expr) Expr{
	"sqrt": Sqrt, "log": Log, "exp": Exp, "sin": Sin, "cos": Cos,
}

// atom := digits | "pi" | name "(" sum ")" | "(" sum ")"
func (p *exprParser) atom() (operand, error) {
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
			return operand{e: Pi()}, nil
		}
		f, ok := exprFuncs[name]
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
			return operand{e: Lit(new(big.Rat).SetInt(n)), kind: natural}, nil
		}
		return p.decimal(start)
	}
	return operand{}, p.unexpected()
}

// digits skips a run of decimal digits, and reports how many.
func (p *exprParser) digits() int {
	start := p.pos
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}

// decimal reads the rest of a decimal whose integer digits start at
// start and end at p.pos: digits ("." digits)? (("e" | "E") ("+" | "-")?
// digits)?, as JSON writes a number, read exactly. It is never folded
// into a fraction ("0.5/3" is the quotient, whose value is the same), but
// a minus sign before it is ("-1.5" is the literal −3/2).
func (p *exprParser) decimal(start int) (operand, error) {
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
		if e, _ := strconv.Atoi(exp); len(exp) > 3 || e > MaxDecimalExponent {
			digits := p.src[expStart:p.pos]
			p.pos = expStart
			return operand{}, p.errorf("exponent %s out of range (at most ±%d)", abbreviate(digits), MaxDecimalExponent)
		}
	}
	r, ok := new(big.Rat).SetString(p.src[start:p.pos])
	if !ok {
		return operand{}, p.errorf("%q is not a decimal", abbreviate(p.src[start:p.pos]))
	}
	return operand{e: Lit(r), kind: decimal}, nil
}

// unexpected reports the text at the current offset, with a hint when it
// looks like the rest of a decimal or a float.
func (p *exprParser) unexpected() error {
	if p.pos < len(p.src) && strings.IndexByte(".xXpP", p.src[p.pos]) >= 0 {
		return p.errorf("unexpected %q: numbers are integers, decimals like 1.5e-3, fractions a/b and expressions over them, without hex floats", p.rest())
	}
	return p.errorf("unexpected %q", p.rest())
}
