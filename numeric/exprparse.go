package numeric

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/transformer-cookbook/verify/exact"
)

// ParseExpr reads an exact real expression in the syntax Expr.String
// prints: rational numbers (3, -1/4, 0.5, 1e-3, 0x1p-3; exact), pi, the
// functions sqrt, log, exp, sin and cos, the operators + - * /, unary
// minus and parentheses, with the usual precedence. "sqrt(pi/2)",
// "log(8*16)" and "sin(4096/100)" are examples.
func ParseExpr(s string) (Expr, error) {
	p := &exprParser{src: s}
	e, err := p.sum()
	if err != nil {
		return Expr{}, err
	}
	if p.skipSpace(); p.pos < len(p.src) {
		return Expr{}, p.errorf("unexpected %q", p.src[p.pos:])
	}
	return e, nil
}

type exprParser struct {
	src string
	pos int
}

func (p *exprParser) errorf(format string, args ...any) error {
	return fmt.Errorf("expression %q at offset %d: %s", p.src, p.pos, fmt.Sprintf(format, args...))
}

func (p *exprParser) skipSpace() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (p *exprParser) peek() byte {
	p.skipSpace()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// sum := product (("+" | "-") product)*
func (p *exprParser) sum() (Expr, error) {
	x, err := p.product()
	for err == nil {
		op := p.peek()
		if op != '+' && op != '-' {
			return x, nil
		}
		p.pos++
		var y Expr
		if y, err = p.product(); err == nil {
			if op == '+' {
				x = Add(x, y)
			} else {
				x = Sub(x, y)
			}
		}
	}
	return x, err
}

// product := unary (("*" | "/") unary)*
func (p *exprParser) product() (Expr, error) {
	x, err := p.unary()
	for err == nil {
		op := p.peek()
		if op != '*' && op != '/' {
			return x, nil
		}
		p.pos++
		var y Expr
		if y, err = p.unary(); err == nil {
			if op == '*' {
				x = Mul(x, y)
			} else {
				x = Quo(x, y)
			}
		}
	}
	return x, err
}

// unary := "-" unary | atom
func (p *exprParser) unary() (Expr, error) {
	if p.peek() == '-' {
		p.pos++
		x, err := p.unary()
		return Neg(x), err
	}
	return p.atom()
}

// atom := number | "pi" | name "(" sum ")" | "(" sum ")"
func (p *exprParser) atom() (Expr, error) {
	c := p.peek()
	switch {
	case c == 0:
		return Expr{}, p.errorf("unexpected end")
	case c == '(':
		p.pos++
		x, err := p.sum()
		if err != nil {
			return x, err
		}
		if p.peek() != ')' {
			return x, p.errorf("missing )")
		}
		p.pos++
		return x, nil
	case unicode.IsLetter(rune(c)) && !strings.HasPrefix(p.src[p.pos:], "0x"):
		start := p.pos
		for p.pos < len(p.src) && unicode.IsLetter(rune(p.src[p.pos])) {
			p.pos++
		}
		name := p.src[start:p.pos]
		if name == "pi" {
			return Pi(), nil
		}
		f, ok := map[string]func(Expr) Expr{"sqrt": Sqrt, "log": Log, "exp": Exp, "sin": Sin, "cos": Cos}[name]
		if !ok {
			p.pos = start
			return Expr{}, p.errorf("unknown name %q (known: pi, sqrt, log, exp, sin, cos)", name)
		}
		if p.peek() != '(' {
			return Expr{}, p.errorf("%s needs (", name)
		}
		x, err := p.atom()
		return f(x), err
	}
	// A number: decimal digits with '.' and an exponent e±k, or a hex
	// float 0x… with an exponent p±k. exact.ParseRat checks it.
	start := p.pos
	hex := strings.HasPrefix(p.src[p.pos:], "0x") || strings.HasPrefix(p.src[p.pos:], "0X")
	expLetters := "eE"
	if hex {
		p.pos += 2
		expLetters = "pP"
	}
scan:
	for p.pos < len(p.src) {
		ch := p.src[p.pos]
		switch {
		case ch >= '0' && ch <= '9' || ch == '.':
		case strings.IndexByte(expLetters, ch) >= 0:
			if p.pos+1 < len(p.src) && (p.src[p.pos+1] == '+' || p.src[p.pos+1] == '-') {
				p.pos++
			}
		case hex && strings.IndexByte("abcdefABCDEF", ch) >= 0:
		default:
			break scan
		}
		p.pos++
	}
	if start == p.pos {
		return Expr{}, p.errorf("unexpected %q", string(c))
	}
	r, err := exact.ParseRat(p.src[start:p.pos])
	if err != nil {
		p.pos = start
		return Expr{}, p.errorf("%v", err)
	}
	return Lit(r), nil
}
