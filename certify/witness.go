package certify

import (
	"math/rand/v2"
)

// witness is a partial input that produces a state: symbols at some
// positions. known is false where two parts of a state's history need
// different symbols at one position (the state then has no witness).
type witness struct {
	known bool
	at    []Assign // sorted by position
}

func single(pos, sym int) witness {
	return witness{known: true, at: []Assign{{pos, sym}}}
}

// union is the partial input that produces both: unknown when they
// disagree at a position.
func union(a, b witness) witness {
	if !a.known || !b.known {
		return witness{}
	}
	out := witness{known: true, at: make([]Assign, 0, len(a.at)+len(b.at))}
	i, j := 0, 0
	for i < len(a.at) || j < len(b.at) {
		switch {
		case j == len(b.at) || i < len(a.at) && a.at[i].Pos < b.at[j].Pos:
			out.at = append(out.at, a.at[i])
			i++
		case i == len(a.at) || b.at[j].Pos < a.at[i].Pos:
			out.at = append(out.at, b.at[j])
			j++
		default:
			if a.at[i].Symbol != b.at[j].Symbol {
				return witness{}
			}
			out.at = append(out.at, a.at[i])
			i, j = i+1, j+1
		}
	}
	return out
}

func (w witness) assigns() []Assign {
	if !w.known {
		return nil
	}
	return append([]Assign(nil), w.at...)
}

// Candidates builds up to max concrete inputs of length n from the
// suspects of res: a few patterns alone, then each suspect's witness with
// its free positions filled by the patterns (one symbol throughout, the position's symbols in turn,
// two symbols alternating, seeded random ones) over the symbols each
// position may hold. valid filters them (the construction's domain). The
// checker runs them: a failing one is a counterexample.
func Candidates(res *Result, symbols func(i, n int) []int, alphabet int, valid func([]int) bool, max int) [][]int {
	n := res.N
	syms := make([][]int, n)
	var all []int // every symbol: one list for every position, read only
	for i := range syms {
		if symbols != nil {
			syms[i] = symbols(i+1, n)
			continue
		}
		if all == nil {
			all = make([]int, alphabet)
			for k := range all {
				all[k] = k
			}
		}
		syms[i] = all
	}
	fills := fillers(syms)
	var out [][]int
	seen := map[string]bool{}
	try := func(in []int) bool {
		key := keyInts(in)
		if seen[key] || valid != nil && !valid(in) {
			return false
		}
		seen[key] = true
		out = append(out, in)
		return len(out) >= max
	}
	suspects := append(append([]Suspect(nil), res.Suspects...), res.Breaks...)
	if len(suspects) == 0 {
		return nil
	}
	// The patterns alone first: a witness pins the few positions of one
	// broken order, but the failure it points to often needs the rest of
	// the input to have some shape (a balanced string), which a regular
	// pattern gives more often than a pattern cut by the witness.
	for _, fill := range fills {
		if try(append([]int(nil), fill...)) {
			return out
		}
	}
	for _, s := range suspects {
		if s.Witness == nil {
			continue
		}
		for _, fill := range fills {
			in := append([]int(nil), fill...)
			for _, a := range s.Witness {
				if a.Pos < n {
					in[a.Pos] = a.Symbol
				}
			}
			if try(in) {
				return out
			}
		}
	}
	return out
}

// fillers are the patterns the free positions of a witness take.
func fillers(syms [][]int) [][]int {
	n := len(syms)
	pick := func(f func(i int, s []int) int) []int {
		in := make([]int, n)
		for i, s := range syms {
			if len(s) == 0 {
				continue
			}
			in[i] = s[f(i, s)%len(s)]
		}
		return in
	}
	var out [][]int
	for k := 0; k < 4; k++ {
		out = append(out, pick(func(int, []int) int { return k })) // constant
	}
	for k := 0; k < 2; k++ {
		out = append(out, pick(func(i int, s []int) int { return (i + k) % 2 })) // two symbols alternating
	}
	out = append(out, pick(func(i int, s []int) int { return i })) // every symbol in turn
	rng := rand.New(rand.NewPCG(uint64(n), 0xce47))
	for k := 0; k < 3; k++ {
		out = append(out, pick(func(i int, s []int) int { return rng.IntN(len(s)) }))
	}
	return out
}

func keyInts(xs []int) string {
	b := make([]byte, 0, 4*len(xs))
	for _, x := range xs {
		b = append(b, byte(x), byte(x>>8), byte(x>>16), ',')
	}
	return string(b)
}
