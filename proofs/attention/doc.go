// Package attention holds the claims of §Self-Attention Layers (IDs
// attn.* and lemma.edelman*) and of the self-attention cheat sheet
// (tab:sa_cheatsheet). Most are decided by the recipes' own sweeps,
// exhaustively over every input up to a length; the rest by small
// checkers beside them: the scores and gaps computed from the
// constructions' weights, exact binomial probabilities for the almost
// orthogonal family, a certified interval search for Edelman's lemma,
// and linearity for the trivial heads whose inputs are real vectors.
//
// attention.go holds what several sections share (section names and
// labels, the row constructor claim, the sweep runners and their memos,
// the softmax simulation); each attention_*.go file holds the table of
// one section (or a few related ones) beside the checkers only it uses.
// claims.go lists the tables in the paper's order.
//
// The claims ending .sqrt-dkey read the scores as Definition def:attn
// does (q·k/√d_key); their companions, the engine's q·k. Each statement
// ends with proofs.ReadScaled or proofs.ReadQK to say which.
//
// The package registers its claims when linked in; proofs/all links it.
package attention
