// Package config is fondue-neo4j's configuration: one table of settings
// (settings.go; Settings, Lookup), each with its key, kind, default and
// allowed values, help, flags per command (and their older spellings),
// aliases and field in a Config. The flags (internal/app/cli), the FONDUE_*
// environment variables, the YAML keys and their checks, the defaults, the
// shell completion and the tables of docs/configuration.md (DocTables, go
// generate) are made from it.
//
// Values come from flags, a config file (YAML, or JSON or TOML by its
// extension) and FONDUE_* environment variables, through viper (Load),
// which finds the file, reads the variables and the flags and holds the
// defaults. Each value is checked before it enters viper (ReadFile,
// ReadEnv, Setting.Parse): an unknown key or variable, or a value of the
// wrong kind, is an error that names the key, the file, variable or flag,
// and what was expected. The winning value (flag > environment > file >
// default) is decoded into a Config, a struct per concern, which the
// commands read.
package config
