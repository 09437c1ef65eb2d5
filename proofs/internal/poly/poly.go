package poly

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
)

// MaxVars is the number of variables a polynomial may use.
const MaxVars = 8

// Mono is a monomial's exponents, one per variable.
type Mono [MaxVars]uint8

// Poly is a polynomial with rational coefficients (no zero terms stored).
// Two polynomials are equal as functions on ℝ^n exactly when their
// coefficients are, so comparing coefficients decides an identity for
// every real value of the variables at once.
type Poly map[Mono]*big.Rat

// Const is the constant polynomial r.
func Const(r *big.Rat) Poly {
	p := Poly{}
	p.addTerm(Mono{}, r)
	return p
}

// Var is variable number v.
func Var(v int) Poly {
	var m Mono
	m[v] = 1
	return Poly{m: big.NewRat(1, 1)}
}

func (p Poly) addTerm(m Mono, c *big.Rat) {
	if c.Sign() == 0 {
		return
	}
	if old, ok := p[m]; ok {
		old.Add(old, c)
		if old.Sign() == 0 {
			delete(p, m)
		}
		return
	}
	p[m] = new(big.Rat).Set(c)
}

// Add is p + q.
func Add(p, q Poly) Poly {
	out := Poly{}
	for m, c := range p {
		out.addTerm(m, c)
	}
	for m, c := range q {
		out.addTerm(m, c)
	}
	return out
}

// Scale is r·p.
func Scale(r *big.Rat, p Poly) Poly {
	out := Poly{}
	for m, c := range p {
		out.addTerm(m, new(big.Rat).Mul(r, c))
	}
	return out
}

// Sub is p − q.
func Sub(p, q Poly) Poly { return Add(p, Scale(big.NewRat(-1, 1), q)) }

// Mul is p·q.
func Mul(p, q Poly) Poly {
	out := Poly{}
	for m1, c1 := range p {
		for m2, c2 := range q {
			var m Mono
			for v := range m {
				m[v] = m1[v] + m2[v]
			}
			out.addTerm(m, new(big.Rat).Mul(c1, c2))
		}
	}
	return out
}

// Equal reports whether p and q have the same coefficients.
func Equal(p, q Poly) bool { return len(Sub(p, q)) == 0 }

// DegreeIn returns the degree of p's monomials in variable v, and false
// when p is zero or its monomials have different degrees in v.
func (p Poly) DegreeIn(v int) (int, bool) {
	deg := -1
	for m := range p {
		if deg >= 0 && int(m[v]) != deg {
			return 0, false
		}
		deg = int(m[v])
	}
	return deg, deg >= 0
}

// DivVar is p/(variable v)^k, for p homogeneous of degree k in v.
func (p Poly) DivVar(v, k int) Poly {
	out := Poly{}
	for m, c := range p {
		m[v] -= uint8(k)
		out.addTerm(m, c)
	}
	return out
}

// Format prints p with the given variable names, highest degree first.
func (p Poly) Format(names ...string) string {
	if len(p) == 0 {
		return "0"
	}
	type term struct {
		m Mono
		c *big.Rat
	}
	var ts []term
	for m, c := range p {
		ts = append(ts, term{m, c})
	}
	sort.Slice(ts, func(i, j int) bool {
		for v := range ts[i].m {
			if ts[i].m[v] != ts[j].m[v] {
				return ts[i].m[v] > ts[j].m[v]
			}
		}
		return false
	})
	var b strings.Builder
	for k, t := range ts {
		c := new(big.Rat).Set(t.c)
		switch {
		case k > 0 && c.Sign() < 0:
			b.WriteString(" − ")
			c.Neg(c)
		case k > 0:
			b.WriteString(" + ")
		case c.Sign() < 0:
			b.WriteString("−")
			c.Neg(c)
		}
		var vars []string
		for v, e := range t.m {
			if e == 0 {
				continue
			}
			name := fmt.Sprintf("x%d", v+1)
			if v < len(names) {
				name = names[v]
			}
			if e > 1 {
				name += fmt.Sprintf("^%d", e)
			}
			vars = append(vars, name)
		}
		if c.Cmp(big.NewRat(1, 1)) != 0 || len(vars) == 0 {
			b.WriteString(c.RatString())
		}
		b.WriteString(strings.Join(vars, ""))
	}
	return b.String()
}

// Polys builds a vector of polynomials from affine combinations of the
// variables: each entry is a row "c_0 c_1 … c_n" meaning c_0 + Σ c_v x_v.
func Polys(rows ...[]string) []Poly {
	out := make([]Poly, len(rows))
	for i, row := range rows {
		p := Const(rat(row[0]))
		for v, c := range row[1:] {
			p = Add(p, Scale(rat(c), Var(v)))
		}
		out[i] = p
	}
	return out
}

// Moments returns the mean μ, the centred entries e_i − μ and the
// variance σ² = (1/d) Σ (e_i − μ)² of a vector of polynomial entries, as
// the layer norm's definition computes them.
func Moments(entries []Poly) (mean Poly, centred []Poly, variance Poly) {
	inv := big.NewRat(1, int64(len(entries)))
	mean = Poly{}
	for _, e := range entries {
		mean = Add(mean, e)
	}
	mean = Scale(inv, mean)
	variance = Poly{}
	for _, e := range entries {
		c := Sub(e, mean)
		centred = append(centred, c)
		variance = Add(variance, Mul(c, c))
	}
	return mean, centred, Scale(inv, variance)
}

// ScaleFree takes the layer norm (ε = 0, β = 0, γ = 1) of a vector whose
// entries carry a scale variable k > 0. It checks, by comparing
// coefficients, that the mean is the zero polynomial, that each centred
// entry is k·c_i with c_i free of k, and that the variance is k²·P with P
// free of k. Then LN_i = k c_i/√(k² P) = c_i/√P for every k > 0 and every
// Point where P > 0: the result does not depend on k. It returns c and P.
func ScaleFree(entries []Poly, k int) (c []Poly, p Poly, err error) {
	mean, centred, variance := Moments(entries)
	if len(mean) != 0 {
		return nil, nil, fmt.Errorf("the mean is %s, not the zero polynomial", mean.Format())
	}
	for i, e := range centred {
		if len(e) == 0 {
			c = append(c, e)
			continue
		}
		if deg, ok := e.DegreeIn(k); !ok || deg != 1 {
			return nil, nil, fmt.Errorf("entry %d − μ = %s is not the scale times a polynomial free of it", i+1, e.Format())
		}
		c = append(c, e.DivVar(k, 1))
	}
	if deg, ok := variance.DegreeIn(k); !ok || deg != 2 {
		return nil, nil, fmt.Errorf("σ² = %s is not the scale squared times a polynomial free of it", variance.Format())
	}
	return c, variance.DivVar(k, 2), nil
}

// rat parses a rational written like "-3/7", the claims' own constants.
func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("poly: bad rational " + s)
	}
	return r
}
