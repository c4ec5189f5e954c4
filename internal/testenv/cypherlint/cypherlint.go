// Package cypherlint checks Cypher against Neo4j 5's own grammar and
// semantic analysis, using the npm package @neo4j-cypher/language-support
// (the parser behind Neo4j's tools), run by Node.js.
//
// The statements also run on the Neo4j 5 test servers (internal/testenv/neo4jtest);
// this check adds what running them does not show: every variant a template
// can render is checked, and deprecations (which a server only reports as
// notifications) fail the build like syntax and semantic errors.
//
// The npm package is installed once per machine into the cache directory
// shared with neo4jtest ($TESTENV_CACHE, default
// $HOME/.cache/fondue-neo4j), from the pinned package-lock.json in npm/.
package cypherlint

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/toolcache"
)

// PackageVersion is the pinned version of @neo4j-cypher/language-support:
// the newest whose engines field accepts Node 18.18.2 and later (later
// releases need Node 22 or 24).
const PackageVersion = "2.0.0-next.20"

// minNode is the oldest Node.js the package supports.
var minNode = [3]int{18, 18, 2}

// installName names the installed directory; bump the suffix when the
// embedded files change.
const installName = "cypher-language-support-" + PackageVersion + "-r2"

var (
	//go:embed npm/package.json
	packageJSON []byte
	//go:embed npm/package-lock.json
	packageLock []byte
	//go:embed npm/lint.cjs
	lintScript []byte
)

// Severity of a diagnostic, as in the Language Server Protocol.
type Severity int

const (
	Error       Severity = 1
	Warning     Severity = 2
	Information Severity = 3
	Hint        Severity = 4
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Information:
		return "information"
	case Hint:
		return "hint"
	}
	return "severity " + strconv.Itoa(int(s))
}

// Kinds of diagnostics.
const (
	KindSyntax      = "syntax"      // the query does not parse (an Error)
	KindSemantic    = "semantic"    // it parses but is invalid, e.g. an undefined variable or a type mismatch (an Error; Neo4j reports both kinds as Neo.ClientError.Statement.SyntaxError)
	KindDeprecation = "deprecation" // works but is deprecated (a Warning)
	KindWarning     = "warning"     // any other warning
	KindInternal    = "internal"    // the linter itself failed on this query (an Error)
)

// Diagnostic is one problem found in a query.
type Diagnostic struct {
	Severity Severity
	Kind     string // one of the Kind constants
	Message  string
	// Position of the problem: 1-based line and column (in characters), and
	// 0-based byte offsets into the query [Offset, EndOffset).
	Line, Column      int
	Offset, EndOffset int
}

// IsError reports whether the diagnostic must fail a check (syntax,
// semantic and internal errors).
func (d Diagnostic) IsError() bool { return d.Severity == Error }

func (d Diagnostic) String() string {
	return fmt.Sprintf("line %d, column %d: %s (%s): %s", d.Line, d.Column, d.Severity, d.Kind, d.Message)
}

// Errors keeps only the diagnostics that must fail a check, dropping
// queries without any.
func Errors(results map[string][]Diagnostic) map[string][]Diagnostic {
	out := map[string][]Diagnostic{}
	for name, ds := range results {
		for _, d := range ds {
			if d.IsError() {
				out[name] = append(out[name], d)
			}
		}
	}
	return out
}

// Linter runs the installed linter.
type Linter struct {
	dir  string // installation with node_modules and lint.cjs
	node string // path of the node executable
}

// Options configure New. The zero value is fine.
type Options struct {
	// CacheDir overrides the cache directory.
	CacheDir string
	// Logf receives progress messages; may be nil.
	Logf func(format string, args ...any)
}

// New installs the linter if needed (npm ci of the pinned package, a few
// seconds, once per machine) and returns it. It fails, saying why, if node
// or npm is missing or too old, or if the install fails.
func New(ctx context.Context, opts Options) (*Linter, error) {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("cypherlint: node not found on PATH (Node.js >= %d.%d.%d runs @neo4j-cypher/language-support): %w", minNode[0], minNode[1], minNode[2], err)
	}
	if err := checkNodeVersion(ctx, node); err != nil {
		return nil, err
	}
	cache := opts.CacheDir
	if cache == "" {
		if cache, err = toolcache.Dir(); err != nil {
			return nil, fmt.Errorf("cypherlint: %w", err)
		}
	}
	note := "@neo4j-cypher/language-support " + PackageVersion + " for fondue-neo4j's cypherlint"
	dir, err := toolcache.Ensure(ctx, cache, installName, note, func(ctx context.Context, staging, scratch string) error {
		logf("cypherlint: installing @neo4j-cypher/language-support@%s with npm ci (once per machine)", PackageVersion)
		return npmInstall(ctx, staging, scratch)
	})
	if err != nil {
		return nil, fmt.Errorf("cypherlint: install @neo4j-cypher/language-support@%s into %s: %w", PackageVersion, cache, err)
	}
	return &Linter{dir: dir, node: node}, nil
}

var nodeVersionRE = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)`)

func checkNodeVersion(ctx context.Context, node string) error {
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return fmt.Errorf("cypherlint: `node --version` failed: %w", err)
	}
	m := nodeVersionRE.FindStringSubmatch(strings.TrimSpace(string(out)))
	if m == nil {
		return fmt.Errorf("cypherlint: cannot read the Node.js version from %q", out)
	}
	for i := 0; i < 3; i++ {
		v, _ := strconv.Atoi(m[i+1])
		if v != minNode[i] {
			if v < minNode[i] {
				return fmt.Errorf("cypherlint: Node.js %s is too old: @neo4j-cypher/language-support@%s needs >= %d.%d.%d",
					strings.TrimSpace(string(out)), PackageVersion, minNode[0], minNode[1], minNode[2])
			}
			break
		}
	}
	return nil
}

func npmInstall(ctx context.Context, staging, scratch string) error {
	if _, err := exec.LookPath("npm"); err != nil {
		return fmt.Errorf("npm not found on PATH: %w", err)
	}
	for name, data := range map[string][]byte{"package.json": packageJSON, "package-lock.json": packageLock, "lint.cjs": lintScript} {
		if err := os.WriteFile(filepath.Join(staging, name), data, 0o644); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, "npm", "ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund",
		"--cache", filepath.Join(scratch, "npm-cache"))
	cmd.Dir = staging
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("`npm ci` failed: %v\n%s", err, lastLines(out.String(), 20))
	}
	if _, err := os.Stat(filepath.Join(staging, "node_modules", "@neo4j-cypher", "language-support", "package.json")); err != nil {
		return fmt.Errorf("`npm ci` did not install @neo4j-cypher/language-support: %w", err)
	}
	return nil
}

// Lint checks every query with one Node.js process and returns the
// diagnostics per query name (an empty slice for a clean query). The error
// is for failures of the linter itself, not for problems in the queries.
// Parameters ($name) are treated as declared; no database schema is
// assumed, so unknown labels, properties and procedures are not reported.
func (l *Linter) Lint(ctx context.Context, queries map[string]string) (map[string][]Diagnostic, error) {
	results := make(map[string][]Diagnostic, len(queries))
	if len(queries) == 0 {
		return results, nil
	}
	input, err := json.Marshal(map[string]any{"queries": queries})
	if err != nil {
		return nil, fmt.Errorf("cypherlint: %w", err)
	}
	cmd := exec.CommandContext(ctx, l.node, filepath.Join(l.dir, "lint.cjs"))
	cmd.Dir = l.dir
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("cypherlint: node lint.cjs failed: %v\n%s", err, lastLines(stderr.String(), 20))
	}
	var out struct {
		Results map[string][]struct {
			Severity int    `json:"severity"`
			Kind     string `json:"kind"`
			Message  string `json:"message"`
			Start    int    `json:"start"`
			End      int    `json:"end"`
		} `json:"results"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("cypherlint: unreadable linter output (%v): %.200q", err, stdout.String())
	}
	for name, q := range queries {
		raw, ok := out.Results[name]
		if !ok {
			return nil, fmt.Errorf("cypherlint: no result for query %q", name)
		}
		ds := make([]Diagnostic, 0, len(raw))
		for _, r := range raw {
			start, end := utf16ToByte(q, r.Start), utf16ToByte(q, r.End)
			line, col := position(q, start)
			ds = append(ds, Diagnostic{
				Severity: Severity(r.Severity), Kind: r.Kind, Message: r.Message,
				Line: line, Column: col, Offset: start, EndOffset: end,
			})
		}
		sort.SliceStable(ds, func(i, j int) bool { return ds[i].Offset < ds[j].Offset })
		results[name] = ds
	}
	return results, nil
}

// Lint is New(ctx, Options{}) followed by Lint.
func Lint(ctx context.Context, queries map[string]string) (map[string][]Diagnostic, error) {
	l, err := New(ctx, Options{})
	if err != nil {
		return nil, err
	}
	return l.Lint(ctx, queries)
}

// utf16ToByte converts an offset in UTF-16 code units (JavaScript string
// indices) into a byte offset into s.
func utf16ToByte(s string, units int) int {
	n := 0
	for i, r := range s {
		if n >= units {
			return i
		}
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return len(s)
}

// position returns the 1-based line and column (in characters) of a byte
// offset.
func position(s string, offset int) (line, col int) {
	before := s[:offset]
	line = 1 + strings.Count(before, "\n")
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	return line, 1 + utf8.RuneCountInString(before)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
