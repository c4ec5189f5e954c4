// Package vec holds small helpers on float64 vectors and scratch slices
// shared by the engine's packages: dot products and distances, medians,
// sorted search, and buffers resized in place.
package vec
