package cypher

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/cypherlint"
)

// Every statement fondue-neo4j can produce passes Neo4j 5's own grammar and
// semantic check (@neo4j-cypher/language-support), without errors and
// without deprecations; they also run for real on the test servers
// (connector tests). So do the demo graph of docker-compose.yml and the
// example queries of the README and docs/. One linter process checks them
// all.
func TestCypher5Lint(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, err := cypherlint.New(ctx, cypherlint.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err) // never skipped: CI must have node and npm
	}
	queries := map[string]string{}
	strict := map[string]bool{} // no deprecations allowed
	for name, q := range renderAll(t) {
		queries[name], strict[name] = q, true
	}
	seed, err := os.ReadFile("../docker/seed.cypher")
	if err != nil {
		t.Fatal(err)
	}
	queries["docker/seed.cypher"], strict["docker/seed.cypher"] = string(seed), true
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range append([]string{"../README.md"}, pages...) {
		doc, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(page, "../")
		blocks := strings.Split(string(doc), "```cypher\n")[1:]
		if len(blocks) == 0 && name == "README.md" {
			t.Fatal("no cypher block in README.md")
		}
		for k, part := range blocks {
			key := fmt.Sprintf("%s cypher block %d", name, k+1)
			queries[key], _, _ = strings.Cut(part, "```")
			strict[key] = true
		}
	}

	res, err := l.Lint(ctx, queries)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(queries) {
		t.Fatalf("%d results for %d queries", len(res), len(queries))
	}
	for name, ds := range res {
		for _, diag := range ds {
			switch {
			case diag.IsError():
				t.Errorf("%s: %v\n%s", name, diag, queries[name])
			case strict[name] && diag.Kind == cypherlint.KindDeprecation:
				t.Errorf("%s: deprecated: %v\n%s", name, diag, queries[name])
			case strict[name] && !strings.Contains(diag.Message, "cartesian product"):
				t.Logf("%s: %v", name, diag)
			}
		}
	}
	t.Logf("%d queries checked", len(queries))
}
