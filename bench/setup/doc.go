// Package setup is what the paper's evaluation (package bench) and the real
// one (bench/real) share about the setting of a run: where the datasets are
// (FindDataDir), the splitters a run can evaluate (Splitters) and the
// choice of a run's methods and splitters (Choose), and, as the results
// record them, the engine's options (Engine) and the machine (Machine).
package setup
