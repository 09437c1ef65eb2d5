// Package stream assembles transformers on a residual stream of named
// components (§Assembly of the Transformer Cookbook).
//
// A Program is the straight-line-program view of §Residual stream: the
// input (word and position embeddings, or a vector given directly) sets
// some components, and each block then sets further components, each
// exactly once, reading only components set before it. A block is a
// feed-forward network (FF) or an attention head (Attn) written over its
// own small input and output spaces, as the paper writes its recipes; the
// assembler places every component on one axis of the residual stream and
// builds the routing matrices of the Routing Lemma (§Routing Lemma): a
// block f with reads R and writes L becomes L∘f∘R, whose matrices are the
// block's own with their columns and rows moved to the components' places.
// Because written components start at zero and every sublayer has its
// residual connection, adding the block's output to the stream sets them.
//
// Blocks compose serially (Program.Then: the next sublayer, packed into
// layers of one attention sublayer and one feed-forward sublayer) and in
// parallel (Parallel: one sublayer, heads summed or hidden units
// concatenated, §Composition operations); whole programs compose with
// Serial and Widen. Model reports an error, never a wrong model, when two
// blocks write one component, a block reads a component nothing wrote
// before it, or parallel blocks read what their siblings write.
//
// # Imports
//
// stream imports model and numeric; the blocks and the recipes build on
// it.
package stream
