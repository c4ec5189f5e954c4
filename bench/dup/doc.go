// Package dup evaluates duplicate detection (several nodes that are one
// entity): on acl-dup, the ACL Anthology's name strings with their curated
// variants as truth (LoadACL, Evaluate), with the four baselines
// (Baselines) beside the engine (fondue/dedup); and on the paper's graphs
// with planted duplicates, a node's links split in two (Plant). What every
// number is: bench/README.md, section "Duplicates".
package dup
