// Package output writes what fondue-neo4j's commands print, so that the
// commands only parse, call and print: score's ranking as TSV or JSON
// (Ranking; the TSV quoted as RFC 4180 writes it, with a tab for the
// comma, and the split column's members quoted the same way), and the
// summaries of sync (SyncText, SyncAttrs) and estimate (EstimateText).
package output
