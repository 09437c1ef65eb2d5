// Package certify proves, for one input length n, that a model run at a
// precision computes on every input of length n what a reference model
// computes in exact arithmetic: for a recipe, that the format loses
// nothing of the paper's exact construction; for a model from a file,
// that it computes what the recipe's construction computes. Sampling a
// few inputs per length cannot show that; enumerating every input costs
// |Σ|^n runs.
//
// # The analysis
//
// The residual stream at a position, over every input of length n, takes
// finitely many values: the embedding of each symbol the position may hold
// (recipes.Construction.Symbols), then whatever the sublayers make of
// them. The analysis follows pairs of states, the reference model's exact
// one beside the checked model's at its precision, through every
// sublayer, computing each piece with the models' own code (the pieces of
// eval.Steps: Embed, SublayerInput, HeadProjections, HeadScore,
// HeadOutput, FeedForward, SublayerOutput, Output), so that it describes
// the computation Run makes:
//
//   - a position-wise sublayer maps each pair to one pair;
//   - a hard-attention head (leftmost, rightmost or average hardmax)
//     selects, at a query, the keys of maximal score among the positions
//     its mask lets it see. For every query state, the keys that can be
//     seen from it are sorted by their exact scores, and the checked
//     model's scores must keep that order, ties included, for every two
//     keys that can stand at two different positions. Then both models
//     select the same positions on every input, and the head's output is
//     the value of a key that can be maximal there (or, under average
//     hardmax, the mean of m equal values, for every tie count m the
//     positions allow; where the tie set can hold several values, the
//     mean over every composition of it, below).
//
// The new states are the old ones plus every such output, which
// over-approximates the pairs that occur (every input's pair is among
// them; some combinations may not occur together), so the conclusion is
// sound: when, at the end, every pair's output in the checked model is
// right against the reference's exact output (the comparison the checker
// makes), every input of length n is right. A state component that no
// later sublayer or output reads is set to 0 before states are merged,
// and after the last attention sublayer the positions' states are pooled,
// since only position-wise work remains.
//
// # Ties of several values
//
// Under average hardmax with the order kept, a tie set can hold keys of
// several values (the uniform average over the prefix of Dyck-1). What
// its output depends on is, for each value v, how many tied positions
// hold it (m_v, Σ m_v = m), and, in a rounding format, the order of the
// values along the positions. For each exact score L of a candidate (a
// level), each visible position p can, on some input, join the tie with
// any value of an item at p scoring L, or stay out when an item at p
// scores below L (and no tie at L exists when every item of some
// position scores above it). The compositions are every sum of one such
// choice per position (mixed.go: positions with the same choices are
// interchangeable, so a group of g of them contributes every vector of
// sum g, or at most g where out is allowed). Choosing each position
// independently over-approximates the inputs, which is sound: every
// input's tie set is one of them. Both models select the same positions
// (the order kept), so the same composition.
//
// The reference's mean is exact: any order. The model adds α·v_j left
// to right over the tied positions (α = fl(1/m), the weight of each; the
// positions of weight 0 are skipped, their values finite;
// docs/model-format.md), the first term fl(α·v), then fl(s + fl(α·v)).
// At a component c where the tied values take at most one nonzero number
// a, each term is fl(α·a) = t or fl(α·0) = ±0; adding ±0 to s gives s
// (exactly, for s ≠ 0; a zero for s = ±0), and adding t to a zero gives
// t, so the partial sum after k nonzero terms is F_k (F_1 = t, F_{k+1} =
// fl(F_k + t)) whatever the order, up to the sign of a zero, which
// states do not tell apart (above). So where that holds at every
// component (countOnly), one order, HeadOutput over the values in
// increasing id, gives the model's output for every order. Where it does
// not (Dyck's ±1), the order can change the rounded sum
// (TestMixedTiesByEnumeration's fp8, bf16 and fp16 cases), and the
// analysis follows every order (orders.go): the partial sums of the
// orders of a prefix with count vector p, grown by fl(s + t_k) to p +
// e_k, with the terms t_k = fl(α·v_k) read off HeadOutput over v_k and
// m − 1 zero vectors. Every order gives one of the outputs, so the set
// over-approximates. Only the prefixes below some composition of the
// level are grown, and each carries the compositions it lies below: those
// of p + e_k are those of p whose count k is at least p_k + 1 (a
// composition at least p + e_k is at least p, whichever p reached
// p + e_k), so the list is its parent's, filtered, with the same
// prefixes, outputs and charges as a search of every composition (two
// mutations of the filter fail the package's tests, TestDecidersAgree
// first).
// At an interval precision it gives up: the
// comparisons of enclosures make no such argument. Above 4096
// compositions at a level, or 4096 partial sums at a prefix length, it
// gives up too, and says so. The certificate lists each query's
// compositions and their outputs (recheck.Tie), and the checker derives
// both itself (position by position, and walk by walk over the orders)
// and refuses a composition left out or an output missing.
//
// # A softmax head beside a hard one
//
// The softmax construction of §Simulating Average-Hard Attention with
// Soft Attention (hardmax-softmax) holds log(8N) in W^Q, which exact
// arithmetic cannot compute; its claim is that the softmax output lies
// within a bound of the average-hard output it simulates (c within 1/4,
// y exact). So its construction carries the average-hard one
// (recipes.Construction.Simulated), exact, which the checker hands the
// analysis as its reference, judged with the softmax construction's
// bounds; the model is the softmax construction at its format, whose
// weights are format values (log(8N) rounded once when the model is
// instantiated), and whose exp is the backend's correctly rounded one.
// The run at a format is then a computation on format values, a
// function of which item each visible position holds.
//
// At a query of such a head (softhead.go, softmax.go) the pairs of
// outputs are listed over every choice of one item per visible
// position, as the runner computes them (eval's softmaxInto and
// weightedSum): the maximum M, e_k = fl(exp(fl(s_k − M))), the sum S of
// the e_k left to right, α_k = fl(e_k/S), Σ fl(α_k·v_k) left to right,
// weights 0 skipped. M is one of the items' scores: for each, the
// positions choose among their items scoring at most M, and a choice
// counts when some position took M. A first pass finds the sums S the
// choices reach; for each, a second follows, position by position, the
// sum again, the output, and the reference's hardmax (its maximal exact
// score and the items at it that it reads: the first, the last, or all,
// whose exact mean does not depend on the order), and keeps the runs
// whose sum is S. Two runs of a prefix with equal partial results have
// the same outputs over every way to go on, so merging them loses
// nothing, and every input's choice is one of those followed: the pairs
// listed are exactly the pairs the choices give (the positions chosen
// independently, which over-approximates the inputs, as everywhere).
// No bound on exp or on the sums is needed: the format's operations are
// followed exactly. Above 4096 partial results after a position it gives
// up. Such a decision is not carried by the chain. The checker derives
// the outputs itself (recheck/softmax.go). TestSoftmaxOutputsAreHeadOutput
// holds the listing to HeadOutput on every choice (both ways: nothing
// missed, nothing extra), TestSoftmaxBesideHardSound and
// TestSoftmaxBesideHardPerturbed hold certificates to every input run
// whole (the temperature changed, W^V moved by an ulp and by 1/2), and
// TestRecheckRefusesSoftTampering the checker to its own derivation.
//
// # The certificate, re-checked
//
// What the analysis concluded at a length it writes as a certificate
// (package recheck): the state pairs after every sublayer and, for every
// head, what it concluded at each query over each range of visible
// positions (whether the order is kept, the candidates, the outputs).
// Before a length is certified (or its decisions), the independent
// checker of package recheck re-derives every fact of it from the two
// models' public operations, and accepts it or names the first fact that
// fails; a refusal withdraws the conclusion (Result.Refused, and Why says
// it is a bug of the analysis). The checker shares none of the shortcuts
// below: a flaw in one of them shows as a refusal, not as a false
// certificate. Result.CheckWork is its cost, counted as Work is.
//
// # Doing less work, soundly
//
// The first layer reads embeddings, which are sums of a symbol's part and
// a position's part (eval.Steps.EmbedDependence): a query, key or
// value that reads only components depending on the symbol alone is
// computed once per symbol, one that reads only components depending on
// the position alone once per position, and one that reads both once per
// pair of classes of equal values (the lookup's 2n² embeddings cost n + 2n
// projections). States, and vectors projected from them, are told apart
// by the values of their components compared as numbers, so +0 and −0
// share one state: harmless, because no operation of the model turns a
// zero's sign into a different value (a sum, product, maximum, ReLU, or
// comparison of +0 and −0 gives equal numbers; the model divides only by
// positive √d_key, τ and layer-norm denominators). A key's exact score is
// computed in float64 when q·k in float64 is provably exact (each product
// exact by an FMA check, each sum by two-sum), and in rationals
// otherwise (exactscores.go). Tests compare the factored first pass
// (embeddings.go, over the readers of readers.go) with the plain one
// (gatherStates, gather.go) on every recipe.
//
// A list of symbols may serve several positions (Construction.Symbols
// hands the lookup's one list to all n): what a symbol adds depends only
// on its classes, so one symbol of each tuple of classes stands for the
// list, and once only position-wise work remains a position whose list
// and classes were met adds no entry; the lookup's n·2n pairs cost O(n)
// (sharedlist.go).
// The second pass offers each query to two deciders in turn (the decider
// interface, decide.go). The fast one (fast.go) compares the scores of
// the keys (the items of a position with one key share its scores) on
// float64s where that is exact: exact scores that are their float64s
// (dot products of small integers need no check), and model scores that
// are machine floats or big floats that convert exactly. A query where
// anything else holds, or where the model breaks an order, it leaves,
// before changing or charging anything, to the general one (general.go,
// with order.go), which reports it; both decide, and charge the budget,
// alike.
//
// Every length, one after another (Input.Chain): the chain keeps the
// tables of distinct projections, each position's items and each head's
// conclusions from length n to n + 1. A conclusion at query q over lo …
// hi stands at the next length where the items of lo … hi are the same,
// and extends to lo … hi + 1 where the order was kept and every key at
// hi + 1 scores strictly below every candidate, exactly and in the model
// (Chain's doc gives the argument; chain.go). An embedding whose position part
// depends on n starts every table afresh.
//
// Each shortcut has a test that fails without it: the factored first pass
// and the class sharing (TestFactoredFirstPass, TestMixedEmbeddingsSound:
// every ±1 change of one embedding entry of the lookup, against every
// input run whole), the float64 comparisons (TestDecidersAgree: the two
// deciders on the same queries, decision by decision and charge by
// charge; TestFastMatchesGeneral, TestOrderTiesByHand,
// TestManyCandidatesByHand, each against the general code and against
// every input), the chain (TestChainIsEachLength,
// TestChainExactTieByHand: ties with the new key in the model only, and
// exactly only), the masks' ranges (TestStrictFutureByHand); and any false
// proof that gets past them the checker refuses, which fails the
// package's tests (main_test.go). The mutation run of internal/mutation
// changes each of these conditions in the source and requires a test to
// fail.
//
// # When it does not certify
//
// The analysis gives up, and says why, where its sets stop being finite
// and small or its argument does not apply: softmax attention in the
// reference,
// a tie set whose values differ under average hardmax where the model
// breaks the exact order (or at an interval precision, or beyond the
// bounds on compositions and orders above), a NaN score or a
// non-finite value at a visible position (the weighted sum reads every
// visible position, and 0·∞ is NaN), a layer norm or weight that exact
// arithmetic cannot compute, more states at a position than
// Options.MaxStates, models of different shapes. A broken order
// between two keys whose values differ is a Suspect: the positions and
// symbols that produce the query and the two keys (or the two keys alone
// where no pair of their items agrees with the query's witness, which is
// one input of the query's class: the key at the query's own position
// may need another), from which Candidates builds concrete inputs for
// the checker to run. A candidate that fails
// is a counterexample found by the analysis; one that passes proves
// nothing.
//
// # The files
//
// One stage of the analysis a file: analysis.go follows the states
// through the steps (the pair of models, the state pairs and their sets),
// keys.go tells states apart by their values, output.go compares the
// final outputs. An attention sublayer (attention.go) makes a first pass
// over the states, gathering each head's items and entries (gather.go;
// embeddings.go, readers.go and sharedlist.go over the embeddings;
// projections.go computes queries, keys and values, pairs.go numbers
// them), and a second that decides each query (decide.go): its keys
// scored (scores.go, exactscores.go, over the index of index.go), then
// decided by fast.go or general.go (order.go keeps or breaks the order,
// headoutputs.go makes the outputs; mixed.go and orders.go those of tie
// sets of several values; softhead.go and softmax.go those of a softmax
// head beside a hard one). chain.go carries conclusions from
// one length to the next, certificate.go writes the certificate,
// live.go works out the live components, witness.go the witnesses.
//
// # Imports
//
// certify imports certify/recheck (the checker of its certificates),
// recipes (the constructions, their symbols and validity), model and
// numeric. The checker (package check) imports it.
package certify
