// Package testgraph loads graphs into a Neo4j test server and dumps them
// canonically, for the integration tests of the connector and the CLI.
package testgraph

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Run executes one statement and returns its records.
func Run(ctx context.Context, d neo4j.DriverWithContext, q string, params map[string]any) ([]*neo4j.Record, error) {
	res, err := neo4j.ExecuteQuery(ctx, d, q, params, neo4j.EagerResultTransformer)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	return res.Records, nil
}

// Load creates one (:label {prop: key}) node per node of g (integer keys)
// and one (a)-[:relType]->(b) relationship per edge, a < b, in batches,
// with an index on :label(prop) (Cypher 5: Neo4j 5.26 and later). Names
// are backtick-escaped; label and relType may not be empty.
func Load(ctx context.Context, d neo4j.DriverWithContext, g *graph.Graph, label, relType, prop string) error {
	esc := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
	if _, err := Run(ctx, d, fmt.Sprintf("CREATE INDEX IF NOT EXISTS FOR (n:%s) ON (n.%s)", esc(label), esc(prop)), nil); err != nil {
		return err
	}
	const batch = 20000
	var ids []any
	for i := 0; i < g.NumNodes(); i++ {
		k, ok := g.IntKey(i)
		if !ok {
			return fmt.Errorf("testgraph: node %s has no integer key", g.Key(i))
		}
		ids = append(ids, k)
	}
	for lo := 0; lo < len(ids); lo += batch {
		if _, err := Run(ctx, d, fmt.Sprintf("UNWIND $ids AS id CREATE (:%s {%s: id})", esc(label), esc(prop)),
			map[string]any{"ids": ids[lo:min(len(ids), lo+batch)]}); err != nil {
			return err
		}
	}
	var edges []any
	flush := func() error {
		if len(edges) == 0 {
			return nil
		}
		_, err := Run(ctx, d, fmt.Sprintf("UNWIND $edges AS e MATCH (a:%[1]s {%[2]s: e[0]}), (b:%[1]s {%[2]s: e[1]}) CREATE (a)-[:%[3]s]->(b)",
			esc(label), esc(prop), esc(relType)), map[string]any{"edges": edges})
		edges = edges[:0]
		return err
	}
	for i := 0; i < g.NumNodes(); i++ {
		for _, j := range g.Neighbors(i) {
			if int(j) > i {
				a, _ := g.IntKey(i)
				b, _ := g.IntKey(int(j))
				edges = append(edges, []any{a, b})
				if len(edges) == batch {
					if err := flush(); err != nil {
						return err
					}
				}
			}
		}
	}
	return flush()
}

// WriteCSV writes g as the CSV files of a bulk import (neo4j-admin
// database import full with --id-type=integer, see neo4jtest.Import) into
// dir: nodes.csv holds one node per node of g, its integer key as the
// import's id and as property prop (an INTEGER), and relationships.csv one
// relationship per edge, from the smaller key to the larger, as Load
// makes them. The label and type are the import's to give
// ("--nodes=Label=nodes.csv"). It returns the two files' paths.
func WriteCSV(g *graph.Graph, dir, prop string) (nodes, relationships string, err error) {
	if strings.ContainsAny(prop, ",:\"\n\r") || prop == "" {
		return "", "", fmt.Errorf("testgraph: property name %q cannot be a CSV header field", prop)
	}
	nodes, relationships = filepath.Join(dir, "nodes.csv"), filepath.Join(dir, "relationships.csv")
	write := func(path, header string, rows func(w *bufio.Writer) error) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		w.WriteString(header + "\n")
		if err := rows(w); err != nil {
			f.Close()
			return err
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	key := func(i int) (int64, error) {
		k, ok := g.IntKey(i)
		if !ok {
			return 0, fmt.Errorf("testgraph: node %s has no integer key", g.Key(i))
		}
		return k, nil
	}
	err = write(nodes, ":ID,"+prop+":long", func(w *bufio.Writer) error {
		buf := make([]byte, 0, 48)
		for i := range g.NumNodes() {
			k, err := key(i)
			if err != nil {
				return err
			}
			buf = strconv.AppendInt(buf[:0], k, 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, k, 10)
			buf = append(buf, '\n')
			w.Write(buf)
		}
		return nil
	})
	if err != nil {
		return "", "", err
	}
	err = write(relationships, ":START_ID,:END_ID", func(w *bufio.Writer) error {
		buf := make([]byte, 0, 48)
		for i := range g.NumNodes() {
			a, err := key(i)
			if err != nil {
				return err
			}
			for _, j := range g.Neighbors(i) {
				if int(j) <= i {
					continue
				}
				b, err := key(int(j))
				if err != nil {
					return err
				}
				buf = strconv.AppendInt(buf[:0], a, 10)
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, b, 10)
				buf = append(buf, '\n')
				w.Write(buf)
			}
		}
		return nil
	})
	if err != nil {
		return "", "", err
	}
	return nodes, relationships, nil
}

// Dump returns every node and relationship (fondue-neo4j's lock and run
// nodes excepted) as sorted lines. Nodes are named by their uid property,
// or, for split clones, their split key, else by their element id; a
// clone's fondue_split_from_id (the original's element id) is replaced by
// the name of its original: two dumps of the same graph are equal whatever
// the element ids, as long as every node has a uid or a split key.
func Dump(ctx context.Context, d neo4j.DriverWithContext) (string, error) {
	names := map[string]string{}
	type node struct {
		labels []string
		props  map[string]any
	}
	nodes := map[string]node{}
	recs, err := Run(ctx, d, "MATCH (n) WHERE NOT n:FondueLock AND NOT n:FondueRun RETURN elementId(n), labels(n), properties(n)", nil)
	if err != nil {
		return "", err
	}
	for _, r := range recs {
		id := r.Values[0].(string)
		props := r.Values[2].(map[string]any)
		name := "eid:" + id
		if u, ok := props["uid"]; ok {
			name = fmt.Sprintf("uid:%v", u)
		} else if k, ok := props["fondue_split_key"]; ok {
			name = fmt.Sprintf("clone:%v", k)
		}
		names[id] = name
		var labels []string
		for _, l := range r.Values[1].([]any) {
			labels = append(labels, l.(string))
		}
		slices.Sort(labels)
		nodes[id] = node{labels, props}
	}
	var lines []string
	for id, n := range nodes {
		if from, ok := n.props["fondue_split_from_id"].(string); ok {
			if name, ok := names[from]; ok {
				n.props["fondue_split_from_id"] = name
			} else {
				n.props["fondue_split_from_id"] = "missing:" + from
			}
		}
		lines = append(lines, fmt.Sprintf("N %s %q %s", names[id], n.labels, jsonOf(n.props)))
	}
	recs, err = Run(ctx, d, "MATCH (a)-[r]->(b) WHERE NOT a:FondueLock AND NOT a:FondueRun AND NOT b:FondueLock AND NOT b:FondueRun RETURN elementId(a), type(r), elementId(b), properties(r)", nil)
	if err != nil {
		return "", err
	}
	for _, r := range recs {
		lines = append(lines, fmt.Sprintf("R %s -[%q %s]-> %s", names[r.Values[0].(string)], r.Values[1], jsonOf(r.Values[3]), names[r.Values[2].(string)]))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n"), nil
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// Diff shows the lines only in a ("- ") or only in b ("+ ").
func Diff(a, b string) string {
	as, bs := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for _, l := range as {
		if !slices.Contains(bs, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range bs {
		if !slices.Contains(as, l) {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}
