package numeric

import (
	"errors"
	"math/big"
	"testing"
)

// TestEncloseExtremeExponents: exp(−3·10⁹) ≈ 2^(−4.3·10⁹) is far below
// what a big.Rat end can hold; its enclosure widens to [0, 2^−2^20]
// instead of panicking, and exp(3·10⁹) is an overflow.
func TestEncloseExtremeExponents(t *testing.T) {
	lo, hi, err := Exp(LitInt(-3000000000)).Enclose(64)
	if err != nil {
		t.Fatal(err)
	}
	bound := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), maxEncloseExp))
	if lo.Sign() != 0 || hi.Cmp(bound) != 0 {
		t.Errorf("enclosure [%s, %s], want [0, 2^-%d]", lo.FloatString(3), hi.FloatString(3), maxEncloseExp)
	}
	if _, _, err := Exp(LitInt(3000000000)).Enclose(64); !errors.Is(err, ErrOverflow) {
		t.Errorf("exp(3e9): %v, want an overflow", err)
	}
	if _, _, err := Neg(Exp(LitInt(-3000000000))).Enclose(64); err != nil {
		t.Errorf("−exp(−3e9): %v", err)
	}
}
