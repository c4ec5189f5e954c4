package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// LoadDataset reads a dataset's edge list from dir.
func LoadDataset(dir string, d PaperDataset) (*graph.Graph, error) {
	if !d.Available() {
		return nil, fmt.Errorf("dataset %s is not available: %s", d.Name, d.Unavailable)
	}
	path := filepath.Join(dir, d.File)
	g, _, err := edgelist.ReadFile(path, edgelist.HeaderAuto)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("dataset %s: %s not found", d.Name, path)
	}
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", d.Name, err)
	}
	return g, nil
}

// AvailableDatasets returns the names of the paper's datasets we have, in
// the paper's table order.
func (p *PaperData) AvailableDatasets() []string {
	var out []string
	for _, d := range p.Datasets {
		if d.Available() {
			out = append(out, d.Name)
		}
	}
	return out
}
