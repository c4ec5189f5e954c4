// Package generate draws synthetic graphs for benchmarks: SBM, a
// degree-corrected stochastic block model with power-law degrees and
// community sizes, whose community structure is what FONDUE relies on.
package generate
