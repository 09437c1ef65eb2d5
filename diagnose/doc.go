// Package diagnose explains a failure of a construction at a rounding
// format: the first thing in the forward pass that the engine can see
// going wrong on the way to the failing output, named as one Cause.
//
// Failure runs the failing input twice with the trace, exactly (or with a
// wide floating-point reference where exact arithmetic cannot run the
// model) and in the format, and compares the two state by state at the
// positions and components that flow to the failing output. One file per
// kind of cause:
//
//   - overflow.go: a value beyond the format's range;
//   - tie.go: two scores that differ exactly but that the format computes
//     as one value, at the maximum;
//   - gap.go: a computed lead within a few units of the format's spacing,
//     reversed under a hardmax or narrow under softmax;
//   - absorbed.go: a sum that lost its smallest addend;
//   - rounding.go: the first value that left the exact one.
//
// attention.go scans a sublayer's scores for ties and gaps; flow.go works
// out which positions and components can reach the output; text.go prints
// numbers briefly.
//
// # The replay
//
// To name the rounding that lost a score's lead, replay.go recomputes
// queries, keys, scores and feed-forward rows from the format's own
// residual stream, each product and partial sum rounded in the model's
// order. The replay is held to the model: the diagnosis compares it, on
// every query and row it uses, with what the model itself computes from
// the same input (eval.Runner.HeadScores and FeedForwardRows), and says
// nothing of a sublayer where they differ; and a test compares the two bit
// for bit on every recipe at every format of the frontier. An explanation
// therefore never describes a computation the model does not do.
//
// # Imports
//
// diagnose imports check (to decide whether an output is right), recipes
// (constructions and inputs), model and numeric. The frontier imports it.
package diagnose
