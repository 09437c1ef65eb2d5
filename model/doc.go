// Package model is the transformer of the Transformer Cookbook's
// Preliminaries (embeddings, self-attention with its masks and weightings,
// feed-forward layers, layer normalisation, unembedding), written once
// against numeric.Backend so that it runs at every precision.
//
// It is built in the issue that follows numeric/; this file only reserves
// the package in the module layout.
package model
