package main

// The registry holds the claims of the chapters linked in: all of them.
import _ "github.com/transformer-cookbook/verify/proofs/all"
