package bench

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
)

// fingerprint identifies everything a seed's numbers depend on besides its
// dataset, ratio and seed, so that a journal entry is reused only when it
// would be computed the same way again.
func (cfg Config) fingerprint(ident, split bool) string {
	type fp struct {
		Engine    setup.Engine
		Methods   []string
		Splitters []string
		Ident     bool
		Split     bool
		Version   int
	}
	var m, s []string
	if ident {
		m = slices.Sorted(slices.Values(cfg.Methods))
	}
	if split {
		s = slices.Sorted(slices.Values(cfg.Splitters))
	}
	b, _ := json.Marshal(fp{setup.NewEngine(cfg.Engine), m, s, ident, split, journalVersion})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// journalVersion changes when the meaning of a journal entry changes.
const journalVersion = 1

type seedKey struct {
	dataset string
	ratio   string
	seed    int
}

// journal appends finished seeds to a JSON-lines file.
type journalFile struct {
	f *os.File
}

func (j *journalFile) add(sr *SeedResult) error {
	b, err := json.Marshal(sr)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("journal %s: %w", j.f.Name(), err)
	}
	return j.f.Sync()
}

func (j *journalFile) Close() error { return j.f.Close() }

// openJournal reads the seeds already in path (unless fresh) and opens it
// for appending. A torn last line (a crash mid-write) is ignored.
func openJournal(path string, fresh bool) (map[seedKey]*SeedResult, *journalFile, error) {
	old := map[seedKey]*SeedResult{}
	if path == "" {
		return old, nil, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, err
	}
	if !fresh {
		if err := readJournal(path, old); err != nil {
			return nil, nil, err
		}
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if fresh {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return old, &journalFile{f}, nil
}

func readJournal(path string, into map[seedKey]*SeedResult) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return readSeeds(f, func(sr *SeedResult) {
		into[seedKey{sr.Dataset, RatioKey(sr.Ratio), sr.Seed}] = sr
	})
}

// readSeeds reads a journal (JSON lines of SeedResult), calling fn for each
// complete line; later lines win over earlier ones for the same seed in the
// caller's map. A malformed line is skipped (a torn write).
func readSeeds(r io.Reader, fn func(*SeedResult)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		var sr SeedResult
		if json.Unmarshal(sc.Bytes(), &sr) != nil || sr.Dataset == "" {
			continue
		}
		fn(&sr)
	}
	return sc.Err()
}
