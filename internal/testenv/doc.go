// Package testenv tells tests about the build they run in: whether the
// race detector is on (exact arithmetic runs about fifteen times slower
// under it, so long exhaustive checks shorten themselves there).
//
// It imports nothing of the module and may be imported by any test.
package testenv
