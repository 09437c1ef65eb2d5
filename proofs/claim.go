package proofs

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/transformer-cookbook/verify/internal/suggest"
)

// Verdict is what a checker decided about a claim.
type Verdict string

const (
	Proved     Verdict = "PROVED"
	Holds      Verdict = "HOLDS"
	Refuted    Verdict = "REFUTED"
	OutOfScope Verdict = "OUT OF SCOPE"
)

// Claim is one statement of the paper with its checker.
type Claim struct {
	ID      string
	Section string // the paper's section title, as in recipes/testdata/labels.txt
	Label   string // its LaTeX label; "" where the paper gives none
	// Statement is the claim as the paper gives it, its formula quoted,
	// in short words where the paper's prose is long.
	Statement string
	// Domain states the domain and assumptions the checker works under.
	Domain string
	// Recorded is the verdict of this version of the code; the tests fail
	// when Check disagrees.
	Recorded Verdict
	// Check decides the claim. An error means the checker could not run
	// (a bug), not that the claim is false.
	Check func() (*Evidence, error)
}

// Evidence is a checker's verdict and what it rests on.
type Evidence struct {
	Verdict Verdict
	// Summary says, in one line, the domain proved ("every input of
	// length ≤ 6", "ℝ², 3 linear regions"), the search made ("2000 cases,
	// gopter, seed 7"), the counterexample, or the reason it is out of
	// scope.
	Summary string
	// Explain holds the details shown by 'verify claims --explain': the
	// Regions of a proof, a counterexample in full.
	Explain []string
	// Elapsed is how long the check took.
	Elapsed time.Duration
	// Tight, for a claimed bound, compares its constant with the best
	// one: nil when the checker does not measure it.
	Tight *Tightness
	// Cert counts the checks of the decision procedure's certificates
	// the evidence rests on, for evidence that sums several.
	Cert CertTally
}

// Tightness is how a bound's constant compares with the best possible:
// Best is the supremum, over the claim's domain, of the error divided by
// the bound without its constant, enclosed in [BestLo, BestHi] (BestHi
// nil: only bounded from below).
type Tightness struct {
	Claimed        *big.Rat
	BestLo, BestHi *big.Rat
	// How says how the enclosure was obtained.
	How string
}

// Ratio encloses Best/Claimed: 1 for a sharp constant, below 1 for a
// loose one (and above 1 for a constant too small, which refutes it); hi
// is nil where BestHi is.
func (t *Tightness) Ratio() (lo, hi *big.Rat) {
	lo = new(big.Rat).Quo(t.BestLo, t.Claimed)
	if t.BestHi != nil {
		hi = new(big.Rat).Quo(t.BestHi, t.Claimed)
	}
	return lo, hi
}

var registry = map[string]*Claim{}

// Register adds c; IDs are unique, and every claim states its section,
// statement, domain, recorded verdict and checker.
func Register(cs ...*Claim) {
	for _, c := range cs {
		if _, dup := registry[c.ID]; dup {
			panic("proofs: duplicate claim " + c.ID)
		}
		if c.ID == "" || c.Section == "" || c.Statement == "" || c.Domain == "" || c.Check == nil {
			panic("proofs: incomplete claim " + c.ID)
		}
		switch c.Recorded {
		case Proved, Holds, Refuted, OutOfScope:
		default:
			panic(fmt.Sprintf("proofs: claim %s records verdict %q", c.ID, c.Recorded))
		}
		registry[c.ID] = c
	}
}

// All returns the claims, sorted by ID (which groups them by chapter).
func All() []*Claim {
	var cs []*Claim
	for _, c := range registry {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
	return cs
}

// Get returns the claim with the given ID, or an error listing close IDs.
func Get(id string) (*Claim, error) {
	if c, ok := registry[id]; ok {
		return c, nil
	}
	var near []string
	prefix := id
	if k := strings.LastIndex(id, "."); k > 0 {
		prefix = id[:k]
	}
	for _, c := range All() {
		if strings.HasPrefix(c.ID, prefix) {
			near = append(near, c.ID)
		}
	}
	var ids []string
	for _, c := range All() {
		ids = append(ids, c.ID)
	}
	if hint := suggest.DidYouMean(id, ids); hint != "" {
		return nil, fmt.Errorf("unknown claim %s%s", suggest.Quote(id), hint)
	}
	if len(near) == 0 {
		return nil, fmt.Errorf("unknown claim %s (see 'verify claims' for the list)", suggest.Quote(id))
	}
	if len(near) > 5 {
		near = append(near[:5], fmt.Sprintf("… (%d in all)", len(near)))
	}
	return nil, fmt.Errorf("unknown claim %s; claims starting %q: %s", suggest.Quote(id), prefix, strings.Join(near, ", "))
}

// Run checks c and times it. A claim of a family checked on finitely
// many members (see families) HOLDS where its checker proved them all.
func Run(c *Claim) (*Evidence, error) {
	start := time.Now()
	ev, err := c.Check()
	if err != nil {
		return nil, fmt.Errorf("claim %s: %w", c.ID, err)
	}
	if ev == nil {
		return nil, fmt.Errorf("claim %s: the checker returned no evidence", c.ID)
	}
	ev.Elapsed = time.Since(start)
	ev.Explain = withoutSummary(ev.Explain, ev.Summary)
	if f := c.Family(); f != "" && ev.Verdict == Proved {
		ev.Verdict = Holds
		ev.Summary += "; the paper states it for " + f + ": proved on these instances only"
	}
	return ev, nil
}

// withoutSummary drops the lines of explain that repeat summary: many
// checkers open their details with the summary itself, and --explain
// prints the summary as the evidence and the details after it.
func withoutSummary(explain []string, summary string) []string {
	var out []string
	for _, line := range explain {
		if line != summary {
			out = append(out, line)
		}
	}
	return out
}
