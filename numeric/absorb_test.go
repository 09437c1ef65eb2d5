package numeric

import (
	"math/big"
	"testing"
)

// TestBigFloatAbsorb: the shortcut for operands of very different size
// gives the correctly rounded sum, checked against big.Float's own exact
// alignment on the boundary gaps prec+1 … prec+4, with the large operand a
// power of two (where the spacing halves below it) and not.
func TestBigFloatAbsorb(t *testing.T) {
	for _, prec := range []uint{2, 3, 11, 24, 53} {
		b := NewBigFloat(prec)
		larges := []*big.Rat{big.NewRat(1, 1), big.NewRat(3, 2), big.NewRat(-1, 1), big.NewRat(-7, 4)}
		for _, l := range larges {
			x := b.SetRat(nil, l)
			for gap := int(prec) - 1; gap <= int(prec)+5; gap++ {
				for _, sm := range []*big.Rat{big.NewRat(1, 1), big.NewRat(-1, 1), big.NewRat(3, 2), big.NewRat(-3, 2)} {
					y := b.SetRat(nil, new(big.Rat).Mul(sm, new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(gap)))))
					for _, op := range []string{"add", "sub"} {
						var got, want *big.Float
						exact := new(big.Float).SetPrec(0)
						if op == "add" {
							got = b.Add(nil, x, y)
							want = new(big.Float).SetPrec(prec).Set(exact.SetPrec(400).Add(x, y))
							// and the other order
							if g2 := b.Add(nil, y, x); g2.Cmp(want) != 0 {
								t.Errorf("%d bits: %s + %s = %s, want %s", prec, y.Text('p', 0), x.Text('p', 0), g2.Text('p', 0), want.Text('p', 0))
							}
						} else {
							got = b.Sub(nil, x, y)
							want = new(big.Float).SetPrec(prec).Set(exact.SetPrec(400).Sub(x, y))
							if g2, w2 := b.Sub(nil, y, x), new(big.Float).SetPrec(prec).Set(new(big.Float).SetPrec(400).Sub(y, x)); g2.Cmp(w2) != 0 {
								t.Errorf("%d bits: %s − %s = %s, want %s", prec, y.Text('p', 0), x.Text('p', 0), g2.Text('p', 0), w2.Text('p', 0))
							}
						}
						if got.Cmp(want) != 0 {
							t.Errorf("%d bits: %s %s %s = %s, want %s", prec, x.Text('p', 0), op, y.Text('p', 0), got.Text('p', 0), want.Text('p', 0))
						}
					}
				}
			}
		}
	}
}
