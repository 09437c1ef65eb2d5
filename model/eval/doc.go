// Package eval runs a model.Model at a precision: Instantiate rounds
// every parameter once to a backend's format, as a real low-precision
// model is stored, and Run maps a string to its outputs and, on request,
// a Trace of the residual stream after every sublayer. New picks the
// backend a numeric.Precision names and returns a Runner; NewPrefixRunner
// extends the run of a prefix by one symbol at a time, for the
// depth-first enumeration of every input of a causally masked model.
//
// Steps is an instance seen one piece of the forward pass at a time, for
// the analyses that follow sets of states instead of one input (the
// certificates and the diagnosis): each piece runs the code Run runs.
//
// # Evaluation order
//
// The rounding backends round after every operation, so the order of
// operations is part of the model's definition. It is fixed here, and
// follows what PyTorch does where the paper leaves it open:
//
//   - matrix-vector products sum left to right, W x = Σ_k W[r][k]·x[k];
//   - scores: s_ij = (q_i · k_j) / √d_key, √d_key rounded once, unless
//     Attention.Scale is NoScale; then a temperature τ divides the score;
//   - softmax subtracts the row maximum first (as torch.softmax does), then
//     α_j = exp(s_j − max) / Σ_k exp(s_k − max), the sum left to right;
//   - the attention output is Σ_j α_j v_j over the unmasked j, left to
//     right, for every weighting (hard weightings give α_j ∈ {0, 1/|I|});
//   - layer norm: μ = Σ x / d, σ² = Σ (x − μ)² / d, then
//     (x − μ) / √(σ² + ε) · γ + β;
//   - GELU(x) = x/2 · (1 + erf(x · (1/√2))), its tanh approximation
//     x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³))), and the sigmoid one
//     x / (1 + exp(−1.702 x)).
//
// Hard attention decides the maximum and its ties in the backend's own
// arithmetic: exactly in exact mode, and in a rounding format on the
// rounded scores, so that a rounding that creates or breaks a tie shows.
//
// # Imports
//
// eval imports model and numeric.
package eval
