// Package score scores every node of a graph by how ambiguous it looks:
// FONDUE's Rayleigh quotient of a CNE embedding (fondue.go; the sign-vector
// search itself is in fondue/internal/quotient, shared with the fit's
// stopping rule), the combined method, the default (combined.go: the
// quotient's percentile and the graph evidence of the split and of the
// pieces, by Stouffer's method; sure.go says how far its top stands above
// chance), the pieces of a neighbourhood and the
// estimated number of entities (pieces.go), and the paper's baselines
// (baselines.go). It is the scores step of the data flow:
// source -> graph -> embedding -> scores -> splits -> sink.
package score
