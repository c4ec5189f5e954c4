package browser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFind(t *testing.T) {
	t.Setenv(EnvChromium, filepath.Join(t.TempDir(), "no-chrome"))
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), EnvChromium+"=") {
		t.Errorf("a missing %s: %v", EnvChromium, err)
	}
	t.Setenv(EnvChromium, "")
	t.Setenv("PATH", t.TempDir())
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), "no Chromium found: none of chromium") {
		t.Errorf("no browser on PATH: %v", err)
	}
}

// The protocol round trip: evaluate, errors from the page, a closed browser.
func TestBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	path, err := Ensure(ctx, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Start(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.NewPage(ctx, 800, 600)
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "p.html")
	os.WriteFile(page, []byte(`<!doctype html><title>t</title><button id=b onclick="this.textContent='clicked'">x</button>`), 0o644)
	if err := p.Navigate(ctx, "file://"+page); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := p.Eval(ctx, `Promise.resolve(40 + 2)`, &n); err != nil || n != 42 {
		t.Errorf("eval: %d %v", n, err)
	}
	if err := p.Eval(ctx, `(() => { throw new Error("boom") })()`, nil); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a throwing script: %v", err)
	}
	if err := p.Click(ctx, "#b"); err != nil {
		t.Fatal(err)
	}
	var text string
	if err := p.Eval(ctx, `document.getElementById("b").textContent`, &text); err != nil || text != "clicked" {
		t.Errorf("after the click: %q %v", text, err)
	}
	if err := p.Click(ctx, "#nothing"); err == nil || !strings.Contains(err.Error(), "no element matches #nothing") {
		t.Errorf("clicking nothing: %v", err)
	}
	dir := b.dataDir
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("profile %s left behind: %v", dir, err)
	}
	if err := p.Eval(ctx, `1`, nil); err == nil {
		t.Error("a closed browser answered")
	}
}
