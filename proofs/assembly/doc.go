// Package assembly holds the claims of §Assembly (IDs assembly.*):
// serial and parallel composition of transformers, checked on Dyck-1
// built from blocks (assembly_composition.go), and the routing lemmas,
// an FFN or attention layer read and written through linear maps, decided
// by the exact decision procedure (assembly_routing.go). claims.go lists
// the tables.
//
// The package registers its claims when linked in; proofs/all links it.
package assembly
