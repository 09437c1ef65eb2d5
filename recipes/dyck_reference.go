package recipes

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
)

// The references of the Dyck recipes, in plain Go and independent of the
// weights: a counter for the Dyck-1 values, a stack for membership (with
// the nesting depth), and the paper's Intuition for the rounds (mark
// adjacent matched pairs, filter them out, repeat).

// dyckDepth reports whether the symbols form a word of Dyck-k (every
// close bracket closes the innermost open one, of the same type, and
// none stays open) and its nesting depth (the most brackets open at
// once), by a stack.
func dyckDepth(symbols []int) (member bool, depth int) {
	var stack []int
	for _, s := range symbols {
		o := dyckO(s)
		if o > 0 {
			stack = append(stack, o)
			depth = max(depth, len(stack))
			continue
		}
		if len(stack) == 0 || stack[len(stack)-1] != -o {
			return false, depth
		}
		stack = stack[:len(stack)-1]
	}
	return len(stack) == 0, depth
}

// dyckMember reports membership in Dyck-k-D (D = 0: Dyck-k, any depth).
func dyckMember(symbols []int, d int) bool {
	member, depth := dyckDepth(symbols)
	return member && (d == 0 || depth <= d)
}

// dyckUnmatched runs the paper's Intuition for sec:dyck-1-2 for rounds
// rounds: mark every pair of adjacent brackets "(_t )_t" of the filtered
// string (at first the whole string), filter the marked brackets out,
// repeat. It returns how many brackets stay unmarked.
func dyckUnmatched(symbols []int, rounds int) int {
	active := make([]int, len(symbols)) // positions still unmarked
	for i := range active {
		active[i] = i
	}
	for r := 0; r < rounds; r++ {
		marked := make([]bool, len(active))
		for k := 0; k+1 < len(active); k++ {
			p, q := dyckO(symbols[active[k]]), dyckO(symbols[active[k+1]])
			if p > 0 && q == -p {
				marked[k], marked[k+1] = true, true
			}
		}
		var next []int
		for k, pos := range active {
			if !marked[k] {
				next = append(next, pos)
			}
		}
		active = next
	}
	return len(active)
}

// dyck1Values returns B_i/i and t_i = (1/i) Σ_{j≤i} max(0, −B_j/j) for
// every prefix, from the running count B_i = O_i − C_i (dyck1Sums).
func dyck1Values(symbols []int) (b, t []*big.Rat) {
	n := len(symbols)
	slab := make([]big.Rat, 2*n) // one allocation for the 2n values
	b, t = make([]*big.Rat, n), make([]*big.Rat, n)
	var s dyck1Sums
	for k, x := range symbols {
		s.add(x)
		b[k], t[k] = s.values(&slab[2*k], &slab[2*k+1])
	}
	return b, t
}

// dyck1Sums is the state of dyck1Values after the first i symbols: i,
// B_i, and S_i = Σ_{j≤i} max(0, −B_j/j), so that t_i = S_i/i.
//
// S_i is kept as a small fraction p/q (package exact's AddSmall) while p, q <
// 2^31 (q divides lcm(1..i), which is below 2^31 up to i = 22), and in
// big.Rat from the first term that would leave that range; the values are
// then built once, reduced, in lowest terms as big.Rat requires (no
// big.Rat arithmetic, and no temporaries, on the int64 path).
// TestDyck1ValuesBig compares both paths with big.Rat arithmetic.
type dyck1Sums struct {
	i, balance int64
	p, q       int64    // S_i = p/q while sumBig is nil (q = 0: S_0 = 0)
	sumBig     *big.Rat // S_i, once it left int64
}

// add reads the next symbol: 0 is "(", 1 is ")".
func (s *dyck1Sums) add(x int) {
	s.i++
	if s.q == 0 {
		s.q = 1
	}
	if x == 0 {
		s.balance++
	} else {
		s.balance--
	}
	if s.balance >= 0 {
		return
	}
	// S += −B_i/i
	if s.sumBig == nil {
		if p, q, ok := exact.AddSmall(s.p, s.q, -s.balance, s.i); ok {
			s.p, s.q = p, q
			return
		}
		s.sumBig = new(big.Rat).SetFrac64(s.p, s.q)
	}
	s.sumBig.Add(s.sumBig, big.NewRat(-s.balance, s.i))
}

// values sets zb to B_i/i and zt to t_i = S_i/i and returns them.
func (s *dyck1Sums) values(zb, zt *big.Rat) (b, t *big.Rat) {
	b = exact.SetSmall(zb, s.balance, s.i)
	if s.sumBig != nil {
		return b, zt.Quo(s.sumBig, new(big.Rat).SetInt64(s.i))
	}
	if q, ok := exact.MulSmall(s.q, s.i); ok {
		return b, exact.SetSmall(zt, s.p, q)
	}
	return b, zt.Quo(big.NewRat(s.p, s.q), new(big.Rat).SetInt64(s.i))
}

// dyck1ExpectedLast is dyck1Expected's last entry: B_n/n and t_n depend
// on the first n symbols only (running sums), so the reference is
// prefix-closed.
func dyck1ExpectedLast(c Case) Want {
	var s dyck1Sums
	for _, x := range c.Symbols {
		s.add(x)
	}
	vals := make([]big.Rat, 2)
	b, t := s.values(&vals[0], &vals[1])
	return Want{Values: []*big.Rat{b, t}}
}

func dyck1Expected(c Case) []Want {
	b, t := dyck1Values(c.Symbols)
	want := make([]Want, len(b))
	vals := make([]*big.Rat, 2*len(b))
	for i := range b {
		vals[2*i], vals[2*i+1] = b[i], t[i]
		want[i] = Want{Values: vals[2*i : 2*i+2 : 2*i+2]}
	}
	return want
}

// dyckValidN is the domain n ≤ N of the nonuniform outputs.
func dyckValidN(maxN int) func(c Case) error {
	return func(c Case) error {
		if c.Len() > maxN {
			return fmt.Errorf("length %d exceeds the maximum length N = %d the thresholds were built for", c.Len(), maxN)
		}
		return nil
	}
}

// dyck1NExpected is membership of every prefix, by a stack.
func dyck1NExpected(c Case) []Want {
	want := make([]Want, c.Len())
	for i := range want {
		want[i] = Want{Values: []*big.Rat{dyckBit(dyckMember(c.Symbols[:i+1], 0))}}
	}
	return want
}

func dyckBit(b bool) *big.Rat {
	if b {
		return big.NewRat(1, 1)
	}
	return new(big.Rat)
}

// dyckRoundsExpected: accept = membership in Dyck-k-D (a stack), and s
// from the paper's Intuition (mark, filter, repeat d times): the
// fraction of brackets left unmarked, or whether any is (check=max).
func dyckRoundsExpected(d int, anyActive, acceptOnly bool) func(c Case) []Want {
	return func(c Case) []Want {
		accept := dyckBit(dyckMember(c.Symbols, d))
		left := dyckUnmatched(c.Symbols, d)
		s := big.NewRat(int64(left), int64(c.Len()))
		if anyActive {
			s = dyckBit(left > 0)
		}
		vals := []*big.Rat{accept, s}
		if acceptOnly {
			vals = vals[:1]
		}
		want := make([]Want, c.Len())
		for i := range want {
			want[i] = Want{Values: vals}
		}
		return want
	}
}
