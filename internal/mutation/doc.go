// Package mutation is the mutation test of the engine's own source: it
// changes one place of the code at a time (a mutant: an exact piece of
// text replaced by another) and requires some test to fail on it. Where
// check's mutation test (TestLongMutantsRefuted) asks whether the checker
// refutes a wrong model, this one asks whether the tests refute a wrong
// engine: a condition of the analysis weakened, a bound off by one, one
// side of a two-sided check dropped.
//
// The mutants are rows of data in mutation_test.go: the file, the exact
// original text (which must occur exactly once there, so that a refactor
// that moves the code makes the row fail loudly instead of testing
// nothing), the mutated text, a name, and the go test -run pattern and
// packages that must catch it. TestLongSourceMutants writes each mutated
// file to a temporary directory and runs
//
//	go test -overlay OVERLAY.json -count=1 -vet=off -run PATTERN PACKAGES
//
// from the module's root: the overlay replaces the file at build time and
// leaves the tree alone, so the run can go on while the code is edited.
// The run must fail because a test failed; a mutant that does not build
// is a bad row, not a catch. TestMutantRows, in the default tier, checks
// the rows alone (each file exists, each original text occurs once, each
// mutated text parses, each pattern names a test of its packages).
//
// The package holds no code and imports nothing of the module; its test
// runs the go command.
package mutation
