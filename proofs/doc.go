// Package proofs is the registry of the Transformer Cookbook's claims, each
// with the checker that decides it and the verdict recorded for this
// version of the code.
//
// It is built in a later issue; this file only reserves the package in the
// module layout.
package proofs
