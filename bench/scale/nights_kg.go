package scale

// Nights on a KG case (neo4j:kg:NODES:DEGREE with --nights): the same
// scenario as runNights, but the changes are to the scored shape, the
// (:Author)-[:WROTE]->(:Paper) relationships (half deleted, as many
// added between an author and a paper not linked). No score run to
// compare with (score reads an edge list, not the KG): each night's
// compute and write, and the full night's written ambiguity against the
// incremental night's before it on the same graph.

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
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
	v := srv.Version().Neo4j
	for _, q := range []string{"CREATE INDEX kg_author_uid IF NOT EXISTS FOR (n:Author) ON (n.uid)",
		"CREATE INDEX kg_paper_uid IF NOT EXISTS FOR (n:Paper) ON (n.uid)", "CALL db.awaitIndexes(3600)"} {
		if _, err := neo4j.ExecuteQuery(ctx, d, q, nil, neo4j.EagerResultTransformer); err != nil {
			return err
		}
	}
	state := filepath.Join(cfg.CacheDir, fmt.Sprintf("nights-%s-%s.state", c.Name, v))
	os.Remove(state)
	defer os.Remove(state)
	authors, papers, wrote, err := kgWrote(p)
	if err != nil {
		return err
	}
	has := make(map[[2]string]bool, len(wrote))
	for _, e := range wrote {
		has[e] = true
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 41))
	bin := [2]string{BinaryMain, cfg.Binary}
	var first NightRun
	var last map[string]float64
	night := func(name string, changed int, extra ...string) error {
		lr, sum, err := runNight(ctx, cfg, srv, c, bin, "night-"+strings.TrimSuffix(name, "%"), state, extra...)
		if err != nil {
			return fmt.Errorf("night %s: %w", name, err)
		}
		nr := NightRun{Case: c.Name, Server: v, Night: name, Changed: changed, WallS: lr.WallS, PullS: lr.PullS, ComputeS: lr.ComputeS,
			WriteS: lr.WriteS, NodesWritten: sum.NodesWritten, NodesUnchanged: sum.NodesUnchanged, PropertiesWritten: lr.Properties,
			JobPeakRSSMB: lr.JobPeakRSSMB}
		if in := sum.Incremental; in != nil {
			nr.Mode, nr.Reason, nr.NodesChanged, nr.NodesRescored = in.Mode, in.Reason, in.NodesChanged, in.NodesRescored
		}
		if name == "first" {
			first = nr
		}
		nr.ComputeShare, nr.WallShare = nr.ComputeS/first.ComputeS, nr.WallS/first.WallS
		written := map[string]float64{}
		r, err := neo4j.ExecuteQuery(ctx, d, "MATCH (n:Author) WHERE n.ambiguity IS NOT NULL RETURN n.uid, n.ambiguity", nil, neo4j.EagerResultTransformer)
		if err != nil {
			return err
		}
		for _, rec := range r.Records {
			k, _ := rec.Values[0].(string)
			if a, ok := rec.Values[1].(float64); ok {
				written[k] = a
			}
		}
		if name == "full" && last != nil {
			nr.Top1OverlapPrev, nr.SpearmanPrev = compareTop(written, last, 0.01)
		}
		last = written
		cmp := ""
		if name == "full" {
			cmp = fmt.Sprintf("; against the night before: top 1%% overlap %.4f, Spearman %.5f", nr.Top1OverlapPrev, nr.SpearmanPrev)
		}
		logf("%s on %s, night %s (%d WROTE changed): %s%s, wall %.1fs (%.0f%% of the first), compute %.1fs (%.0f%%), write %.1fs; "+
			"%d nodes changed, %d re-scored, %d written, %d unchanged%s",
			c.Name, v, name, changed, nr.Mode, reasonNote(nr.Reason), nr.WallS, 100*nr.WallShare, nr.ComputeS, 100*nr.ComputeShare, nr.WriteS,
			nr.NodesChanged, nr.NodesRescored, nr.NodesWritten, nr.NodesUnchanged, cmp)
		res.Nights = append(res.Nights, nr)
		return nil
	}
	if err := night("first", 0); err != nil {
		return err
	}
	deleted := make([]bool, len(wrote))
	for _, frac := range NightFractions {
		name := strconv.FormatFloat(100*frac, 'f', -1, 64) + "%"
		k := int(math.Round(frac * float64(len(wrote)) / 2))
		var del, add []any
		for len(del) < k {
			e := rng.IntN(len(wrote))
			if !deleted[e] {
				deleted[e] = true
				del = append(del, []any{wrote[e][0], wrote[e][1]})
			}
		}
		for len(add) < k {
			e := [2]string{authors[rng.IntN(len(authors))], papers[rng.IntN(len(papers))]}
			if has[e] {
				continue
			}
			has[e] = true
			add = append(add, []any{e[0], e[1]})
		}
		if err := changeWrote(ctx, d, del, add); err != nil {
			return err
		}
		if err := night(name, len(del)+len(add)); err != nil {
			return err
		}
	}
	return night("full", 0, "--full")
}

// changeWrote deletes the WROTE relationships of del's (author, paper)
// pairs and creates one for each pair of add, in batches.
func changeWrote(ctx context.Context, d neo4j.DriverWithContext, del, add []any) error {
	const batch = 5000
	run := func(q string, pairs []any) error {
		for lo := 0; lo < len(pairs); lo += batch {
			_, err := neo4j.ExecuteQuery(ctx, d, q, map[string]any{"pairs": pairs[lo:min(lo+batch, len(pairs))]}, neo4j.EagerResultTransformer)
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := run("UNWIND $pairs AS p MATCH (:Author {uid: p[0]})-[r:WROTE]->(:Paper {uid: p[1]}) DELETE r", del); err != nil {
		return err
	}
	return run("UNWIND $pairs AS p MATCH (a:Author {uid: p[0]}), (b:Paper {uid: p[1]}) CREATE (a)-[:WROTE]->(b)", add)
}
