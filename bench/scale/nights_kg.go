package scale

// Nights on a KG case (neo4j:kg:NODES:DEGREE with --nights): the same
// scenario as runNights (runNightsPlan), but the changes are to the
// scored shape, the (:Author)-[:WROTE]->(:Paper) relationships (half
// deleted, as many added between an author and a paper not linked). No
// score run to compare with: each night's compute and write, and the full
// night's written ambiguity against the incremental night's before it on
// the same graph.

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// kgWrote reads a KG case's import files: its authors, papers, and WROTE
// relationships (author, paper).
func kgWrote(p *prepared) (authors, papers []string, wrote [][2]string, err error) {
	each := func(path string, f func(cols []string)) error {
		fh, err := os.Open(path)
		if err != nil {
			return err
		}
		defer fh.Close()
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		sc.Scan() // the header
		for sc.Scan() {
			f(strings.Split(sc.Text(), ","))
		}
		return sc.Err()
	}
	if err := each(p.kgNodes, func(c []string) {
		switch c[len(c)-1] {
		case "Author":
			authors = append(authors, c[0])
		case "Paper":
			papers = append(papers, c[0])
		}
	}); err != nil {
		return nil, nil, nil, err
	}
	err = each(p.kgRels, func(c []string) {
		if c[2] == "WROTE" {
			wrote = append(wrote, [2]string{c[0], c[1]})
		}
	})
	return authors, papers, wrote, err
}

// runNightsKG runs the nightly scenario on a server holding KG case c.
func runNightsKG(ctx context.Context, cfg Config, srv *neo4jtest.Server, d neo4j.DriverWithContext, c Case, p *prepared,
	res *Results, logf func(string, ...any)) error {
	for _, q := range []string{"CREATE INDEX kg_author_uid IF NOT EXISTS FOR (n:Author) ON (n.uid)",
		"CREATE INDEX kg_paper_uid IF NOT EXISTS FOR (n:Paper) ON (n.uid)", "CALL db.awaitIndexes(3600)"} {
		if _, err := neo4j.ExecuteQuery(ctx, d, q, nil, neo4j.EagerResultTransformer); err != nil {
			return err
		}
	}
	authors, papers, wrote, err := kgWrote(p)
	if err != nil {
		return err
	}
	plan := nightsPlan[[2]string]{what: "WROTE", edges: wrote,
		draw: func(r *rand.Rand) ([2]string, bool) {
			return [2]string{authors[r.IntN(len(authors))], papers[r.IntN(len(papers))]}, true
		},
		params: func(e [2]string) []any { return []any{e[0], e[1]} },
		change: func(ctx context.Context, del, add []any) error { return changeWrote(ctx, d, del, add) },
		written: func(ctx context.Context) (map[string]float64, error) {
			r, err := neo4j.ExecuteQuery(ctx, d, "MATCH (n:Author) WHERE n.ambiguity IS NOT NULL RETURN n.uid, n.ambiguity", nil, neo4j.EagerResultTransformer)
			if err != nil {
				return nil, err
			}
			w := map[string]float64{}
			for _, rec := range r.Records {
				k, _ := rec.Values[0].(string)
				if a, ok := rec.Values[1].(float64); ok {
					w[k] = a
				}
			}
			return w, nil
		}}
	return runNightsPlan(ctx, cfg, srv, c, plan, nil, res, logf)
}

// changeWrote deletes the WROTE relationships of del's (author, paper)
// pairs and creates one for each pair of add, in batches.
func changeWrote(ctx context.Context, d neo4j.DriverWithContext, del, add []any) error {
	if err := runPairs(ctx, d, "UNWIND $pairs AS p MATCH (:Author {uid: p[0]})-[r:WROTE]->(:Paper {uid: p[1]}) DELETE r", del); err != nil {
		return err
	}
	return runPairs(ctx, d, "UNWIND $pairs AS p MATCH (a:Author {uid: p[0]}), (b:Paper {uid: p[1]}) CREATE (a)-[:WROTE]->(b)", add)
}
