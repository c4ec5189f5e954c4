// Package research holds splitters that were candidates for the default
// and lost (bench/SPLITTERS.md has the measurements): spectral, posterior,
// hybrid, mcl2 and 2means; and the component baselines of real ambiguity,
// ego-components and two-hop-components ("fondue-bench real"). They are
// fondue.Splitter values like fondue's own, kept for the splitting
// benchmarks (the bench command evaluates fondue.Splitters and Splitters
// together), and not offered by the main command.
package research
