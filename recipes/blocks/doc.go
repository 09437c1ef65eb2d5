// Package blocks holds the Transformer Cookbook's building blocks as small
// pure functions: each takes the names of the residual-stream components
// it reads and writes (and its parameters: ε, δ, a truth table) and
// returns a stream block whose weights are the paper's, entry by entry.
//
// The blocks are written over their own small input and output spaces, as
// the paper writes them; package stream places them on the residual
// stream (the Routing Lemma) and composes them. Package recipes assembles
// blocks into checked constructions.
//
// Conventions: every weight is exact (a rational, or a named irrational
// such as √(π/2)); a block never reads a component it writes; the doc
// comment of each block cites its section of the paper, gives the
// function it computes and the domain on which it computes it exactly.
//
// # Imports
//
// blocks imports stream, model and numeric; the recipes and the claims
// use it.
package blocks
