//go:build ignore

// gen_readme writes the tables of settings into the README named by its
// argument (config.ReadmeTables): go generate ./internal/app/config.
package main

import (
	"fmt"
	"os"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run gen_readme.go README.md")
		os.Exit(2)
	}
	path := os.Args[1]
	data, err := os.ReadFile(path)
	if err == nil {
		var out string
		if out, err = config.ReadmeTables(string(data)); err == nil {
			err = os.WriteFile(path, []byte(out), 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen_readme:", err)
		os.Exit(1)
	}
}
