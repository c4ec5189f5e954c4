package dup

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/neo4jcsv"
)

// ACLName is the folder (and file prefix) of acl-dup in the real-data folder.
const ACLName = "acl-dup"

// Halves of acl-dup, as acl-dup.half.tsv names them.
const (
	HalfDev  = "dev"
	HalfTest = "test"
)

// Halves lists the halves in report order.
var Halves = []string{HalfDev, HalfTest}

// Node classes beside a half: a node of a person with a single string
// (of no truth pair; a false positive in both halves) and a node left out
// (a homonym string, or not an Author).
const (
	classSingle  = ""
	classExclude = "-"
)

// ACL is acl-dup loaded: the graph as the engine reads it and the truth.
type ACL struct {
	KG *neo4jcsv.Graph // Targets: the Author nodes; Context: title, year
	// Class is per node its person's half, classSingle or classExclude.
	Class []string
	// Person is per node its person's index (persons with 2+ strings), -1
	// for the others.
	Person []int
	// Kind holds the truth pairs (node indices, a < b): "surface" or "variant".
	Kind map[[2]int]string
	// Truth counts the truth pairs per half and kind ("" = all kinds).
	Truth map[string]map[string]int
}

// LoadACL reads acl-dup from its folder dir: the Neo4j import files (the
// graph, Authors as targets, title and year as evidence) and the truth
// files, checked against each other.
func LoadACL(ctx context.Context, dir string) (*ACL, error) {
	file := func(name string) string { return filepath.Join(dir, name) }
	kg, err := neo4jcsv.Read(ctx, neo4jcsv.Options{
		Nodes:              []string{file("authors.csv"), file("papers.csv"), file("venues.csv")},
		Relationships:      []string{file("wrote.csv"), file("published_in.csv")},
		ScoreLabels:        []string{"Author"},
		EvidenceProperties: []string{"title", "year"},
	})
	if err != nil {
		return nil, err
	}
	n := kg.Graph.NumNodes()
	d := &ACL{KG: kg, Class: make([]string, n), Person: make([]int, n), Kind: map[[2]int]string{}, Truth: map[string]map[string]int{}}
	index := func(path string, line int, uid string) (int, error) {
		i, ok := kg.Graph.Index(uid)
		if !ok {
			return 0, fmt.Errorf("%s:%d: unknown node %q", path, line, uid)
		}
		return i, nil
	}
	for i := range d.Class {
		d.Person[i] = -1
		if !kg.Targets[i] {
			d.Class[i] = classExclude
		}
	}
	half := map[string]string{}
	if err := readTSV(file(ACLName+".half.tsv"), 2, func(line int, f []string) error {
		if f[1] != HalfDev && f[1] != HalfTest {
			return fmt.Errorf("%s:%d: half %q, want dev or test", file(ACLName+".half.tsv"), line, f[1])
		}
		half[f[0]] = f[1]
		return nil
	}); err != nil {
		return nil, err
	}
	persons := 0
	if err := readTSV(file(ACLName+".persons.tsv"), 3, func(line int, f []string) error {
		h, ok := half[f[0]]
		if !ok {
			return fmt.Errorf("%s:%d: person %q has no half", file(ACLName+".persons.tsv"), line, f[0])
		}
		for _, uid := range strings.Fields(f[2]) {
			i, err := index(file(ACLName+".persons.tsv"), line, uid)
			if err != nil {
				return err
			}
			d.Class[i], d.Person[i] = h, persons
		}
		persons++
		return nil
	}); err != nil {
		return nil, err
	}
	if err := readTSV(file(ACLName+".homonyms.tsv"), 1, func(line int, f []string) error {
		i, err := index(file(ACLName+".homonyms.tsv"), line, f[0])
		if err == nil {
			d.Class[i], d.Person[i] = classExclude, -1
		}
		return err
	}); err != nil {
		return nil, err
	}
	path := file(ACLName + ".truth.tsv")
	if err := readTSV(path, 4, func(line int, f []string) error {
		a, err := index(path, line, f[0])
		if err != nil {
			return err
		}
		b, err := index(path, line, f[1])
		if err != nil {
			return err
		}
		if d.Class[a] == classExclude || d.Class[b] == classExclude {
			return nil // a homonym string: left out
		}
		if d.Person[a] != d.Person[b] || d.Person[a] < 0 {
			return fmt.Errorf("%s:%d: %s and %s are not of one person in the persons file", path, line, f[0], f[1])
		}
		d.Kind[[2]int{min(a, b), max(a, b)}] = f[3]
		h := d.Class[a]
		if d.Truth[h] == nil {
			d.Truth[h] = map[string]int{}
		}
		d.Truth[h][f[3]]++
		d.Truth[h][""]++
		return nil
	}); err != nil {
		return nil, err
	}
	// Every pair of strings of a person is a truth pair.
	strs := map[int]int{}
	for _, p := range d.Person {
		if p >= 0 {
			strs[p]++
		}
	}
	want := 0
	for _, k := range strs {
		want += k * (k - 1) / 2
	}
	if want != len(d.Kind) {
		return nil, fmt.Errorf("%s: %d truth pairs, the persons file makes %d", path, len(d.Kind), want)
	}
	return d, nil
}

// readTSV calls row with every line after the header, split on tabs, the
// line checked to have at least fields fields.
func readTSV(path string, fields int, row func(line int, f []string) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if line == 1 {
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) < fields {
			return fmt.Errorf("%s:%d: %d fields, want %d", path, line, len(f), fields)
		}
		if err := row(line, f); err != nil {
			return err
		}
	}
	return sc.Err()
}
