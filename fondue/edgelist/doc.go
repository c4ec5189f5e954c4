// Package edgelist reads graphs from edge-list files, the source of the
// score command: one edge per line, as whitespace-separated ids (SNAP and
// KONECT files), CSV or TSV (RFC 4180, quoted ids), with comments, an
// optional header and an ignored weight column. Errors name the file and
// line (*ParseError); a file without edges is ErrNoEdges.
//
//	g, stats, err := edgelist.ReadFile("graph.edges", edgelist.HeaderAuto)
package edgelist
