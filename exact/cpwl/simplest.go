package cpwl

import "math/big"

// simplest returns the rational with the least denominator strictly
// between lo and hi (lo < hi), the one nearest 0 among integers. The
// enumeration steps to such points rather than to midpoints, whose
// denominators would double at every level of the search: small points
// keep the arithmetic cheap and make an --explain listing readable.
//
// It reads off the continued fractions of the two ends: while they share
// their integer part n, the answer is n + 1/(the simplest number between
// the reciprocals of the fractional parts), and as soon as an integer
// fits strictly between the ends, that integer is the answer.
func simplest(lo, hi *big.Rat) *big.Rat {
	switch {
	case lo.Sign() < 0 && hi.Sign() > 0:
		return new(big.Rat)
	case hi.Sign() <= 0:
		r := simplest(new(big.Rat).Neg(hi), new(big.Rat).Neg(lo))
		return r.Neg(r)
	}
	// 0 ≤ lo < hi. n = ⌊lo⌋; n + 1 > lo, so it is the answer if below hi.
	n := new(big.Int).Quo(lo.Num(), lo.Denom())
	next := new(big.Rat).SetInt(new(big.Int).Add(n, big.NewInt(1)))
	if next.Cmp(hi) < 0 {
		return next
	}
	// Now n ≤ lo < hi ≤ n + 1: x = n + 1/y with 1/(hi − n) < y < 1/(lo − n).
	nr := new(big.Rat).SetInt(n)
	ylo := new(big.Rat).Sub(hi, nr)
	ylo.Inv(ylo)
	var y *big.Rat
	if lo.Cmp(nr) == 0 {
		// lo = n: y is only bounded below; take ⌊ylo⌋ + 1.
		y = new(big.Rat).SetInt(new(big.Int).Add(new(big.Int).Quo(ylo.Num(), ylo.Denom()), big.NewInt(1)))
	} else {
		yhi := new(big.Rat).Sub(lo, nr)
		yhi.Inv(yhi)
		y = simplest(ylo, yhi)
	}
	return nr.Add(nr, y.Inv(y))
}
