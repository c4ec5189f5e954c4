package graph

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// readEdgesFile reads the whitespace edge lists of testdata ("u v" lines of
// integer ids, '#' comments) as package edgelist does, which tests of this
// package cannot import (it imports this package).
func readEdgesFile(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b Builder
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) < 2 {
			return nil, &os.PathError{Op: "read", Path: path, Err: strconv.ErrSyntax}
		}
		u, err1 := strconv.ParseInt(fields[0], 10, 64)
		v, err2 := strconv.ParseInt(fields[1], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, &os.PathError{Op: "read line " + strconv.Itoa(line), Path: path, Err: strconv.ErrSyntax}
		}
		b.AddIntEdge(u, v)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return b.Build(), nil
}

func TestReadEdgesFile(t *testing.T) {
	g, err := readEdgesFile("../testdata/netscience.edges")
	if err != nil {
		t.Fatal(err)
	}
	if g.NumNodes() != 379 || g.NumEdges() != 914 {
		t.Fatalf("netscience: %d nodes, %d edges; want 379, 914", g.NumNodes(), g.NumEdges())
	}
}
