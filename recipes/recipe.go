package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/transformer-cookbook/verify/model"
)

// Recipe is one construction of the cookbook.
type Recipe struct {
	Name    string // the command-line name, e.g. "lookup"
	Title   string // what it computes, in the paper's words
	Section string // the paper's section title, e.g. "Quadratic Maximization"
	Label   string // its LaTeX label, e.g. "sec:quadratic-maximization"
	// Domain states the inputs on which the paper claims the construction
	// is right.
	Domain string
	// Weightings lists the attention weightings the paper says it works
	// with (the cheat sheet's column); the first is the default. Empty for
	// recipes without attention, which run under any weighting.
	Weightings []model.Weighting
	// Exact is the cheat sheet's "Exact?" column: whether the paper
	// claims the network realises its function exactly (else within the
	// bounds Bounds or Want.Tol give).
	Exact bool
	// Width is the residual stream width as a function of N, where the
	// paper gives one.
	Width string
	// MinN is the smallest input length (1 for most recipes).
	MinN int
	// DefaultMaxN is the largest length a sweep checks unless told
	// otherwise.
	DefaultMaxN int
	// Build returns the model for weighting w, valid for inputs up to
	// length maxN (recipes whose weights depend on N use it).
	Build func(w model.Weighting, maxN int) (*model.Model, error)
	// Inputs returns the inputs of length n to check: all of them when
	// there are at most budget, else budget inputs drawn with rng (and
	// exhaustive false).
	Inputs func(n int, rng *rand.Rand, budget int) (cases []Case, exhaustive bool)
	// Valid reports an input outside the domain the paper claims (nil
	// when every input of the alphabet is in it).
	Valid func(m *model.Model, c Case) error
	// Expected returns the exact intended output at every position of the
	// input, for model m. For vector inputs, c.Stream holds the input as
	// the format stores it (see Check).
	Expected func(m *model.Model, c Case) []Want
	// Parse reads an input typed by a user ('verify run --input'); nil
	// means a string of symbols (model.Tokenize).
	Parse func(m *model.Model, text string) (Case, error)
	// Bounds returns, for each output value, the paper's bound on
	// |output − expected| under weighting w, or nil where the claim is
	// exact equality. It may be nil: every value is claimed exact.
	Bounds func(w model.Weighting, maxN int) []Bound
}

// Case is one input: a string of symbols, or, for recipes over real
// vectors (the feed-forward ones), the initial residual stream.
type Case struct {
	Symbols []int        // indices into the model's alphabet
	Stream  [][]*big.Rat // or: one exact vector of width D per position
	// Text is how the case prints, and what Parse reads back; empty for
	// symbol inputs, which print as their symbols.
	Text string
}

// Len is the number of positions.
func (c Case) Len() int {
	if c.Stream != nil {
		return len(c.Stream)
	}
	return len(c.Symbols)
}

// Symbols wraps symbol strings as cases.
func SymbolCases(inputs [][]int) []Case {
	cs := make([]Case, len(inputs))
	for i, in := range inputs {
		cs[i] = Case{Symbols: in}
	}
	return cs
}

// Want is the intended output at one position: a symbol (for Sign and
// Argmax outputs) or exact values (for Readout outputs). Tol, where set,
// bounds |output − value| for this case (error terms that depend on the
// input, like the GELU product's), overriding the recipe's Bounds.
type Want struct {
	Symbol string
	Values []*big.Rat
	Tol    []Bound
}

// Bound is a claimed bound on an output value's error, with where the
// paper states it; a nil Max means the claim is exact equality.
type Bound struct {
	Max    *big.Rat
	Source string
}

var registry = map[string]*Recipe{}

// Register adds r to the registry; names must be unique.
func Register(r *Recipe) {
	if _, dup := registry[r.Name]; dup {
		panic("recipes: duplicate recipe " + r.Name)
	}
	registry[r.Name] = r
}

// Get returns the recipe called name, or an error listing the known names.
func Get(name string) (*Recipe, error) {
	if r, ok := registry[name]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("unknown recipe %q; known recipes: %s (see 'verify list')", name, strings.Join(Names(), ", "))
}

// Names lists the registered recipes in alphabetical order.
func Names() []string {
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// All returns the registered recipes in alphabetical order.
func All() []*Recipe {
	var rs []*Recipe
	for _, n := range Names() {
		rs = append(rs, registry[n])
	}
	return rs
}

// ParseWeighting reads a weighting by its name in model (softmax,
// lhardmax, rhardmax, avghardmax) or the paper's acronyms (SMAT, AHAT,
// UHAT for leftmost).
func ParseWeighting(s string) (model.Weighting, error) {
	switch strings.ToLower(s) {
	case "softmax", "smat":
		return model.Softmax, nil
	case "lhardmax", "uhat", "leftmost":
		return model.LeftHardmax, nil
	case "rhardmax", "rightmost":
		return model.RightHardmax, nil
	case "avghardmax", "ahat", "average":
		return model.AverageHardmax, nil
	}
	return 0, fmt.Errorf("unknown weighting %q (softmax/SMAT, avghardmax/AHAT, lhardmax/UHAT, rhardmax)", s)
}

// WeightingAcronym is the paper's name of a weighting: SMAT, AHAT, UHAT
// (leftmost) or UHAT-right.
func WeightingAcronym(w model.Weighting) string {
	switch w {
	case model.Softmax:
		return "SMAT"
	case model.AverageHardmax:
		return "AHAT"
	case model.LeftHardmax:
		return "UHAT"
	case model.RightHardmax:
		return "UHAT-right"
	}
	return w.String()
}

// Supports reports whether the paper says r works with weighting w.
func (r *Recipe) Supports(w model.Weighting) bool {
	if len(r.Weightings) == 0 {
		return true
	}
	for _, x := range r.Weightings {
		if x == w {
			return true
		}
	}
	return false
}

// sampleOrAll enumerates the inputs of length n over an alphabet of size
// k when k^n ≤ budget, else draws budget inputs with rng, each symbol
// drawn by pick (or uniformly when pick is nil).
func sampleOrAll(n, k int, rng *rand.Rand, budget int, pick func(i, n int, rng *rand.Rand) int) ([][]int, bool) {
	total := 1
	for i := 0; i < n && total <= budget; i++ {
		total *= k
	}
	if total <= budget {
		all := make([][]int, 0, total)
		cur := make([]int, n)
		for c := 0; c < total; c++ {
			x := c
			for i := n - 1; i >= 0; i-- {
				cur[i] = x % k
				x /= k
			}
			all = append(all, append([]int(nil), cur...))
		}
		return all, true
	}
	out := make([][]int, budget)
	for c := range out {
		in := make([]int, n)
		for i := range in {
			if pick != nil {
				in[i] = pick(i, n, rng)
			} else {
				in[i] = rng.IntN(k)
			}
		}
		out[c] = in
	}
	return out, false
}
