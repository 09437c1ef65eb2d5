package recheck

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/numeric"
)

// Encoded is a certificate with every number written out exactly, ready
// for JSON: a reference's rational as "p/q", a model's value as the
// rational it is ("-0" for a negative zero), "+Inf", "-Inf" or "NaN".
// Decode reads it back at the same precision.
type Encoded struct {
	N         int           `json:"n"`
	Precision string        `json:"precision"`
	Certified bool          `json:"certified"`
	Decided   bool          `json:"decided,omitempty"`
	Steps     []EncodedStep `json:"steps"`
}

// EncodedStep is a Step written out; Layer counts from 1.
type EncodedStep struct {
	Layer  int              `json:"layer"`
	Kind   string           `json:"kind"`
	Pooled bool             `json:"pooled,omitempty"`
	States [][]EncodedState `json:"states"`
	Heads  [][]EncodedFact  `json:"heads,omitempty"`
}

// EncodedState is a State written out.
type EncodedState struct {
	Ref   []string `json:"ref"`
	Model []string `json:"model"`
}

// EncodedFact is a QueryFact written out.
type EncodedFact struct {
	Query      EncodedState   `json:"query"`
	Lo         int            `json:"lo"`
	Hi         int            `json:"hi"`
	Kept       bool           `json:"kept"`
	Candidates []EncodedItem  `json:"candidates,omitempty"`
	Outputs    []EncodedState `json:"outputs"`
}

// EncodedItem is an Item written out.
type EncodedItem struct {
	Pos   int          `json:"pos"`
	Key   EncodedState `json:"key"`
	Value EncodedState `json:"value"`
}

// Encode writes c out, its model's values those of backend b.
func Encode[T any](b numeric.Backend[T], c *Certificate[T]) *Encoded {
	e := &Encoded{N: c.N, Precision: b.Precision().String(), Certified: c.Certified, Decided: c.Decided}
	state := func(s State[T]) EncodedState {
		out := EncodedState{Ref: make([]string, len(s.Ref)), Model: make([]string, len(s.Model))}
		for k, x := range s.Ref {
			out.Ref[k] = x.RatString()
		}
		for k, x := range s.Model {
			out.Model[k] = valueText(b, x)
		}
		return out
	}
	for _, st := range c.Steps {
		es := EncodedStep{Layer: st.Layer + 1, Kind: kind(st.Attention), Pooled: st.Pooled}
		for _, list := range st.States {
			var states []EncodedState
			for _, s := range list {
				states = append(states, state(s))
			}
			es.States = append(es.States, states)
		}
		for _, facts := range st.Queries {
			var head []EncodedFact
			for _, f := range facts {
				ef := EncodedFact{Query: state(f.Query), Lo: f.Lo, Hi: f.Hi, Kept: f.Kept}
				for _, it := range f.Candidates {
					ef.Candidates = append(ef.Candidates, EncodedItem{Pos: it.Pos, Key: state(it.Key), Value: state(it.Value)})
				}
				for _, o := range f.Outputs {
					ef.Outputs = append(ef.Outputs, state(o))
				}
				head = append(head, ef)
			}
			es.Heads = append(es.Heads, head)
		}
		e.Steps = append(e.Steps, es)
	}
	return e
}

// valueText writes a value of b exactly.
func valueText[T any](b numeric.Backend[T], x T) string {
	if !b.Finite(x) {
		switch {
		case b.Cmp(x, x) != numeric.Equal:
			return "NaN"
		case b.Sign(x) == numeric.Less:
			return "-Inf"
		}
		return "+Inf"
	}
	r, err := b.Rat(x)
	if err != nil {
		return b.Format(x)
	}
	if r.Sign() == 0 && isNegativeZero(b, x) {
		return "-0"
	}
	return r.RatString()
}

// isNegativeZero tells −0 from +0: 1/−0 is −∞.
func isNegativeZero[T any](b numeric.Backend[T], x T) bool {
	inv, err := b.Div(b.New(), b.SetInt64(b.New(), 1), x)
	return err == nil && !b.Finite(inv) && b.Sign(inv) == numeric.Less
}

// Decode reads e back for backend b, which must be of e's precision; it
// refuses a certificate whose shape or numbers do not parse.
func Decode[T any](b numeric.Backend[T], e *Encoded) (*Certificate[T], error) {
	if e.Precision != b.Precision().String() {
		return nil, fmt.Errorf("the certificate is for precision %s, not %s", e.Precision, b.Precision())
	}
	c := &Certificate[T]{N: e.N, Certified: e.Certified, Decided: e.Decided}
	var err error
	state := func(s EncodedState) State[T] {
		out := State[T]{Ref: make([]*big.Rat, len(s.Ref)), Model: make([]T, len(s.Model))}
		for k, t := range s.Ref {
			if out.Ref[k], err = parseRat(t, err); err != nil {
				return out
			}
		}
		for k, t := range s.Model {
			if out.Model[k], err = parseValue(b, t, err); err != nil {
				return out
			}
		}
		return out
	}
	for x, es := range e.Steps {
		st := Step[T]{Layer: es.Layer - 1, Pooled: es.Pooled}
		switch es.Kind {
		case "attention":
			st.Attention = true
		case "feed-forward":
		default:
			return nil, fmt.Errorf("step %d: kind %.40q is neither attention nor feed-forward", x+1, es.Kind)
		}
		for _, list := range es.States {
			states := make([]State[T], len(list))
			for k, s := range list {
				states[k] = state(s)
			}
			st.States = append(st.States, states)
		}
		for _, facts := range es.Heads {
			head := make([]QueryFact[T], len(facts))
			for k, f := range facts {
				qf := QueryFact[T]{Query: state(f.Query), Lo: f.Lo, Hi: f.Hi, Kept: f.Kept}
				for _, it := range f.Candidates {
					qf.Candidates = append(qf.Candidates, Item[T]{Pos: it.Pos, Key: state(it.Key), Value: state(it.Value)})
				}
				for _, o := range f.Outputs {
					qf.Outputs = append(qf.Outputs, state(o))
				}
				head[k] = qf
			}
			st.Queries = append(st.Queries, head)
		}
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", x+1, err)
		}
		c.Steps = append(c.Steps, st)
	}
	return c, nil
}

// parseRat parses an exact rational, unless an earlier error stands.
func parseRat(t string, prev error) (*big.Rat, error) {
	if prev != nil {
		return nil, prev
	}
	r, err := exact.ParseRat(t)
	if err != nil {
		return nil, fmt.Errorf("%.40q: %w", t, err)
	}
	return r, nil
}

// parseValue parses a value of b as valueText writes it, unless an
// earlier error stands. A finite value must be one of the format's: it
// is set exactly, not rounded.
func parseValue[T any](b numeric.Backend[T], t string, prev error) (T, error) {
	var zero T
	if prev != nil {
		return zero, prev
	}
	one, nothing := b.SetInt64(b.New(), 1), b.New()
	switch t {
	case "-0":
		return b.Neg(b.New(), b.New()), nil
	case "+Inf", "-Inf", "NaN":
		num := one
		if t == "NaN" {
			num = nothing
		}
		v, err := b.Div(b.New(), num, nothing)
		if err != nil || b.Finite(v) {
			return zero, fmt.Errorf("%s is not a value at %s", t, b.Precision())
		}
		if t == "-Inf" {
			v = b.Neg(v, v)
		}
		return v, nil
	}
	r, err := exact.ParseRat(t)
	if err != nil {
		return zero, fmt.Errorf("%.40q: %w", t, err)
	}
	v := b.SetRat(b.New(), r)
	if got, err := b.Rat(v); err != nil || got.Cmp(r) != 0 {
		return zero, fmt.Errorf("%.40q is not a value of %s", t, b.Precision())
	}
	return v, nil
}
