package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// declaredOptions lists the syncjob.Option constants of the job library's
// packages, read from their source: those of syncjob (type Option) and of
// its stores (type syncjob.Option).
func declaredOptions(t *testing.T) []syncjob.Option {
	t.Helper()
	var out []syncjob.Option
	for _, dir := range []string{"syncjob", "syncjob/memstore", "connector"} {
		files, err := filepath.Glob(filepath.Join("../../..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range af.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, sp := range gd.Specs {
					vs := sp.(*ast.ValueSpec)
					if !isOptionType(vs.Type) {
						continue
					}
					for _, v := range vs.Values {
						lit, ok := v.(*ast.BasicLit)
						if !ok {
							t.Fatalf("%s: an Option constant that is not a string literal", f)
						}
						s, _ := strconv.Unquote(lit.Value)
						out = append(out, syncjob.Option(s))
					}
				}
			}
		}
	}
	return out
}

func isOptionType(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "Option"
	case *ast.SelectorExpr:
		return e.Sel.Name == "Option" && e.X.(*ast.Ident).Name == "syncjob"
	}
	return false
}

// Every option the job library's messages name is fed by exactly one
// setting that a config file can hold (and by the settings that cannot,
// named by their variable), so that the CLI names it in its own words.
func TestEveryOptionHasASetting(t *testing.T) {
	declared := declaredOptions(t)
	if len(declared) < 20 {
		t.Fatalf("found %d Option constants, want the 20 and more of syncjob and connector", len(declared))
	}
	inFile := map[syncjob.Option][]string{}
	for _, s := range Settings() {
		for _, o := range s.Feeds {
			if s.NotInFile == "" {
				inFile[o] = append(inFile[o], s.Key)
			}
		}
	}
	seen := map[syncjob.Option]bool{}
	for _, o := range declared {
		if seen[o] {
			t.Errorf("Option %q is declared twice", o)
		}
		seen[o] = true
		if len(inFile[o]) != 1 {
			t.Errorf("Option %q is fed by the settings %v, want one", o, inFile[o])
		}
	}
	for o := range inFile {
		if !seen[o] {
			t.Errorf("a setting feeds %q, which is no Option constant", o)
		}
	}
}

func TestOptionName(t *testing.T) {
	for o, want := range map[syncjob.Option]string{
		syncjob.OptWriteNodeLabels:     "write.node_labels",
		syncjob.OptPlanIDProperty:      "graph.id_property",
		syncjob.OptLockTTL:             "lock.ttl",
		"Config.Password":              "FONDUE_NEO4J_PASSWORD or neo4j.password_file",
		syncjob.Option("Nothing.Else"): "",
	} {
		if got := OptionName(o); got != want {
			t.Errorf("OptionName(%q) = %q, want %q", o, got, want)
		}
	}
}
