// Package browser drives a headless Chromium for tests, with the Chrome
// DevTools protocol over a pipe (--remote-debugging-pipe: JSON messages
// separated by NUL bytes on file descriptors 3 and 4), so that it needs
// nothing but the standard library and a Chromium binary.
//
// Ensure finds the binary ($TESTENV_CHROMIUM, else chromium, chromium-browser,
// google-chrome on PATH) and, if there is none, installs Debian's chromium
// package with apt-get once per machine (as root, which CI and the
// developers' machines are); otherwise it fails naming what is missing.
package browser

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/toolcache"
)

// EnvChromium names a Chrome or Chromium binary to use.
const EnvChromium = "TESTENV_CHROMIUM"

var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// Find returns the path of a Chromium binary, or an error naming what is missing.
func Find() (string, error) {
	if p := os.Getenv(EnvChromium); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvChromium, p, err)
		}
		return p, nil
	}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium found: none of %s is on PATH and %s is not set", strings.Join(candidates, ", "), EnvChromium)
}

// Ensure returns a Chromium binary, installing Debian's chromium package
// with apt-get when there is none (once per machine: later runs find it).
func Ensure(ctx context.Context, logf func(string, ...any)) (string, error) {
	present := func() bool { _, err := Find(); return err == nil }
	if err := toolcache.AptInstall(ctx, present, logf, "chromium"); err != nil {
		if errors.Is(err, toolcache.ErrNoApt) {
			return "", fmt.Errorf("no Chromium found, and it cannot be installed here (needs apt-get as root): install Debian's chromium package (apt-get install chromium) or set %s to a Chrome or Chromium binary", EnvChromium)
		}
		return "", fmt.Errorf("installing chromium: %w", err)
	}
	return Find()
}

// Browser is a running headless Chromium.
type Browser struct {
	cmd                  *exec.Cmd
	toChrome, fromChrome *os.File
	dataDir              string

	writeMu sync.Mutex // one message at a time on the pipe
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan message
	waiters []*waiter
	closed  bool
	readErr error
	done    chan struct{}
	stderr  *tailBuffer
}

type message struct {
	ID        int64           `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

type waiter struct {
	method, session string
	match           func(json.RawMessage) bool
	ch              chan json.RawMessage
}

// Start starts a headless Chromium with a fresh profile in a temporary
// directory (removed by Close).
func Start(ctx context.Context, path string) (*Browser, error) {
	dataDir, err := os.MkdirTemp("", "fondue-chromium-")
	if err != nil {
		return nil, err
	}
	chromeIn, toChrome, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromChrome, chromeOut, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	args := []string{"--headless", "--remote-debugging-pipe", "--user-data-dir=" + dataDir,
		"--disable-gpu", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
		"--disable-background-networking", "--disable-sync", "--disable-component-update",
		"--hide-scrollbars", "--mute-audio", "--font-render-hinting=none", "about:blank"}
	if os.Geteuid() == 0 {
		args = append([]string{"--no-sandbox"}, args...) // Chromium refuses to run its sandbox as root
	}
	cmd := exec.Command(path, args...)
	cmd.ExtraFiles = []*os.File{chromeIn, chromeOut} // file descriptors 3 and 4
	b := &Browser{cmd: cmd, toChrome: toChrome, fromChrome: fromChrome, dataDir: dataDir,
		pending: map[int64]chan message{}, stderr: &tailBuffer{}}
	cmd.Stdout, cmd.Stderr = b.stderr, b.stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dataDir)
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	chromeIn.Close()
	chromeOut.Close()
	go b.read()
	// The browser answers once it is up.
	var v struct {
		Product string `json:"product"`
	}
	if err := b.Call(ctx, "", "Browser.getVersion", nil, &v); err != nil {
		b.Close()
		return nil, fmt.Errorf("chromium did not start: %w (its output: %s)", err, b.stderr.String())
	}
	return b, nil
}

func (b *Browser) read() {
	r := bufio.NewReaderSize(b.fromChrome, 1<<20)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			break
		}
		var m message
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				delete(b.pending, m.ID)
				ch <- m
			}
		} else {
			kept := b.waiters[:0]
			for _, w := range b.waiters {
				if w.method == m.Method && w.session == m.SessionID && (w.match == nil || w.match(m.Params)) {
					w.ch <- m.Params
					continue
				}
				kept = append(kept, w)
			}
			b.waiters = kept
		}
		b.mu.Unlock()
	}
	b.mu.Lock()
	b.closed = true
	for id, ch := range b.pending {
		close(ch)
		delete(b.pending, id)
	}
	b.mu.Unlock()
}

// Call sends a command (to the browser, or to the page of sessionID) and
// decodes its result into result (nil: ignored).
func (b *Browser) Call(ctx context.Context, sessionID, method string, params, result any) error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return fmt.Errorf("%s: the browser is gone", method)
	}
	b.nextID++
	id := b.nextID
	ch := make(chan message, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if sessionID != "" {
		msg["sessionId"] = sessionID
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	b.writeMu.Lock()
	_, err = b.toChrome.Write(append(data, 0))
	b.writeMu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: the browser closed the connection", method)
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Expect registers interest in the next event method (of sessionID) whose
// parameters satisfy match (nil: any); call it before the command that
// causes the event, then receive from the channel.
func (b *Browser) Expect(sessionID, method string, match func(json.RawMessage) bool) <-chan json.RawMessage {
	w := &waiter{method: method, session: sessionID, match: match, ch: make(chan json.RawMessage, 1)}
	b.mu.Lock()
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	return w.ch
}

// Close stops the browser and removes its profile.
func (b *Browser) Close() error {
	b.mu.Lock()
	wasClosed := b.closed
	b.mu.Unlock()
	if !wasClosed {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = b.Call(ctx, "", "Browser.close", nil, nil)
		cancel()
	}
	b.toChrome.Close()
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		b.cmd.Process.Kill()
		<-exited
	}
	b.fromChrome.Close()
	return os.RemoveAll(b.dataDir)
}

// Page is one tab.
type Page struct {
	b       *Browser
	session string
}

// NewPage opens a tab of the given size in CSS pixels.
func (b *Browser) NewPage(ctx context.Context, width, height int) (*Page, error) {
	var t struct {
		TargetID string `json:"targetId"`
	}
	if err := b.Call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &t); err != nil {
		return nil, err
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": t.TargetID, "flatten": true}, &s); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: s.SessionID}
	for _, c := range []struct {
		method string
		params any
	}{
		{"Page.enable", nil},
		{"Runtime.enable", nil},
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}},
	} {
		if err := p.call(ctx, c.method, c.params, nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *Page) call(ctx context.Context, method string, params, result any) error {
	return p.b.Call(ctx, p.session, method, params, result)
}

// Navigate loads url and waits for its load event.
func (p *Page) Navigate(ctx context.Context, url string) error {
	loaded := p.b.Expect(p.session, "Page.loadEventFired", nil)
	var r struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.call(ctx, "Page.navigate", map[string]any{"url": url}, &r); err != nil {
		return err
	}
	if r.ErrorText != "" {
		return fmt.Errorf("navigate to %s: %s", url, r.ErrorText)
	}
	select {
	case <-loaded:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("navigate to %s: no load event: %w", url, ctx.Err())
	}
}

// Eval evaluates a JavaScript expression (awaiting a promise) and decodes
// its value into result (nil: ignored). A thrown exception is an error.
func (p *Page) Eval(ctx context.Context, expr string, result any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if e := r.ExceptionDetails; e != nil {
		return fmt.Errorf("javascript: %s %s", e.Text, e.Exception.Description)
	}
	if result != nil && len(r.Result.Value) > 0 {
		return json.Unmarshal(r.Result.Value, result)
	}
	return nil
}

// Point is a position in CSS pixels of the viewport.
type Point struct{ X, Y float64 }

// Center scrolls the first element matching selector into view and returns
// its centre.
func (p *Page) Center(ctx context.Context, selector string) (Point, error) {
	sel, _ := json.Marshal(selector)
	var pt *Point
	err := p.Eval(ctx, `(() => { const e = document.querySelector(`+string(sel)+`); if (!e) return null;
		e.scrollIntoView({block: "center", inline: "center"}); const r = e.getBoundingClientRect();
		return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`, &pt)
	if err != nil {
		return Point{}, err
	}
	if pt == nil {
		return Point{}, fmt.Errorf("no element matches %s", selector)
	}
	return *pt, nil
}

func (p *Page) mouse(ctx context.Context, typ string, at Point, buttons int) error {
	params := map[string]any{"type": typ, "x": at.X, "y": at.Y, "button": "left", "buttons": buttons, "clickCount": 1, "pointerType": "mouse"}
	if typ == "mouseMoved" && buttons == 0 {
		params["button"] = "none"
	}
	return p.call(ctx, "Input.dispatchMouseEvent", params, nil)
}

// Click clicks the middle of the first element matching selector, with
// real mouse events.
func (p *Page) Click(ctx context.Context, selector string) error {
	at, err := p.Center(ctx, selector)
	if err != nil {
		return err
	}
	for _, step := range []struct {
		typ     string
		buttons int
	}{{"mouseMoved", 0}, {"mousePressed", 1}, {"mouseReleased", 0}} {
		if err := p.mouse(ctx, step.typ, at, step.buttons); err != nil {
			return err
		}
	}
	return nil
}

// Drag presses the mouse on the first element matching from, moves it in
// steps to the one matching to (both must be in view together), and
// releases it there.
func (p *Page) Drag(ctx context.Context, from, to string) error {
	a, err := p.Center(ctx, from)
	if err != nil {
		return err
	}
	b, err := p.Center(ctx, to)
	if err != nil {
		return err
	}
	if a, err = p.Center(ctx, from); err != nil { // scrolling to the target may have moved it
		return err
	}
	if err := p.mouse(ctx, "mouseMoved", a, 0); err != nil {
		return err
	}
	if err := p.mouse(ctx, "mousePressed", a, 1); err != nil {
		return err
	}
	const steps = 10
	for k := 1; k <= steps; k++ {
		f := float64(k) / steps
		if err := p.mouse(ctx, "mouseMoved", Point{a.X + f*(b.X-a.X), a.Y + f*(b.Y-a.Y)}, 1); err != nil {
			return err
		}
	}
	return p.mouse(ctx, "mouseReleased", b, 0)
}

// Clip is a rectangle of the page in CSS pixels, drawn at Scale.
type Clip struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Scale  float64 `json:"scale"`
}

// Screenshot returns a PNG of the whole page (beyond the viewport), or of
// clip when it is not nil.
func (p *Page) Screenshot(ctx context.Context, clip *Clip) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	params := map[string]any{"format": "png", "captureBeyondViewport": true}
	if clip != nil {
		params["clip"] = clip
	}
	if err := p.call(ctx, "Page.captureScreenshot", params, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// AllowDownloads makes downloads land in dir, each named by its guid.
func (b *Browser) AllowDownloads(ctx context.Context, dir string) error {
	return b.Call(ctx, "", "Browser.setDownloadBehavior", map[string]any{"behavior": "allowAndName", "downloadPath": dir, "eventsEnabled": true}, nil)
}

// Download runs trigger (e.g. a click) and returns the file it downloads
// (into the directory given to AllowDownloads) and its suggested name. One
// download at a time.
func (b *Browser) Download(ctx context.Context, dir string, trigger func() error) (data []byte, name string, err error) {
	begin := b.Expect("", "Browser.downloadWillBegin", nil)
	end := b.Expect("", "Browser.downloadProgress", func(raw json.RawMessage) bool {
		var pr struct {
			State string `json:"state"`
		}
		return json.Unmarshal(raw, &pr) == nil && pr.State != "inProgress"
	})
	if err := trigger(); err != nil {
		return nil, "", err
	}
	var will struct {
		GUID              string `json:"guid"`
		SuggestedFilename string `json:"suggestedFilename"`
	}
	select {
	case raw := <-begin:
		if err := json.Unmarshal(raw, &will); err != nil {
			return nil, "", err
		}
	case <-ctx.Done():
		return nil, "", fmt.Errorf("no download started: %w", ctx.Err())
	}
	select {
	case raw := <-end:
		var pr struct {
			GUID  string `json:"guid"`
			State string `json:"state"`
		}
		if err := json.Unmarshal(raw, &pr); err != nil {
			return nil, "", err
		}
		if pr.GUID != will.GUID || pr.State != "completed" {
			return nil, "", fmt.Errorf("download %s: %s", will.SuggestedFilename, pr.State)
		}
	case <-ctx.Done():
		return nil, "", fmt.Errorf("download %s did not complete: %w", will.SuggestedFilename, ctx.Err())
	}
	data, err = os.ReadFile(filepath.Join(dir, will.GUID))
	return data, will.SuggestedFilename, err
}

// tailBuffer keeps the last few KB of the browser's output, for errors.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 8192 {
		t.buf = t.buf[len(t.buf)-8192:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
