// Package config is fondue-neo4j's configuration: one table of settings
// (settings.go; Settings, Lookup), each with its key, kind, default and
// allowed values, help, flags per command (and their older spellings),
// aliases and field in a Config. The flags (internal/cli), the FONDUE_*
// environment variables, the YAML keys and their checks, the defaults, the
// shell completion and the tables of docs/configuration.md (DocTables, go
// generate) are made from it.
//
// Values come from flags, a YAML file (ReadFile) and FONDUE_* environment
// variables (ReadEnv), read strictly: an unknown key or variable, or a
// value of the wrong kind, is an error that names the key, the file,
// variable or flag, and what was expected. Merge decides each setting's
// value (flag > environment > file > default) and decodes them into a
// Config, a struct per concern, which the commands read.
package config
