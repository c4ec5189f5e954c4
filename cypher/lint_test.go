package cypher

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/cypherlint"
)

// Every statement the Neo4j 5 dialect can produce passes Neo4j 5's own
// grammar and semantic check (@neo4j-cypher/language-support), without
// errors and without deprecations. The 4.4 statements are Cypher 5 too
// (id() is only deprecated there). The 3.x dialect runs for real on the
// test server (connector tests).
func TestCypher5Lint(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, err := cypherlint.New(ctx, cypherlint.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err) // never skipped: CI must have node and npm
	}
	for _, d := range []Dialect{V5, V4} {
		queries := renderAll(t, d)
		res, err := l.Lint(ctx, queries)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != len(queries) {
			t.Fatalf("%v: %d results for %d queries", d, len(res), len(queries))
		}
		for name, ds := range res {
			for _, diag := range ds {
				switch {
				case diag.IsError():
					t.Errorf("%v %s: %v\n%s", d, name, diag, queries[name])
				case d == V5 && diag.Kind == cypherlint.KindDeprecation:
					t.Errorf("%v %s: deprecated: %v\n%s", d, name, diag, queries[name])
				case d == V5 && !strings.Contains(diag.Message, "cartesian product"):
					t.Logf("%v %s: %v", d, name, diag)
				}
			}
		}
		t.Logf("%v: %d statement variants checked", d, len(queries))
	}
	// The demo graph of docker-compose.yml is Cypher 5 too.
	seed, err := os.ReadFile("../docker/seed.cypher")
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Lint(ctx, map[string]string{"seed": string(seed)})
	if err != nil {
		t.Fatal(err)
	}
	for _, diag := range res["seed"] {
		if diag.IsError() || diag.Kind == cypherlint.KindDeprecation {
			t.Errorf("docker/seed.cypher: %v", diag)
		}
	}
}
