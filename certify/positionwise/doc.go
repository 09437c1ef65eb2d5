// Package positionwise decides, at one precision, whether a position-wise
// construction (feed-forward sublayers and a readout, no attention: the
// recipes of §Feed-Forward Layers) is right on every input of its domain
// at that precision, and, for attention whose scores do not depend on the
// input (§Average, §Identity), whether every input of a length is right
// (# Attention with fixed scores). A model that computes each position on its own is
// right on every input of every length exactly when it is right on every
// input of one position, so one answer serves every length.
//
// # The domain
//
// The domain at a format is the set of inputs it can represent: every
// point whose components are finite values of the format (one zero: −0
// is the rational 0), in the recipe's claimed domain (its Valid, or a
// finite list of points, Problem.Finite). For a big float of P bits,
// whose exponent range (about 2^±2^31) no float64 holds, it is the P-bit
// values of float64's normal range and 0, for every P. Nothing is
// excluded for overflow: an input on which an intermediate value
// overflows, or whose exact output lies beyond the format's largest
// value, is in the domain and fails there (the format
// computes ±Inf or NaN, or a wrong finite value, where the claim is an
// exact one); a report shows it as any failure, with its cause.
//
// # Enumeration
//
// Where the domain has at most Problem.MaxEnumerate points (every fp8
// pair, every one-input fp16 or bf16 value) every point is run: the
// verdict Run. Where the reference is exact values (Problem.Reference)
// and the format has the engine's fast path (fast.go), the points run on
// the package's own evaluator of the model in float64 with the format's
// rounding after every operation, which a test holds to the engine's
// runner bit for bit, against the reference's exact values; a point that
// differs is run by the engine (Problem.Check), which decides it.
// Otherwise every point runs through Problem.Check, the checker's own
// model and comparison, in batches of positions of one input.
//
// A failing input whose exact output is no finite value of the format
// (Result.Unreachable: x + y for most x and y, an output past the largest
// value) fails because the format cannot hold the answer, whatever the
// construction; the report says so. Other failures are the
// construction's: it loses a value the format holds (min(1, 2^-54) is
// 2^-54 in fp64, which computes 0).
//
// # Boxes
//
// Elsewhere the domain is split into boxes, products of ranges of
// consecutive values of the format (ordinals, grid.go), starting from the
// claimed domain's ranges of each component (Problem.Ranges). On a box the
// analysis (abstract.go) follows each value of the computation, in the
// model's order of operations (matrix-vector products left to right,
// then the bias; the residual sum; the readout), as an aval: an enclosure
// of the format's value, one of the construction's exact value, and, when
// it can show the two are the same number on every input of the box
// (exact), a q such that every such number is a multiple of 2^q. A box
// is proved when every output is exact: on every input of it the format
// computes the construction's exact output. The rules, and why each is
// sound (by induction over the operations: each rule's premises hold of
// its operands on every input of the box):
//
//   - An input component over ordinals lo … hi is exact (it is the same
//     number in both), enclosed by its end values, and a multiple of the
//     smallest spacing among them (grid.quantum: the spacing of the
//     smaller magnitude, or the format's smallest if 0 is in range).
//   - A parameter is the exact rational w in the construction and w̃, the
//     value the format stores (Problem.Round, the runner's own rounding),
//     in the run. Products and sums use w̃ for the format's value and an
//     enclosure of w for the exact one; a product or bias is exact only
//     where w̃ = w.
//   - Exact zero: 0·x = 0 and 0 + y = y exactly for finite x, y, in every
//     format (so the zero terms a dense product computes and a sparse one
//     skips change nothing).
//   - w̃·x for exact x with w̃ = ±2^k: exact if |w̃·x| stays within the
//     largest value and, for k < 0, q + k is at least the exponent of the
//     smallest spacing (no bit of x drops below it): x has a P-bit
//     significand, and so has x·2^k on a spacing the format keeps.
//   - w̃·x otherwise, and a + b of exact a, b (multiples of 2^qa, 2^qb): the
//     exact result is a multiple of 2^q (q = q_w + q_x, or min(qa, qb));
//     a multiple of 2^q of magnitude at most 2^(q+P), with q at least the
//     smallest spacing and within the largest value, is a value of the
//     format (grid.exactly), and an operation whose exact result is a
//     value returns it, whatever the rounding.
//   - a + b by Sterbenz's lemma: a > 0 > b with |b|/2 ≤ a ≤ 2|b| on the
//     whole box gives an exact difference, subnormals included.
//   - ReLU keeps exactness (both apply max(0, ·) to the same number), and
//     is decided 0 where both enclosures are ≤ 0 (rounding keeps signs).
//   - Any other operation is rounded: its format value lies within one
//     spacing of the exact result on the format's operands (grid.spacing:
//     |v|·2^(1−P), or the smallest spacing), which holds for rounding to
//     nearest and for the emulated formats' rounding through float64 as
//     well, since rounding to float64 and then to a format whose values
//     are float64s is monotone and so lands on one of the two format
//     values around v. A result whose enclosure can pass the largest
//     value may not be finite: nothing more is known of it (top).
//   - Enclosures are computed in float64, rounded outward only where
//     float64 rounded (interval.go: an error-free TwoSum or FMA term says
//     so), so that a bound on the grid stays exact.
//   - A feed-forward sublayer's pre-norm (lnorm.go: the selection W^N,
//     mean, deviations, variance, square root, division, γ, β) is
//     followed only where its operands are one known vector v on the whole
//     box: every ReLU so far decided in the construction (its exact
//     pre-activation's enclosure of one sign: the construction is then an
//     affine function of the input on the box's real hull), every
//     component the norm reads exact (the format's value is the
//     construction's) and every stream component finite (not top), and the
//     construction's exact stream equal at the box's lower corner and at
//     each corner one step from it along one axis (an affine function equal
//     at those d + 1 points is constant on the box). The format's norm of
//     v is then one point, computed by the runner's own code
//     (eval.Steps.SublayerInput, with the format's backend: its order and
//     its rounding), with the components the norm does not read set to 0
//     (each is finite, so the selection's zero weights make them ±0, and
//     a zero's sign changes no rational on the way); the construction's
//     is the exact norm of v where its square root is rational (else
//     top). The output is exact where the two agree. Elsewhere a norm's
//     output is top. The fast evaluator has no norm: a model with one
//     runs every point through the engine.
//   - Any other activation (GELU: erf, tanh, sigmoid forms) and any
//     irrational parameter (√(π/2)) is opaque: its value is top, so no
//     box through it is proved (trivially sound), the fast evaluator does
//     not run, and the search is one for a failing input, every point
//     judged by the engine (Problem.Check, whatever the claim's
//     tolerance): an enumerated domain is Run or Fails, a larger one Fails
//     or Undecided after OpaqueMaxBoxes boxes. For mul-gelu it fails at
//     every format: x + y overflows at the IEEE formats' ends, and at a
//     big float tiny x, y cancel (GELU(x + y) − GELU(x) − GELU(y) rounds to
//     an error far above (|x| + |y|)³/4).
//
// A box whose outputs are not all exact has a few of its points run
// (corners, middle, seeded random points): a failure ends the search with
// that input, simplified (shrink.go) while it still fails, so the
// counterexample is one the model really computes wrong. A box of at
// most 64 points is run point by point; any other is split, at 0 along a
// component whose range holds both signs (a ReLU of ±x is then decided),
// else at the middle ordinal of its widest component (which halves its
// range of binades). The verdicts: Proved (every box proved or run),
// Fails (with the input), Undecided (Problem.MaxBoxes boxes analysed).
//
// Above 53 bits a big float's values are no float64s: the same search
// runs on the wide grid (wide.go, widesearch.go), where values and
// enclosures are rationals (exact: nothing is rounded outward) and
// ordinals big integers, with the same rules, splitting, points tried
// and shrinking (a failing point is first scaled as a whole by a power of
// two toward 1, which a rounding failure survives since the format
// scales with it, where the scaling brings its exponents nearer 0 in
// all: a point of a large and a small component would otherwise swing
// between the two). Its premises, beyond the rules above:
//
//   - A big float has no subnormals and no overflow at float64's ends,
//     but big.Float's exponent does end (about ±2^31): every value the
//     format computes is a multiple of 2^g (inputs of 2^qmin, a stored
//     weight of its lowest bit, a product of 2^(a+b), a sum of
//     2^min(a, b), and rounding to P bits keeps a multiple of 2^g one:
//     it returns the value or a multiple of a spacing ≥ 2^g), so a
//     nonzero result is at least 2^g; the rules claim nothing (top) of a
//     result with g below −2^30 or a magnitude past 2^(2^30), and an
//     exact one needs q ≥ −2^30 (then neither underflows nor overflows).
//   - Rounding is once to nearest at P bits: within |v|·2^(−P) of v.
//
// A test holds the wide grid to the float64 path at 24 and 53 bits,
// where both apply: the same verdicts, and with a check that passes
// every point, the same boxes split, proved and run. (It found the
// float64 path proving a sum exact whose enclosure had passed float64's
// largest value, +Inf, at a big float, which has no overflow: 2^bits had
// overflowed to +Inf too. grid.exactly now bounds nothing by +Inf.)
//
// What Proved means is as strong as its two halves: on the proved boxes
// the format computes what the construction computes exactly (faithful),
// and the points run are right against the recipe's reference; that the
// construction is itself right on the proved boxes is the paper's claim,
// proved where the recipe names a claim (package check reports that
// certified, else faithful).
//
// # Attention with fixed scores
//
// A model that attends is not position-wise, but where no score depends
// on the input (attend.go: FixedScores) the analysis still applies. The
// premises, each checked: every head's W^Q or W^K is exactly 0 (a head
// has no biases, and the model may have no position encoding, so nothing
// else reaches a score); every attention sublayer comes before every
// feed-forward one, so the stream it reads is finite (the first reads
// the input; a later one the sum of finite values, which the analysis
// checks on every box: a box where a query or key may not be finite is
// not proved); the temperature, if any, is a nonzero value of the
// format. Then each score is q·k with q or k the zero vector and the
// other finite: 0·x = 0 and 0 + 0 = 0 exactly, and 0/c = 0 for the
// finite nonzero √d_key and τ, so every score is ±0 (which compare
// equal) on every input, and the weights are numbers the format computes
// the same way on every input of a length.
//
// Zero values (ZeroValues: identity-attn). Where every head's W^V is
// also exactly 0 as a rational (a weight the format rounds to 0 but the
// construction does not is refused: the construction's exact output then
// differs) and the residual connection is on, each value is W^V x = 0
// exactly for the finite stream x, each weight is finite (fixed scores:
// no NaN), so each term α·0 is 0 and the head's sum is 0, in the format
// and exactly, at every position of every length; the sublayer adds 0 to
// the stream, which is then the stream of the model without that
// sublayer. By induction over the sublayers the model computes what the
// model without its attention computes, at every length, and that model
// is position-wise: its analysis (above) serves every length. Its
// enumerated points and failing points run through the engine's run of
// the model itself (package check's Problem.Check), its fast evaluator
// runs the stripped model, the same numbers by this argument.
//
// Fixed weights (AnalyseLength: avg, avg-prefix). Otherwise, at a fixed
// length n the model is a straight-line function of the n·k input
// components, compiled (compileStacked) in the runner's order
// (model/eval's attend, weightedSum, softmaxInto, hardmax): the values
// W^V h_j; at position i, over the positions j the mask allows, in
// increasing order, the terms fl(α·v_j) summed left to right, the first
// one the sum's start (0 + y = y exactly, so a sum from 0 is the same);
// the heads summed in order, then the residual, then the feed-forward
// sublayers and the readout as above. The weights α are what the runner
// computes when every score is 0: under softmax exp(0) = 1 for each of
// the m positions, their sum accumulated left to right with each
// addition rounded (at fp8-e4m3 it stalls at 16, so 17 positions get
// 1/16 each), then fl(1/sum); under average hardmax every score ties and
// each gets fl(1/m); under a unique hardmax the first (last) gets 1 and
// the others 0, a zero weight adding exactly nothing to finite values.
// The construction's exact weights are 1/m, or the same picks. Each
// weight is then a parameter of the program (its exact value and the
// format's), and the box analysis and its rules apply unchanged over the
// stacked inputs; a weight that rounds to 0 (the runner then skips its
// terms) is refused. A concrete evaluator of the same program (a NaN
// score, from a query or key that is not finite, gives NaN outputs, as in
// the runner) is held by the tests to the engine's runner bit for bit on
// random inputs at fp8, fp16, bf16, fp32 and fp64, at every weighting and
// mask, past the lengths where softmax's sum stalls. A length is decided
// as one position is: enumerated where the stacked domain is small (fp8
// at n = 1 with d = 2, or n = 2 with d = 1), else by boxes; every point
// run and every failure found runs through the engine, one input of n
// positions each, so a length's failure is a real counterexample. A
// big float above 53 bits runs the same stacked program on the wide grid
// (attend.go's wgrid.runStacked, the float64 path's stages and rules on
// exact bounds); the tests hold the two paths to the same verdicts and
// the same boxes at 11, 24 and 53 bits, and sample every box the wide
// grid proves at 113. A limit rests on the analysis of every length up
// to it (package check's Every).
//
// # Integer domains
//
// A construction that fails somewhere on a format's values may still be
// right on the inputs constructions usually carry: counts, positions,
// symbols, small integers. AnalyseIntegers decides the integer points of
// the claimed domain whose every component has magnitude at most 2^w,
// for 0 ≤ w ≤ P (every such integer is a value of the format: an
// integer of magnitude at most 2^P has a P-bit significand), with the
// same enumeration, boxes, rules and counterexample search, on a grid
// whose ordinal k is the integer k. The one premise that changes is the
// inputs' quantum: consecutive integers are multiples of 2^0 and of
// nothing coarser (a single nonzero value, of its lowest bit); a test
// taking them for multiples of 2 proves sums that round. IntegerLimit
// finds the widest w by bisection over 0 … P (or the least w whose
// [−2^w, 2^w] covers a bounded claimed domain's ranges, past which a
// wider domain holds no new integer). Bisection is sound because the
// domains grow with w: an input failing at w is in every wider domain,
// so the widths that hold are an initial run 0 … W. A width the
// analysis leaves undecided (it has a bound of boxes) counts as not
// proved: the result claims W, what was proved or run there, and of
// W + 1 a failing input or undecided. A big float above 53 bits runs
// it on the wide grid's integers (wgrid.onIntegers), as Analyse.
//
// # Tests
//
// The tests hold the analysis to the enumeration: at fp8 (and bf16 on one
// input) every box the analysis proves holds only points where the
// format's output is the construction's exact output, for the recipes'
// models and for perturbed ones (a weight moved by one unit in the last
// place, an extra hidden unit, another activation); each rule has a test
// that fails without its premise. On the integer domains the same
// agreement holds at fp8-e4m3, bf16 and fp16 for every width (pairs to
// the widths where their points are few), and the widths found are held
// to hand derivation (add's 2^(P−1): x + y of magnitude 2^P is a value,
// 2^P + 1 is not) and to trying every width in turn.
package positionwise
