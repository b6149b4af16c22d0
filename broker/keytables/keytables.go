// Package keytables has Go compute the tables ed25519 needs, on a spare core
// while the rest of the program's packages initialise. Every start of the
// lab's server needs them at once: nats-server makes a key for itself, the
// lab makes its own user's key, and the server checks that user's
// signature when the lab connects. Computed on first use instead, they
// would sit on the path to the lab's first answer.
//
// It imports nothing of natslab, so Go initialises it early (a package is
// initialised once everything it imports is, in import-path order). It
// does not import the packages that use the tables either: importing it is
// the whole of its use.
package keytables

import "crypto/ed25519"

func init() {
	go warm()
}

// warm makes, uses and checks one key: the first of each computes a table
// (signing and making keys share one; checking has its own), later ones
// reuse them.
func warm() {
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	msg := []byte("natslab")
	ed25519.Verify(key.Public().(ed25519.PublicKey), msg, ed25519.Sign(key, msg))
}
