package frontier

import (
	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/diagnose"
)

// Report is the frontier of one construction over several precisions.
type Report struct {
	Recipe string `json:"recipe"`
	// Model names the file whose model was checked against the recipe's
	// reference, in place of the recipe's own construction.
	Model string `json:"model,omitempty"`
	// Reference is what the analysis certified runs against: empty for
	// the construction itself (check.ReferenceOf).
	Reference string            `json:"reference,omitempty"`
	Section   string            `json:"section"`
	Weighting string            `json:"weighting"`
	Params    map[string]string `json:"params,omitempty"`
	// MaxN is the largest length checked, and the N the construction is
	// built for (recipes whose weights depend on N).
	MaxN       int    `json:"max_n"`
	Seed       uint64 `json:"seed"`
	Cases      int    `json:"cases"`
	Exhaustive int    `json:"exhaustive"`
	// Analysis says the analysis of package certify ran at the lengths
	// not enumerated, with AnalysisBudget (0: the default): it decides
	// which inputs a length holds (its suggestions come first), so a
	// merge runs it too.
	Analysis       bool `json:"analysis,omitempty"`
	AnalysisBudget int  `json:"analysis_budget,omitempty"`
	// EveryBudget bounds the analysis of every length up to each limit
	// (0: check.DefaultEveryBudget, negative: none); NoEvery skips it.
	EveryBudget int64 `json:"every_budget,omitempty"`
	NoEvery     bool  `json:"no_every,omitempty"`
	// Bisect says whether the lengths between the last pass and the first
	// failure are bisected.
	Bisect bool `json:"bisect"`
	// Shard is "K/N" in the report of shard K of N of a sharded sweep,
	// of phase Phase (1 or 2): empty in a whole report. A phase-1 shard
	// lists the sweep's Lengths (its rows hold Parts of them, and of the
	// predicted limit and the length after it where the sweep bisects:
	// sweepLengths); a phase-2 shard names the phase-1 results it
	// continued (Phase1, a digest of them), and holds its rows'
	// bisections and diagnoses (Mine).
	Shard   string `json:"shard,omitempty"`
	Phase   int    `json:"phase,omitempty"`
	Lengths []int  `json:"lengths,omitempty"`
	Phase1  string `json:"phase1,omitempty"`
	// Interrupted says the sweep was stopped (Ctrl-C) before it ended:
	// the rows hold what was checked until then.
	Interrupted bool  `json:"interrupted,omitempty"`
	Rows        []Row `json:"rows"`
	// Checksum seals a shard's content (see Seal); empty in a whole
	// report.
	Checksum string `json:"checksum,omitempty"`
}

// Row is the frontier at one precision.
type Row struct {
	Precision string `json:"precision"`
	// Error is set when the construction cannot run at this precision
	// (the rest of the row is then empty).
	Error string `json:"error,omitempty"`
	// Checked lists every length checked, in increasing order.
	Checked []check.LengthReport `json:"checked"`
	// Limit is the largest n such that every checked length ≤ n passed (0
	// when the smallest failed); Failure is the first failure above it,
	// at the smallest failing length, with its cause when the engine can
	// see one; nil when every checked length passed.
	Limit int `json:"limit"`
	// LimitLevel is the weakest evidence among the checked lengths up to
	// Limit (check.Certified, check.Exhaustive, check.Faithful or
	// check.Sampled); Every says it covers every length up to Limit, not
	// only the checked ones (the analysis of every length, EveryLength,
	// certified the others).
	LimitLevel  check.Level        `json:"limit_level,omitempty"`
	Every       bool               `json:"every_length,omitempty"`
	EveryLength *check.EveryLength `json:"every_length_check,omitempty"`
	Failure     *Failure           `json:"failure,omitempty"`
	// DecisionLimit, for outputs that decide (truth values, symbols), is
	// the largest n such that every case of every checked length up to n
	// decides right, exact or not (check.Decides), with its evidence.
	// Decisions lists what the outputs decide (check.Decisions): none,
	// and there is no decision limit.
	Decisions     []string    `json:"decisions,omitempty"`
	DecisionLimit int         `json:"decision_limit,omitempty"`
	DecisionLevel check.Level `json:"decision_level,omitempty"`
	// PassesAgain lists checked lengths above the first failure that
	// passed: the failures are not monotone in n.
	PassesAgain []int `json:"passes_again,omitempty"`
	// Prediction is what theory predicts for this precision, where the
	// paper gives a gap or a bound.
	Prediction *Prediction `json:"prediction,omitempty"`

	// In a phase-1 shard, Parts are the parts of lengths it checked.
	Parts []check.LengthPart `json:"parts,omitempty"`
	// In a phase-2 shard, Mine says the row is this shard's: Bisected
	// holds the lengths its bisection checked, Failure the row's first
	// failure with its cause, Error what stopped the row.
	Mine     bool                 `json:"mine,omitempty"`
	Bisected []check.LengthReport `json:"bisected,omitempty"`
}

// Failure is a failing case with its diagnosis.
type Failure struct {
	check.Failure
	Cause *diagnose.Cause `json:"cause,omitempty"`
}

// Prediction is the theory's side: the score gap γ(n) the paper gives,
// the largest score magnitude M(n), and the largest n at which the top
// score and the runner-up, computed exactly and each rounded once to the
// format, still differ. It is an estimate, neither a lower nor an upper
// bound on the measured limit: the format rounds every product and sum on
// the way (which can lose the gap sooner, as for the layernorm hash), and
// a tie between two keys of equal value does not change the output
// (which can keep it later).
type Prediction struct {
	Gap       string `json:"gap"`
	Magnitude string `json:"magnitude"`
	// Limit is 0 when the gap never falls below the spacing up to MaxN.
	Limit int    `json:"limit"`
	Why   string `json:"why"`
}
