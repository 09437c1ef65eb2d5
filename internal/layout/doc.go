// Package layout is the map of the module: which package is for what, and
// which packages each may import. Data flows down through it once:
//
//	cmd/verify                 the command line
//	  frontier                 uniformity limits: sweeps, bisection, shards, plots
//	    diagnose               the cause of a first failure (tie, gap, overflow, …)
//	  proofs/all               every chapter's claims, linked into the registry
//	    proofs/basics …        one package per chapter of the paper: its claims, each
//	                           with its checker and verdict (basics, ffn, attention,
//	                           layernorm, rounding, assembly, examples)
//	      proofs/internal/poly       exact polynomials, for identities in symbols
//	      proofs/internal/prooftest  what the chapters' tests share (imports proofs)
//	      proofs               the registry, the verdicts, and what every chapter's
//	                           checkers share (the decision procedure's use, sweeps)
//	  bench                    the performance cases of 'verify bench'
//	    check                  running a construction and comparing it with its reference
//	      certify              proofs that every input of a length is right
//	        certify/recheck    the independent checker of those proofs
//	      certify/positionwise  feed-forward recipes decided over every input a
//	                           format holds: enumerated, or proved on boxes
//	      recipes              the cookbook's constructions, a file per section
//	        recipes/blocks     the paper's named blocks (GTZero, Avg, lookups, …)
//	          recipes/stream   blocks over named residual-stream components
//	            model/modelfile  model files: JSON and safetensors, read and written
//	            model/eval     running a model at a precision: instances, runners,
//	                           prefix runs, and the forward pass step by step
//	              model        the transformer's definition and its validation
//	                numeric    the arithmetic: exact, bigfloat, IEEE and emulated formats, intervals
//	                  exact    exact linear algebra and linear programming
//	                    exact/cpwl  the decision procedure for ReLU networks
//
// model/internal/modeltest builds the test models that the tests of
// model/eval and model/modelfile share. internal/atomicfile (output files), internal/gcfloor (the heap size
// below which the command line does not collect), internal/limits (the
// memory and open files the machine allows), internal/plural ("1
// claim", "2 claims"), internal/suggest (the "did you mean" of error
// messages) and internal/testenv (what tests know of their build) import
// nothing of the module; nor does internal/mutation, whose test changes
// the engine's source one place at a time and runs the go command on it.
// A chapter of proofs imports the core package proofs and the packages
// below it, never another chapter; the core imports no chapter, so a
// claim's checker is found in its chapter's package and nowhere else.
// fuzz holds fuzz targets and may import any package below
// cmd/verify.
//
// The package holds no code: its test, TestImports, reads every Go file
// of the module and fails when a package imports one it may not, so that
// the map stays true. A package's internal tests keep its rule (plus
// internal/testenv); an external test package (P_test) may import any
// package below cmd/verify, as recipes_test imports check to check the
// constructions it tests. Its second test, TestSizes, holds every
// hand-written file to 800 lines and every function to a cyclomatic
// complexity of 30 (tests and generated files aside), the sizes a
// newcomer reads in one pass.
package layout
