package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// DataDirEnv names the environment variable that points at the datasets.
const DataDirEnv = "FONDUE_DATASETS"

// DefaultDataDir is where the datasets are looked for, relative to the
// working directory, when neither --data-dir nor FONDUE_DATASETS is set.
const DefaultDataDir = "../shared/datasets"

// FindDataDir resolves the datasets directory: explicit if set, else the
// FONDUE_DATASETS environment variable, else ../shared/datasets relative to
// the working directory. The error says every place it looked.
func FindDataDir(explicit string) (string, error) {
	var tried []string
	try := func(dir, why string) (string, bool) {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir, true
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			abs = dir
		}
		tried = append(tried, fmt.Sprintf("%s (%s)", abs, why))
		return "", false
	}
	if explicit != "" {
		if d, ok := try(explicit, "--data-dir"); ok {
			return d, nil
		}
		return "", fmt.Errorf("datasets directory not found: %s", tried[0])
	}
	if env := os.Getenv(DataDirEnv); env != "" {
		if d, ok := try(env, DataDirEnv); ok {
			return d, nil
		}
	} else {
		tried = append(tried, DataDirEnv+" (not set)")
	}
	if d, ok := try(DefaultDataDir, "default, relative to the working directory"); ok {
		return d, nil
	}
	return "", fmt.Errorf("datasets directory not found; looked at: %s; set --data-dir or %s", strings.Join(tried, ", "), DataDirEnv)
}

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
