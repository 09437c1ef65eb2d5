package bigmath

import (
	"math/big"
	"sync"
)

// A fixed-point sum S of a series, scaled by 2^W: the constant lies in
// [(S − E)/2^W, (S + E)/2^W].
type fixedSum struct {
	s *big.Int
	e int64
	w uint
}

// arctanInv returns 2^w·arctan(1/x) (or arctanh(1/x) when hyperbolic) in
// fixed point, x ≥ 2.
//
// The series is Σ_k (±1)^k / ((2k+1) x^(2k+1)). With p_k = ⌊2^w / x^(2k+1)⌋,
// computed as p_k = ⌊p_{k−1} / x²⌋ (nested floors of integer divisions equal
// the single floor), each term ⌊p_k/(2k+1)⌋ is below the exact term
// 2^w/((2k+1)x^(2k+1)) by less than 2. Summation stops at the first p_k = 0;
// the exact remaining terms are then each below 1 and shrink by x² ≥ 4, so
// they sum to less than 4/3. The total error is below 2K + 2 for K terms.
func arctanInv(x int64, w uint, hyperbolic bool) fixedSum {
	xx := big.NewInt(x * x)
	p := new(big.Int).Lsh(big.NewInt(1), w)
	p.Quo(p, big.NewInt(x))
	s := new(big.Int)
	t := new(big.Int)
	var k int64
	for ; p.Sign() > 0; k++ {
		t.Quo(p, big.NewInt(2*k+1))
		if !hyperbolic && k%2 == 1 {
			s.Sub(s, t)
		} else {
			s.Add(s, t)
		}
		p.Quo(p, xx)
	}
	return fixedSum{s: s, e: 2*k + 2, w: w}
}

// combine returns Σ c_i·a_i with the error bounds scaled alike.
func combine(coef []int64, parts []fixedSum) fixedSum {
	s := new(big.Int)
	var e int64
	for i, c := range coef {
		s.Add(s, new(big.Int).Mul(big.NewInt(c), parts[i].s))
		if c < 0 {
			c = -c
		}
		e += c * parts[i].e
	}
	return fixedSum{s: s, e: e, w: parts[0].w}
}

func (f fixedSum) interval(prec uint) Interval {
	lo := new(big.Int).Sub(f.s, big.NewInt(f.e))
	hi := new(big.Int).Add(f.s, big.NewInt(f.e))
	l := new(big.Float).SetInt(lo)
	h := new(big.Float).SetInt(hi)
	return Interval{
		MulPow2(l, -int(f.w), prec, Down),
		MulPow2(h, -int(f.w), prec, Up),
	}
}

// constCache keeps the most precise enclosure computed so far.
type constCache struct {
	mu      sync.Mutex
	best    Interval
	prec    uint
	compute func(w uint) fixedSum
}

func (c *constCache) get(prec uint) Interval {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prec < prec {
		w := prec + 64
		c.best = c.compute(w).interval(prec + 32)
		c.prec = prec
	}
	return IRound(c.best, prec)
}

var (
	piCache = &constCache{compute: func(w uint) fixedSum {
		// Machin: π = 16 arctan(1/5) − 4 arctan(1/239).
		return combine([]int64{16, -4}, []fixedSum{arctanInv(5, w, false), arctanInv(239, w, false)})
	}}
	ln2Cache = &constCache{compute: func(w uint) fixedSum {
		// log 2 = 18 arctanh(1/26) − 2 arctanh(1/4801) + 8 arctanh(1/8749).
		return combine([]int64{18, -2, 8}, []fixedSum{
			arctanInv(26, w, true), arctanInv(4801, w, true), arctanInv(8749, w, true)})
	}}
)

// PiInterval returns an enclosure of π with prec-bit endpoints, one or two
// ulps wide.
func PiInterval(prec uint) Interval { return piCache.get(prec) }

// Ln2Interval returns an enclosure of log 2 with prec-bit endpoints.
func Ln2Interval(prec uint) Interval { return ln2Cache.get(prec) }
