// Package all links every chapter of the paper into the registry of
// package proofs: import it for its side effect,
//
//	import _ "github.com/transformer-cookbook/verify/proofs/all"
//
// and proofs.All and proofs.Get see all the claims. Each chapter's
// package registers its own claims when linked in; the registry lists
// them by ID, whatever the order of linking.
package all
