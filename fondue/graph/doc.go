// Package graph holds the graph the engine scores and its builder: an
// undirected simple graph in compressed sparse rows, nodes numbered 0..n-1
// and named by keys (Graph, Builder, NewGraph, NewIntKeyGraph), and the ego
// network of a node (EgoNet), the subgraph of its neighbours that the
// baselines, the pieces and the splitters read. It is the second step of
// the data flow: source -> graph -> embedding -> scores -> splits -> sink.
package graph
