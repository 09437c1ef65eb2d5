// Package bigmath computes certified enclosures of elementary functions and
// constants on math/big.Float, and rounds them correctly.
//
// Everything here is interval arithmetic with directed rounding: an
// Interval [Lo, Hi] at working precision w always contains the exact real
// result. Rounding errors are tracked by rounding lower endpoints toward −∞
// and upper endpoints toward +∞; the only other error, the truncation of a
// series, is bounded by an explicit formula next to each series and added to
// the enclosure. Ziv's strategy then turns enclosures into correctly rounded
// results: evaluate at a working precision a few dozen bits above the
// target, round both ends, and accept when they round to the same value;
// otherwise widen the working precision and try again.
//
// Arguments are reduced here before any series is summed, so no input can
// make a computation run away: exp reduces by multiples of log 2 and by
// halving, log by powers of two and square roots, sin and cos by multiples
// of π/2 (with π to about log2|x| extra bits, up to |x| < 2^TrigMaxExp),
// and values beyond big.Float's exponent range are reported as overflow or
// underflow up front.
//
// Square roots never use big.Float.Sqrt, whose results in directed rounding
// modes can be off by an ulp; Sqrt here takes the exact integer square root
// of a scaled significand and rounds once, in any mode.
//
// Shared state is limited to the caches of π and log 2, which are guarded by
// a mutex.
//
// # Imports
//
// bigmath imports nothing of the module; only numeric may import it.
package bigmath
