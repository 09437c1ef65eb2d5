// Package fuzz holds the native Go fuzz targets of the engine: properties
// that must hold for every input, checked on inputs a fuzzer chooses
// rather than on the seeded sweeps of the other tests. The package has no
// code of its own; the targets are in its _test.go files, one concept per
// file.
//
// # Targets
//
//	FuzzFormatArithmetic  formats_test.go   every operation of fp64, fp32, fp16, bf16, fp8-e4m3,
//	                                        fp8-e5m2 and bigfloat (2 … 200 bits) is the exact
//	                                        result rounded once, ties to even, with IEEE 754's
//	                                        overflow, NaN and signed zeros
//	FuzzIntervalContains  interval_test.go  interval:P (2 … 256) encloses the exact result of
//	                                        +, −, ×, ÷, √, exp and log at every point of its
//	                                        operands
//	FuzzRecipeExact       recipes_test.go   every exact recipe, under every weighting the paper
//	                                        gives it, outputs exactly its reference (or within its
//	                                        bounds, where the paper claims only bounds)
//	FuzzHardAttention     hardmax_test.go   leftmost, rightmost and average hardmax, with every
//	                                        mask, on scores with ties, near ties, ±∞ and NaN, in
//	                                        exact arithmetic, fp16 and bf16
//	FuzzCertifiedIsRight  certify_test.go   a length the analysis certifies (verify check
//	                                        --model, or certify.Length called directly) has every
//	                                        input right, on perturbed models of the recipes it
//	                                        certifies, read from model files: a weight scaled, an
//	                                        embedding's dependence structure changed, a mask, tie
//	                                        rule, score scale or temperature changed, special
//	                                        values of the precision (±0, subnormals, overflow,
//	                                        NaN); every input enumerated and run whole
//	FuzzRealReferenceIsRight reals_test.go  an output whose reference is a real number (layer
//	                                        norm, lh, sinusoids) passes check.CompareAt only
//	                                        when it is the real's correct rounding (or, in
//	                                        intervals, contains it), and is refuted only when it
//	                                        is not, on perturbed models: a weight scaled, ε or γ
//	                                        changed, a layer norm moved; undecided is allowed
//	FuzzParsePrecision    parse_test.go     precision names parse back from their String
//	FuzzParseRat          parse_test.go     exact.ParseRat keeps its limits and its values print
//	                                        and parse back
//	FuzzTokenize          parse_test.go     model.Model.Tokenize returns symbols of the alphabet
//	                                        that join back to the input
//
// The references are independent of the code under test where that is
// possible: exact rationals (math/big.Rat) rounded by Format.RoundRat and,
// for fp64 and fp32, by math/big's own Rat.Float64 and Rat.Float32; square
// roots from big.Int.Sqrt rounded to odd; exp and log from
// github.com/ALTree/bigfloat at 64 or more extra bits, widened to an
// enclosure, an input being skipped when the enclosure does not decide
// the rounding; hard attention and masks from the paper's definitions,
// written in the test.
//
// FuzzRealReferenceIsRight decides without the checker's code: the
// reference enclosed at 2048 bits, both ends rounded to the format with
// integer arithmetic written in the test (roundTo), the output compared
// with their common rounding; an enclosure whose ends round apart decides
// nothing.
//
// FuzzCertifiedIsRight's reference is independent of the analysis it
// tests: every input of a certified length, enumerated from the
// construction's Symbols and Valid, run whole through eval.New's runner
// and compared with the construction's Expected by check.Compare. Its
// campaigns, TestCertifiedCampaign and TestLongCertifiedCampaign, check
// models drawn with -certify.seed and fail when they saw too few
// certified lengths, wrong lengths or inputs to mean anything;
// TestEmbeddingStructureSweep makes every one-entry change of the
// embedding columns that depend on the position or the symbol alone.
//
// The model-file readers have their targets beside them, FuzzReadJSON and
// FuzzReadSafetensors in package model, and the formats' rounding has
// FuzzFormatRound in package numeric; .ci/run runs them all.
//
// # Running
//
// Plain go test replays each target's seed corpus, the f.Add seeds in the
// code and the files under testdata/fuzz/FuzzName, as a regression test:
//
//	go test ./fuzz/
//
// To fuzz one target (go test fuzzes one target at a time):
//
//	go test -run '^$' -fuzz '^FuzzName$' -fuzztime 30s ./fuzz/
//
// The fuzzer keeps the inputs that reached new code in its cache
// ($GOCACHE/fuzz), not in the repository. When it finds a failing input
// it writes it to testdata/fuzz/FuzzName/; once the bug is fixed, keep
// that file (commit it with the fix), so that go test replays it from
// then on. A failing input found by reading the code rather than by the
// fuzzer goes in the same place, in the same format ("go test fuzz v1",
// then one Go literal per argument).
//
// Each input costs microseconds to milliseconds (the recipes are built
// once per weighting and length, then cached), so that a short run tries
// many inputs, and the corpus replays in seconds under the race detector.
//
// # Imports
//
// fuzz holds tests only, which may import any package below the command
// line.
package fuzz
