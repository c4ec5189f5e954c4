// Package memory predicts the peak memory of scoring a graph, phase by
// phase, from its size alone (Predict), like the .estimate mode of Neo4j
// GDS, so that a run that cannot fit is refused before it starts.
package memory
