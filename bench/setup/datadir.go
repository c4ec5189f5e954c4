package setup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DataDirEnv names the environment variable that points at the datasets.
const DataDirEnv = "BENCH_DATASETS"

// DefaultDataDir is where the datasets are looked for, relative to the
// working directory, when neither --data-dir nor BENCH_DATASETS is set.
const DefaultDataDir = "../shared/datasets"

// FindDataDir resolves the datasets directory: explicit if set, else the
// BENCH_DATASETS environment variable, else ../shared/datasets relative to
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
