// Package cli is what the two commands, fondue-neo4j and fondue-bench, share:
// the exit codes and the errors that carry them (Run turns a command's error
// into one line on stderr and an exit code), the configuration loading
// (Load: flag > FONDUE_* environment > config file > default, checked by
// internal/config), the logger, and the engine's flags and options
// (AddEngineFlags, EngineOptions), so that fondue-bench reads the same
// configuration as score.
package cli
