package real

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// readContext reads the knowledge-graph context of a set's graph from the
// Neo4j import node files (*.csv with an :ID column) in dir: each node's
// labels (sorted, joined by ":") and the named evidence properties (a
// property typed int, long, float or double is numeric, any other text).
// It returns nil when dir has no node file. Nodes of the files that are
// not in g are ignored.
func readContext(dir string, g *graph.Graph, props []string) (*evidence.Context, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	n := g.NumNodes()
	c := &evidence.Context{Kind: make([]int32, n)}
	for i := range c.Kind {
		c.Kind[i] = -1
	}
	kinds := map[string]int32{}
	prop := make([]*evidence.Property, len(props))
	found := false
	for _, file := range files {
		if err := readNodeFile(file, g, c, kinds, props, prop, &found); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, nil
	}
	for k, p := range prop {
		if p == nil { // no file has it: text, absent everywhere
			p = &evidence.Property{Name: props[k], Text: make([]string, n)}
		}
		c.Properties = append(c.Properties, *p)
	}
	return c, c.Check(n)
}

func readNodeFile(file string, g *graph.Graph, c *evidence.Context, kinds map[string]int32, props []string, prop []*evidence.Property, found *bool) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return &ParseError{File: file, Line: 1, Msg: "no header line"}
	}
	idCol, labelCol := -1, -1
	propCol := make([]int, len(props))
	for k := range propCol {
		propCol[k] = -1
	}
	for col, h := range header {
		name, typ, _ := strings.Cut(h, ":")
		switch {
		case strings.HasPrefix(typ, "ID"):
			idCol = col
		case typ == "LABEL":
			labelCol = col
		case name != "":
			if k := slices.Index(props, name); k >= 0 {
				propCol[k] = col
				numeric := slices.Contains([]string{"int", "long", "float", "double", "short", "byte"}, strings.ToLower(typ))
				if prop[k] == nil {
					prop[k] = &evidence.Property{Name: name, Numeric: numeric}
					if numeric {
						prop[k].Number = make([]float64, g.NumNodes())
						for i := range prop[k].Number {
							prop[k].Number[i] = math.NaN()
						}
					} else {
						prop[k].Text = make([]string, g.NumNodes())
					}
				} else if prop[k].Numeric != numeric {
					return &ParseError{File: file, Line: 1, Msg: fmt.Sprintf("property %s is a number in one file and text in another", name)}
				}
			}
		}
	}
	if idCol < 0 {
		return nil // a relationship file
	}
	*found = true
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return &ParseError{File: file, Line: line, Msg: err.Error()}
		}
		if idCol >= len(rec) {
			return &ParseError{File: file, Line: line, Msg: "too few fields"}
		}
		i, ok := g.Index(rec[idCol])
		if !ok {
			continue
		}
		if labelCol >= 0 && labelCol < len(rec) {
			labels := strings.Split(rec[labelCol], ";")
			slices.Sort(labels)
			kind := strings.Join(labels, ":")
			k, ok := kinds[kind]
			if !ok {
				k = int32(len(c.Kinds))
				kinds[kind] = k
				c.Kinds = append(c.Kinds, kind)
			}
			c.Kind[i] = k
		}
		for k, col := range propCol {
			if col < 0 || col >= len(rec) || rec[col] == "" {
				continue
			}
			if prop[k].Numeric {
				v, err := strconv.ParseFloat(rec[col], 64)
				if err != nil {
					return &ParseError{File: file, Line: line, Msg: fmt.Sprintf("%s %q is not a number", props[k], rec[col])}
				}
				prop[k].Number[i] = v
			} else {
				prop[k].Text[i] = rec[col]
			}
		}
	}
}
