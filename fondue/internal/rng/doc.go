// Package rng draws the engine's random numbers from streams keyed by
// (seed, purpose, epoch, node) rather than from one shared generator, so
// that results do not depend on how rows are spread over goroutines.
package rng
