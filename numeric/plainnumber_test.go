package numeric

import (
	"math/rand"
	"testing"
)

// TestPlainNumberAgreesWithTheParser: the fast path for plain fractions
// and decimals either leaves a text to the parser or reads it as the
// parser does, to the same literal, over every text of up to four
// characters of the numbers' alphabet and random longer ones.
func TestPlainNumberAgreesWithTheParser(t *testing.T) {
	const alphabet = "0123456789-+./eE"
	var texts []string
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		if prefix != "" {
			texts = append(texts, prefix)
		}
		if n == 0 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			grow(prefix+alphabet[i:i+1], n-1)
		}
	}
	grow("", 4)
	rng := rand.New(rand.NewSource(7))
	digits := "0123456789"
	for i := 0; i < 20000; i++ {
		b := []byte{}
		for n := 1 + rng.Intn(24); n > 0; n-- {
			if rng.Intn(4) == 0 {
				b = append(b, alphabet[rng.Intn(len(alphabet))])
			} else {
				b = append(b, digits[rng.Intn(10)])
			}
		}
		texts = append(texts, string(b))
	}
	texts = append(texts, "9223372036854775807/9223372036854775807", "-9223372036854775808", "99999999999999999999/3",
		"1e400", "1e401", "1e-400", "123456789012345678e18", "0.000000000000000000001", "1e0000000400", "1e+-3", "1e")
	fast := 0
	for _, s := range texts {
		got, ok := plainNumber(s)
		if !ok {
			continue
		}
		fast++
		want, err := parseThroughParser(s)
		if err != nil {
			t.Errorf("%q: the fast path reads %v, the parser refuses it: %v", s, got, err)
			continue
		}
		if got.String() != want.String() || !want.IsLiteral() || !got.IsLiteral() {
			t.Errorf("%q: the fast path reads %v, the parser %v", s, got, want)
		}
	}
	if fast < 1000 {
		t.Errorf("only %d of %d texts took the fast path", fast, len(texts))
	}
}

// parseThroughParser is ParseExpr without its fast path.
func parseThroughParser(s string) (Expr, error) {
	p := &exprParser{src: s}
	x, err := p.sum()
	if err == nil {
		if p.skipSpace(); p.pos < len(s) {
			err = p.unexpected()
		}
	}
	return x.e, err
}
