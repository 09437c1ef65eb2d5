// Package bench holds the performance cases behind
// `verify bench`: each case measures one figure (ns per score term of a
// forward pass, ns per arithmetic operation, seconds of a sweep, a
// speed-up from 1 to 2 cores) and, where one exists, a bare baseline that
// does the same count of the same arithmetic without the engine around
// it. Figures are from CPU time (user + sys of the case's process, every
// thread), with the wall clock's beside them: on a shared machine the
// wall clock moves with the other processes' load, CPU time much less,
// and the ratio to the baseline, measured in the same process a moment
// later, less still. Each row also carries its process's CPU and wall
// seconds and the machine's load meanwhile (Load). The baseline of the
// machine-float attention is FusedHardmax, the loop one would write by
// hand for the same work.
//
// Definitions, shared with the Go benchmarks of recipes/bench_test.go:
//
//   - a score is one (query i, key j) pair an attention head compares:
//     n² per head of an unmasked layer, n(n+1)/2 of a future- or
//     past-masked one;
//   - a score term is one multiply-add of the query·key dot product: a
//     score has d_key of them, d_key being the head's key width (2 for
//     the lookup of §Quadratic Maximization). "ns per score term" is the
//     time of a whole forward pass divided by the terms of every head, so
//     it also carries the embedding, values and feed-forward layers;
//   - allocations are counted per unit of the figure: per operation
//     from testing.BenchmarkResult; per score term, only those that grow
//     with the number of terms (the forward pass's allocations at n and
//     at n/2 separate the per-score part from the per-position part: the
//     residual stream's new values are allocated once per position and
//     component, not per operation). An allocation in the score loop
//     shows as at least one per score. The target "no alloc" is met below
//     0.1 allocations per unit.
//
// A case is one call to Register: a name, what it measures, its unit, a
// Measure function, optionally a Baseline in the same unit, and a Target.
// Helpers make the common shapes one expression: PerUnit (testing.Benchmark
// of an operation, divided by the units it performs), Timed (the CPU and
// wall time of a run), SpeedUp (the same run on 1 and then 2 cores, by
// the wall clock).
//
// A case timed once, with a baseline and a target, reads:
//
//	func init() {
//		Register(Case{
//			Name:     "exhaustive-dyck1-22",
//			Measures: "every string of Dyck-1 to length 22, exact, depth-first with a KV cache",
//			Unit:     "s",
//			Measure: func(s Size) (Measurement, error) {
//				return Timed(func() error { return run(s.Pick(22, 12), cached) })
//			},
//			Baseline: …, // the same strings from scratch
//			Target:   AtMost(60, "s"),
//		})
//	}
//
// and its speed-up from 1 to 2 cores is a second case whose Measure is
// SpeedUp(func(workers int) error { … }).
//
// Peak memory is measured per case by running it in a process of its own
// (Options.Child): the parent reads the child's maximum resident set size
// from its rusage, which on Linux covers that process alone.
//
// # Imports
//
// bench imports check, recipes, model and numeric; only the command line
// imports it.
package bench
