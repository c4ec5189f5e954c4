// Package split proposes how to split a node: groups of its neighbours,
// each to become the neighbourhood of one node. A Splitter makes them from
// an Input (the score behind the proposal); Splitters lists this package's
// (ncut, the default, in split_ncut.go; mcl; fondue, the sign vector behind
// the score), Propose runs one over many nodes, and Bisector is the
// normalized-cut bisection they share with fondue/research. It is the
// splits step of the data flow:
// source -> graph -> embedding -> scores -> splits -> sink.
package split
