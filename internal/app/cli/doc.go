// Package cli is what the two commands, fondue-neo4j and fondue-bench, share:
// the exit codes and the errors that carry them (Run turns a command's error
// into one line on stderr and an exit code), the settings' flags made from
// the table of internal/app/config (AddFlags: kinds, defaults, help, completion,
// older spellings), the configuration loading (Load: flag > FONDUE_*
// environment > config file > default, decoded into a config.Config), the
// logger, and the engine's options (EngineOptions), so that fondue-bench
// reads the same configuration as score.
package cli
