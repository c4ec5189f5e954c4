package bench

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every citation of the method's reference ("method.md section 5.4",
// "method.md §9") points to a section of docs/method.md, and every link to
// it resolves.
func TestMethodReferencesResolve(t *testing.T) {
	doc, err := os.ReadFile("../docs/method.md")
	if err != nil {
		t.Fatalf("the method's reference is missing: %v", err)
	}
	sections := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#{2,3} (\d+(?:\.\d+)?)\.? `).FindAllStringSubmatch(string(doc), -1) {
		sections[m[1]] = true
	}
	cite := regexp.MustCompile(`method\.md(?:\]\([^)]*\))?\)? (?:section |§ ?)(\d+(?:\.\d+)?)`)
	link := regexp.MustCompile(`\]\(((?:[^)#]*/)?method\.md)[^)]*\)`)
	cited := 0
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".cache")) {
			return filepath.SkipDir
		}
		if ext := filepath.Ext(path); d.IsDir() || ext != ".go" && ext != ".md" || path == filepath.Join("..", "docs", "method.md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range cite.FindAllStringSubmatch(string(b), -1) {
			cited++
			if !sections[m[1]] {
				t.Errorf("%s cites method.md section %s, which docs/method.md does not have", path, m[1])
			}
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(path), m[1])); err != nil {
				t.Errorf("%s links to %s, which does not exist", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited < 10 {
		t.Fatalf("only %d citations found: is the pattern right?", cited)
	}
}

// .ci/run runs the README's test command first, then fuzzes a bounded
// number of inputs with fuzz targets that exist (a -fuzz pattern matching
// none fuzzes nothing and passes). The budgets are counts: a timed one can
// fail at its deadline having found nothing (go.dev/issue/75804).
func TestCIRun(t *testing.T) {
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(readme), "Run the tests:\n\n```\n")
	command, _, _ := strings.Cut(after, "\n")
	lines := strings.Split(string(ci), "\n")
	if command == "" || !slices.Contains(lines, command) {
		t.Fatalf(".ci/run does not run the README's test command %q", command)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "go test") {
			if l != command {
				t.Errorf(".ci/run runs %q before the README's test command %q", l, command)
			}
			break
		}
	}
	fuzz := regexp.MustCompile(`^go test -run '\^\$' -fuzz '\^(\w+)\$' -fuzztime (\d+)x (\./[\w/]+)/$`)
	total := 0
	for _, l := range lines {
		if !strings.Contains(l, "-fuzz") {
			continue
		}
		m := fuzz.FindStringSubmatch(l)
		if m == nil {
			t.Errorf(".ci/run: fuzz line %q: want go test -run '^$' -fuzz '^Name$' -fuzztime Nx ./pkg/", l)
			continue
		}
		inputs, _ := strconv.Atoi(m[2])
		total += inputs
		found := false
		files, _ := filepath.Glob(filepath.Join("..", m[3], "*_test.go"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			found = found || strings.Contains(string(b), "func "+m[1]+"(f *testing.F)")
		}
		if !found {
			t.Errorf(".ci/run fuzzes %s in %s, which has no such fuzz target", m[1], m[3])
		}
	}
	if total == 0 || total > 1_000_000 {
		t.Errorf(".ci/run fuzzes %d inputs in all: want some, bounded (at most a million)", total)
	}
}

// Every source file the documentation names by its path from the
// repository's root (`fondue/cne/gradient.go`) exists, so that the docs
// follow the code when files move.
func TestDocumentedSourcePathsExist(t *testing.T) {
	path := regexp.MustCompile("`((?:fondue|bench|cmd|internal|connector|syncjob|cypher)/[A-Za-z0-9_./-]+\\.(?:go|s))`")
	docs, err := filepath.Glob("../*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, glob := range []string{"../bench/*.md", "../docs/*.md"} {
		more, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, more...)
	}
	named := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range path.FindAllStringSubmatch(string(b), -1) {
			named++
			if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
				t.Errorf("%s names %s, which does not exist", doc, m[1])
			}
		}
	}
	if named < 20 {
		t.Fatalf("only %d source paths found in the docs: is the pattern right?", named)
	}
}
