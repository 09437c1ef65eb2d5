package recipes

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/internal/suggest"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// Recipe is one construction of the cookbook: what the paper says of it,
// and a builder that turns its parameters into a Construction.
type Recipe struct {
	Name    string // the command-line name, e.g. "lookup"
	Title   string // what it computes, in the paper's words
	Section string // the paper's section title, e.g. "Quadratic Maximization"
	// Label is the section's LaTeX label ("sec:quadratic-maximization"),
	// empty where the paper gives none.
	Label  string
	Domain string // the inputs on which the paper claims it right
	// Weightings are the weightings the paper gives it (the cheat sheet's
	// column), the default first; empty without attention.
	Weightings []model.Weighting
	// Exact is the cheat sheet's "Exact?" column: claimed exact, rather
	// than within the construction's bounds.
	Exact       bool
	Width       string // the residual stream's width as a function of N
	MinN        int    // the smallest input length
	DefaultMaxN int    // the largest length a sweep checks by default
	// LimitN, when set, is the largest N the builder accepts (widths or
	// alphabets that grow with N would not fit in memory beyond it).
	LimitN int
	// Precision is the precision of a check by default ("exact" when
	// empty; certified intervals where weights or outputs are
	// irrational); SoftmaxPrecision replaces it under SMAT.
	Precision        string
	SoftmaxPrecision string
	// Booleans are the labels of the outputs that are truth values: one
	// decides right when nearer the right value than the wrong one.
	Booleans []string
	Params   []Param // the builder's parameters (ε, δ, a truth table, …)
	// Build returns the construction for a configuration whose Params
	// holds a value for every declared parameter.
	Build func(cfg Config) (*Construction, error)
	// ProvedBy names the registry's claim that proves the construction
	// right on its whole domain, so that a length proved faithful to the
	// construction is certified against the intended function too.
	ProvedBy string
}

// Param is a parameter of a recipe's builder, set on the command line
// with --param NAME=VALUE.
type Param struct {
	Name    string
	Default string
	Doc     string // what it is, and which values the paper allows
}

// Config is what a builder is given: the weighting, the largest input
// length N (recipes whose weights depend on N use it), and every
// parameter, as text.
type Config struct {
	Weighting model.Weighting
	MaxN      int
	Params    map[string]string
}

// Rat returns parameter name as an exact rational (integers, fractions
// like -3/7, decimals; never read through float64).
func (c Config) Rat(name string) (*big.Rat, error) {
	r, err := exact.ParseRat(c.Params[name])
	if err != nil {
		return nil, fmt.Errorf("parameter %s: %w", name, err)
	}
	return r, nil
}

// PositiveRat returns parameter name, which must be > 0.
func (c Config) PositiveRat(name string) (*big.Rat, error) {
	r, err := c.Rat(name)
	if err == nil && r.Sign() <= 0 {
		err = fmt.Errorf("parameter %s must be positive, got %s", name, r.RatString())
	}
	return r, err
}

// Int returns parameter name as an integer in [lo, hi].
func (c Config) Int(name string, lo, hi int) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(c.Params[name]))
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("parameter %s must be an integer from %d to %d, got %q", name, lo, hi, c.Params[name])
	}
	return v, nil
}

// Choice returns parameter name, which must be one of choices.
func (c Config) Choice(name string, choices ...string) (string, error) {
	v := c.Params[name]
	for _, ch := range choices {
		if v == ch {
			return v, nil
		}
	}
	return "", fmt.Errorf("parameter %s must be one of %s, got %q", name, strings.Join(choices, ", "), v)
}

// Construction is a recipe built for one configuration: the model with
// exact weights, and everything needed to check it.
type Construction struct {
	Model *model.Model
	// Inputs returns the inputs of length n to check: all of them when
	// there are at most budget, else budget inputs drawn with rng (and
	// exhaustive false); with a nil rng, none then (a free probe).
	Inputs func(n int, rng *rand.Rand, budget int) (cases []Case, exhaustive bool)
	// Valid reports an input outside the domain the paper claims (nil
	// when every input of the alphabet is in it).
	Valid func(c Case) error
	// Expected returns the exact intended output at every position. For
	// vector inputs, c.Stream holds the input as the format stores it
	// (see check.Run): rounding an input is not the construction's error.
	Expected func(c Case) []Want
	// ExpectedLast, when set, returns Expected(c)'s last entry alone and
	// declares the reference prefix-closed (position i's entry depends on
	// the first i symbols only), so that a depth-first enumeration
	// computes one reference per string (check.Enumerate; check's tests
	// hold each declaration against Expected).
	ExpectedLast func(c Case) Want
	// Parse reads an input typed by a user ('verify run --input'); nil
	// means a string of symbols (model.Tokenize).
	Parse func(text string) (Case, error)
	// Count, when set, counts a typed input's positions before a model is
	// built, where the alphabet grows with N (see InputLength).
	Count func(text string) (int, error)
	// Bounds gives, per output value, the paper's bound on |output −
	// expected|; a missing or nil entry claims exact equality.
	Bounds []Bound
	// Simulated is the average-hard model a softmax construction simulates
	// (§Simulating Average-Hard Attention): runs are certified against it.
	Simulated *model.Model
	// Notes records choices made while building (a sampled family's seed
	// and measured ε, an adaptation of the paper's weights), for reports.
	Notes []string
	// Adapt, when set, maps an input stream from the recipe's residual
	// layout to the model's (Adopt sets it for a model from a file).
	Adapt        func(h0 [][]*big.Rat) ([][]*big.Rat, error)
	AdaptSymbols func(symbols []int) []int // the recipe's symbols to the model's
	// Symbols, when set, lists in increasing order the symbols a valid
	// input of length n may hold at position i (1-based); nil means every
	// symbol. It may list more than Valid allows, never less: package
	// certify enumerates what it lists. A list is read only, so that one
	// list may serve every position (the lookup's 2n symbols).
	Symbols  func(i, n int) []int
	Booleans []string // the recipe's Booleans (Construct sets it)
	// Vector, for a recipe whose input is a sequence of real vectors,
	// describes one position's input (nil for strings): what an analysis
	// of every input of a position-wise model enumerates or splits.
	Vector *VectorDomain
	// AllStrings says that Inputs, when it enumerates, lists every string
	// of length n in lexicographic order (the last symbol fastest), so
	// that an exhaustive check may enumerate them depth first instead.
	AllStrings bool
}

// Construct fills in default parameters, rejects unknown ones, and builds
// r for weighting w and maximum length maxN.
func (r *Recipe) Construct(w model.Weighting, maxN int, params map[string]string) (*Construction, error) {
	if maxN < 1 {
		return nil, fmt.Errorf("%s: the maximum length N must be at least 1, got %d", r.Name, maxN)
	}
	if r.LimitN > 0 && maxN > r.LimitN {
		return nil, fmt.Errorf("%s: N = %d is more than this recipe builds (at most %d: %s grows with N)", r.Name, maxN, r.LimitN, r.widthOrAlphabet())
	}
	cfg := Config{Weighting: w, MaxN: maxN, Params: map[string]string{}}
	for _, p := range r.Params {
		cfg.Params[p.Name] = p.Default
	}
	for k, v := range params {
		if !r.HasParam(k) {
			var names []string
			for _, p := range r.Params {
				names = append(names, p.Name)
			}
			return nil, fmt.Errorf("%s has no parameter %q%s (%s)", r.Name, k, suggest.DidYouMean(k, names), r.paramNames())
		}
		cfg.Params[k] = v
	}
	c, err := r.Build(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Name, err)
	}
	c.Booleans = r.Booleans
	if c.Vector != nil && c.Vector.Domain == "" {
		c.Vector.Domain = r.Domain
	}
	return c, nil
}

func (r *Recipe) widthOrAlphabet() string {
	if r.Width != "" {
		return "its width, " + r.Width + ", or its alphabet"
	}
	return "its alphabet"
}

// HasParam reports whether r takes the parameter name.
func (r *Recipe) HasParam(name string) bool {
	for _, p := range r.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

func (r *Recipe) paramNames() string {
	if len(r.Params) == 0 {
		return "it takes none"
	}
	var names []string
	for _, p := range r.Params {
		names = append(names, p.Name)
	}
	return "parameters: " + strings.Join(names, ", ")
}

// ParamValues returns the value of every parameter of r: params where
// set, the defaults otherwise; nil for a recipe without parameters.
func (r *Recipe) ParamValues(params map[string]string) map[string]string {
	if len(r.Params) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, p := range r.Params {
		out[p.Name] = p.Default
	}
	for k, v := range params {
		out[k] = v
	}
	return out
}

// Literal reports whether r is a formula exactly as printed in the paper
// that the engine shows wrong (registered as NAME-literal beside the
// corrected NAME, to pin its counterexample).
func (r *Recipe) Literal() bool { return strings.HasSuffix(r.Name, "-literal") }

// DefaultPrecision is the precision r is checked at unless told otherwise.
func (r *Recipe) DefaultPrecision() numeric.Precision {
	if r.Precision == "" {
		return numeric.MustParsePrecision("exact")
	}
	return numeric.MustParsePrecision(r.Precision)
}

// PrecisionFor is the precision r is checked at by default under
// weighting w, with a note when it is not the recipe's own default:
// SoftmaxPrecision under SMAT where set; and when exact arithmetic cannot
// hold the model's weights (softmax's 1/τ = log(8N)/γ is irrational), 53
// bits, since a rounded output cannot be confirmed by an interval
// enclosure that is wider than a point (see check.Compare).
func (r *Recipe) PrecisionFor(w model.Weighting, maxN int, params map[string]string) (numeric.Precision, string, error) {
	if w == model.Softmax && r.SoftmaxPrecision != "" && len(r.Weightings) > 0 {
		p := numeric.MustParsePrecision(r.SoftmaxPrecision)
		if p.Kind != numeric.KindBigFloat {
			return p, "", nil
		}
		return p, fmt.Sprintf("precision %s under SMAT, each operation rounded to %s bits (a check of that arithmetic, not of the model's exact real outputs): interval arithmetic cannot confirm the exact outputs", p, p), nil
	}
	p := r.DefaultPrecision()
	if p.Kind != numeric.KindExact {
		return p, "", nil
	}
	con, err := r.Construct(w, maxN, params)
	if err != nil {
		return p, "", err
	}
	if _, err := eval.New(p, con.Model); errors.Is(err, numeric.ErrIrrational) {
		return numeric.MustParsePrecision("53"), "precision 53, each operation rounded to 53 bits (a check of that arithmetic, not of the model's exact real outputs): exact arithmetic cannot hold the weights (" + err.Error() + ")", nil
	}
	return p, "", nil
}

// Case is one input: a string of symbols, or, for recipes over real
// vectors (the feed-forward ones), the initial residual stream.
type Case struct {
	Symbols []int        // indices into the model's alphabet
	Stream  [][]*big.Rat // or: one exact vector of width D per position
	// Text is how the case prints, and what Parse reads back; empty for
	// symbol inputs, which print as their symbols.
	Text string
	// Tokens, when set, is how each position prints (a trace's column
	// heads): an input given by its stream whose positions are still
	// symbols with values, like the lookups' "2:3/7".
	Tokens []string
}

// InputLength returns the number of positions of a typed input: Count's,
// or else the length of the case Parse (or the model's Tokenize) reads.
// Any N gives the same count, so a construction built for the smallest N
// tells how many positions the model that runs the input needs ('verify
// run' builds one for exactly that many, not for the input's characters).
func (c *Construction) InputLength(text string) (int, error) {
	switch {
	case c.Count != nil:
		return c.Count(text)
	case c.Parse != nil:
		cs, err := c.Parse(text)
		return cs.Len(), err
	}
	syms, err := c.Model.Tokenize(text)
	return len(syms), err
}

// countFields counts the positions of an input typed as symbols
// separated by white space ("2:1 3:0 1:1").
func countFields(text string) (int, error) {
	n := len(strings.Fields(text))
	if n == 0 {
		return 0, fmt.Errorf("empty input: a transformer maps non-empty strings")
	}
	return n, nil
}

// Len is the number of positions.
func (c Case) Len() int {
	if c.Stream != nil {
		return len(c.Stream)
	}
	return len(c.Symbols)
}

// SymbolCases wraps symbol strings as cases.
func SymbolCases(inputs [][]int) []Case {
	cs := make([]Case, len(inputs))
	for i, in := range inputs {
		cs[i] = Case{Symbols: in}
	}
	return cs
}

// Want is the intended output at one position: a symbol (for Sign and
// Argmax outputs) or exact values (for Readout outputs). Reals, when set,
// replaces Values for outputs that are irrational (a layer norm's square
// root, a sine): only a certified interval enclosure can confirm those.
// Tol, where set, bounds |output − value| for this case (error terms that
// depend on the input, like the GELU product's), overriding the
// construction's Bounds. Unclaimed, where its entry is not empty, says
// why the paper claims nothing about that output on this case (the
// lookups' rounding y of a value that is not a bit): the output is shown
// but neither compared nor counted, and its entry in Values is a
// placeholder.
type Want struct {
	Symbol    string
	Values    []*big.Rat
	Reals     []numeric.Expr
	Tol       []Bound
	Unclaimed []string
}

// Claimed reports whether the paper claims anything about output k of w.
func (w Want) Claimed(k int) bool { return k >= len(w.Unclaimed) || w.Unclaimed[k] == "" }

// Bound is a claimed bound on an output value's error, with where the
// paper states it; a nil Max means the claim is exact equality.
type Bound struct {
	Max    *big.Rat
	Source string
}
