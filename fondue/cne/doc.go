// Package cne embeds a graph: the MaxEnt degree prior (FitPrior) and the
// Conditional Network Embedding fitted under it (Fit), with its start
// (cne_init.go), its stopping rules (cne_stop.go), the pair gradient and
// its d = 8 kernels (gradient.go, gradient8.go, gradient8_amd64.s), and the
// checkpoints that warm-start the next run (Checkpoint). Every random draw
// comes from a stream keyed by (seed, epoch, block or node), so the result
// does not depend on the number of workers. It is the embedding step of
// the data flow: source -> graph -> embedding -> scores -> splits -> sink.
package cne
