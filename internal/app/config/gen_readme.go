//go:build ignore

// gen_readme writes the tables of settings into docs/configuration.md of
// the module that holds this package (config.DocTables):
// go generate ./internal/app/config.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
)

func main() {
	err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen_readme:", err)
		os.Exit(1)
	}
}

func generate() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	path := filepath.Join(root, "docs", "configuration.md")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := config.DocTables(string(data))
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// moduleRoot is the nearest folder above the working directory (the
// package's, under go generate) that holds a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}
