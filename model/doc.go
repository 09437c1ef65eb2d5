// Package model is the transformer of the Transformer Cookbook's
// §Preliminaries, §Self-Attention Layers and §Layer Normalization: a
// Model and its parts (layers, attention heads, feed-forward sublayers,
// layer norms, position encodings, the output), with exact parameters
// (numeric.Expr: rationals, and the few irrational constants the paper
// uses), and its validation (Model.Validate names the layer and matrix of
// every dimension mismatch).
//
// A Model is only the definition. Package model/eval runs it at a
// precision (eval.New, eval.Instantiate); package model/modelfile reads
// and writes it as a model file (docs/model-format.md) or as safetensors.
//
// # Imports
//
// model imports numeric (and internal/plural, for its messages). It knows
// nothing of the cookbook: recipes build Models, and everything above
// runs them.
package model
