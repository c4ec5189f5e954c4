package bench

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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
	link := regexp.MustCompile(`\]\(([^)#]*method\.md)[^)]*\)`)
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
