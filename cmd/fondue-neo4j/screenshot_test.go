package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/review"
)

// The README's screenshot of the review page (docs/review.png) shows the
// page this build writes: the picture carries the review command that
// wrote its page and the page's digest (the screenshot command the README
// names makes it), and the same command, run here, writes a page with the
// same digest. A change of the scores, the splitter or the page fails it:
// regenerate the picture then.
func TestReadmeScreenshotIsCurrent(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	made := regexp.MustCompile("go run \\./internal/[a-z/]*screenshot").Find(readme)
	if !strings.Contains(string(readme), "](docs/review.png)") || made == nil {
		t.Fatal("README.md does not show docs/review.png and say how it is made (go run ./internal/.../screenshot)")
	}
	regenerate := "regenerate it from the repository's root: " + string(made)
	shot, err := os.ReadFile("../../docs/review.png")
	if err != nil {
		t.Fatal(err)
	}
	kv, err := review.PNGText(shot)
	if err != nil {
		t.Fatalf("docs/review.png: %v", err)
	}
	command, digest := kv[review.ScreenshotCommandKey], kv[review.ScreenshotPageKey]
	if command == "" || digest == "" {
		t.Fatalf("docs/review.png does not say which page it shows (no %s and %s text): %s", review.ScreenshotCommandKey, review.ScreenshotPageKey, regenerate)
	}
	args := strings.Fields(command)
	if len(args) < 2 || args[0] != "review" || slices.Contains(args, "--output-file") {
		t.Fatalf("docs/review.png shows the page of %q: not a review command without its output file", command)
	}
	page := filepath.Join(t.TempDir(), "review.html")
	t.Chdir("../..") // the command's paths are the repository's
	code, _, stderr := runCLI(t, "", append(args, "--output-file", page)...)
	if code != 0 {
		t.Fatalf("fondue-neo4j %s: exit %d: %s", command, code, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	got, err := review.PageDigest(html)
	if err != nil {
		t.Fatal(err)
	}
	if got != digest {
		t.Errorf("docs/review.png shows another page than this build writes for \"fondue-neo4j %s\" (%s, now %s): %s", command, digest, got, regenerate)
	}
}
