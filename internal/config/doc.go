// Package config is fondue-neo4j's configuration: every key with its kind
// and default (Settings), and strict readers for the two places values come
// from besides flags: a YAML file (ReadFile) and FONDUE_* environment
// variables (ReadEnv). Nothing wrong passes silently: an unknown key or
// variable, or a value of the wrong kind, is an error that names the key,
// the file or variable, and what was expected.
package config
