package main

import (
	"github.com/fondue-neo4j/fondue-neo4j/internal/cli"
)

// flagValues lists the values shell completion offers for a flag, per
// command where they differ (cli.RegisterCompletions).
func flagValues(command, flag string) []string {
	switch flag {
	case "splitter":
		return splitterNames()
	case "output":
		if command == "score" {
			return []string{"text", "tsv", "json"}
		}
		return []string{"text", "json"}
	case "header":
		return []string{"auto", "yes", "no"}
	case "print-header":
		return []string{"auto", "true", "false"}
	}
	return cli.FlagValues(flag)
}
