// Package recheck is the independent checker of the analysis's proofs
// (package certify). The analysis proves, for one input length n, that a
// model run at a precision gives on every input of length n an output
// that is right against a reference run exactly; it writes what it proved
// as a Certificate. Check re-derives every fact of the certificate from
// the two models alone and accepts it, or names the first fact that
// fails. A length is certified only when Check accepts.
//
// The checker is written apart from the analysis and shares none of its
// code: none of its classes of equal values, symbol lists standing for
// each other, float64 readings of emulated formats, caches of outputs or
// orders of scores, chains of conclusions. It computes every piece
// through the models' public operations (eval.Steps: Embed,
// SublayerInput, HeadProjection, KeyScoresInto, HeadOutput, SumHeads,
// SublayerOutput, FeedForward, FinalNorm, Output), and compares numbers
// with the backends' own comparisons (where the backend's numbers are
// machine floats, float32 or float64, its comparison is Go's). It takes
// the few shortcuts listed below, each with the argument that makes it
// sound; each has a test that fails without it (certify's
// recheck_test.go and session_test.go, and the mutation run).
//
// # What a certificate says
//
// For each sublayer k, in the order Run applies them, the certificate
// lists the state pairs (the reference's exact residual stream beside the
// model's) that a position may hold after it: a set per position, or one
// set for every position (pooled) once only position-wise work remains.
// For each attention head, it lists what the analysis concluded for each
// query it met over each range of visible positions: whether the model
// keeps the exact order of the scores, which keys can be selected, and
// which outputs the head can give. Last, whether every final state is
// right (Certified) and decides right (Decided).
//
// # What Check verifies
//
// Let S_k(i) be the certificate's set at position i after sublayer k, and
// S_0(i) the embeddings of the symbols position i may hold. Check verifies,
// for every k, that the states the sublayer computes from S_k lie in
// S_{k+1}:
//
//   - a position-wise sublayer maps each state of S_k(i) into S_{k+1}(i);
//   - an attention sublayer, at a position i holding a state s of S_k(i),
//     with every other visible position j holding any state of S_k(j),
//     gives s one of the outputs Check derives for each head, and every
//     combination of those (one per head) added to s lies in S_{k+1}(i).
//
// By induction on k, on every input the pair of states at each position
// lies in the certificate's sets, and the last check, that each final
// state's output is right, covers every input. Choosing the visible
// positions' states independently over-approximates the inputs (some
// combinations occur in none), which is sound.
//
// A head's outputs at a query are derived from the items (key and value)
// the visible positions can hold. Each model selects, on an input, the
// positions of maximal score. An item can be selected by the reference
// only when its exact score reaches the largest of the other positions'
// smallest exact scores (a candidate). When the model's scores agree in
// sign with the exact ones between every candidate c and every item y at
// another position (e_c − e_y and μ_c − μ_y have the same sign), both
// models select the same positions on every input: a position whose item
// is a maximum exactly is one in the model and the other way round. The
// head then outputs a candidate's value in both. Where the order is
// broken, each model may select a different item: the outputs are the
// pairs of an exact candidate x and a model candidate y that one input can
// select together (x = y, or x and y at two positions with e_x ≥ e_y and
// μ_y ≥ μ_x). Under average hardmax, the positions tied with x must hold
// x's value (else the mean depends on the input, and Check refuses), and
// the output is the mean of m copies of it for every count m the ties
// allow; except where the order is kept and the fact lists tie sets
// (QueryFact.Ties), below.
//
// # Ties of several values
//
// A fact with tie sets (average hardmax, the order kept) is checked as a
// kept order is, ties of different values allowed; then Check derives,
// for each exact score of a candidate, the compositions of tie sets at it
// position by position (a position joins with the value of any of its
// items at that score, stays out with any below it; the compositions
// are every sum of such choices), and requires the fact's tie sets to be
// exactly those. Each composition's outputs: the reference's exact mean;
// the model's HeadOutput over the values in increasing id where, at every
// component, the values take at most one nonzero number (each term is
// then fl(α·a) or ±0, and a ±0 term leaves a partial sum's value, so
// every order sums alike); else every order's sum, walk by walk: an
// order adds the terms t_v = fl(α·v) left to right, each t_v read off
// HeadOutput over v and m − 1 zero vectors, and walks with the same
// counts left and the same sum are merged (their futures are the same).
// The fact's outputs of each composition must be those. A NaN score, or a value that is not finite at a visible position
// (0·∞ is NaN in the weighted sum), is refused. Softmax attention in
// the reference is refused: its weights are not a finite choice.
//
// A softmax head of the model beside a hard head of the reference (the
// softmax construction of §Simulating Average-Hard Attention with Soft
// Attention against the average-hard one it simulates) is re-derived
// over every choice of one (key, value) per visible position
// (softmax.go): for each candidate maximum M among the model's scores,
// the sums S of the weights e = fl(exp(fl(s − M))) left to right that a
// choice reaches, and for each S the runs along the positions (sum,
// weighted sum of fl(fl(e/S)·v), the reference's maximal exact score and
// the items at it its hardmax reads), equal runs merged, those whose sum
// is S and that took M kept; the reference's output is its HeadOutput
// over the items at its maximum. The fact's outputs must be exactly
// those. This is the runner's softmax (eval's softmaxInto and
// weightedSum) followed on sets of partial runs, written apart from the
// analysis's (certify/softmax.go, softhead.go).
//
// # The shortcuts Check takes, and why each is sound
//
// Values are told apart as numbers: +0 and −0 are one value. No operation
// of the model turns zeros that differ only in sign into different
// numbers: sums, products, maxima, ReLU and comparisons of ±0 give equal
// numbers, and the model divides only by positive constants (√d_key, τ)
// and by a layer norm's root, which is not −0.
//
// A component that no later sublayer, norm or output reads (Check works
// this out from the weights itself) is set to +0 in the states compared,
// unless it is not finite: even a zero weight reads ∞ or NaN.
//
// After the last attention sublayer the states of every position are
// pooled: only position-wise work remains, and it does not depend on the
// position. An attention sublayer's outputs at a query depend only on the
// query, the visible range and the items there, so positions with the same
// query, range and residual give the same next states: they are derived
// once.
//
// The first sublayer reads embeddings, sums of a word embedding and a
// position encoding. A projection (or the residual's read) that reads only
// components whose position encoding takes one value at every position is
// a function of the symbol, computed once per symbol; one that reads only
// components whose word embedding takes one value for every symbol is a
// function of the position, computed once per position; another is
// computed at every symbol and position. This holds in a rounding format
// too, as numbers: the embedding's component is the same rounded sum at
// every position, and the projection's other terms are zero weights
// times finite values, ±0, which change no partial sum's value. Check
// verifies the finiteness it needs: every embedding component is finite
// when the rounded sum of the largest magnitudes of its two parts is
// (rounding is monotone). Where not, every projection counts as reading
// every component.
//
// A symbol list that the construction hands to several positions (the
// same slice, Construction.Symbols) gives them the same symbols: what a
// position's symbols contribute is worked out once per list.
//
// Exact scores q·k of vectors of integers are summed in int64 when the
// bound d·max|q|·max|k| < 2⁶² keeps every partial sum exact; otherwise,
// and for scaled scores, the reference's own HeadScore computes them.
//
// A fact that says the order is kept is verified rather than searched
// (headCheck.check): every key it does not list must score below the bar,
// the largest smallest exact score among the listed candidates'
// positions, at a position other than the bar's. That suffices: the
// position whose smallest score is the largest of all has only
// candidates, so if every candidate is listed it is among their
// positions and a key below its smallest is never selected; and a key
// scoring below the smallest score of another position never is, so a
// candidate left out cannot pass (type bar). With few candidates the keys
// are scored and checked in one pass over the range; with many, sorted
// by exact score once and held group by group (heldSorted), which orders
// each candidate against every other position's key as the pairwise
// comparison does. TestRecheckOnePassIsPasses holds the one pass to the
// passes over scored tables, on true certificates and tampered ones.
//
// Within a Session (lengths n, n + 1, … checked one after another), a
// fact for a query over lo … hi at the new length is the one verified at
// the last length for the same query, over the same range with the same
// items (compared by id), or over lo … hi − 1 with the same items there,
// the order kept and every key of position hi strictly below every
// candidate exactly and in the model (Session's doc gives the argument).
// TestRecheckSessionRefusesStaleFacts hands on facts that break each
// condition and requires a refusal.
//
// # Imports
//
// recheck imports model and numeric only; package certify imports it to
// write its certificates and have them checked.
package recheck
