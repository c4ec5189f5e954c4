// Package mcl clusters the ego network of a node with Markov clustering
// (Workspace.Cluster), as run_mcl of the markov-clustering package does. The
// "nc" baseline (package score) and the mcl and ncut splitters (package
// split) use it. Invalid Options are an *fondue.OptionsError, never a panic.
package mcl
