package neo4jtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Options configure Start. The zero value starts a server with auth off.
type Options struct {
	// Password, when set, turns authentication on: the user "neo4j" has this
	// password (set with `neo4j-admin set-initial-password` before the first
	// start), and everything else is rejected.
	Password string

	// StartTimeout bounds the wait for the server's "Started." line
	// (default 2 minutes; a warm start takes a few seconds).
	StartTimeout time.Duration

	// HeapSize is the JVM heap (-Xmx; default "1g").
	HeapSize string

	// JVMFlags are extra JVM options (dbms.jvm.additional), after the
	// defaults.
	JVMFlags []string

	// CacheDir overrides CacheDir() for the installation and the per-server
	// directories.
	CacheDir string

	// Logf receives progress messages (e.g. testing.T.Logf); may be nil.
	Logf func(format string, args ...any)

	// ProxyOptions are passed to the Bolt proxy in front of the server.
	ProxyOptions []ProxyOption
}

// User is the only user of a server started with a Password.
const User = "neo4j"

// Server is a running Neo4j 3.1 with a Bolt 3 proxy in front of it. Its
// data lives in a fresh directory that Stop removes.
type Server struct {
	home     string
	dir      string
	boltAddr string
	httpAddr string
	password string
	proxy    *BoltProxy
	logf     func(string, ...any)

	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error

	stopOnce sync.Once
	stopErr  error

	driverMu sync.Mutex
	driver   neo4j.DriverWithContext
}

// Start installs Neo4j if needed (see Install), starts a private server on
// free loopback ports and the Bolt proxy in front of it. It never skips: any
// problem (npm, Java, download, start-up) is returned as an error that says
// what failed, with the tail of the server log for start-up failures.
//
// The JVM runs in its own process group and is killed by the kernel if the
// goroutine-locked thread that started it (and so the test process) dies,
// so a panicking test leaves no server behind. Call Stop when done.
func Start(ctx context.Context, opts Options) (*Server, error) {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	cache := opts.CacheDir
	if cache == "" {
		var err error
		if cache, err = CacheDir(); err != nil {
			return nil, err
		}
	}
	home, err := Install(ctx, cache, logf)
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("java"); err != nil {
		return nil, fmt.Errorf("neo4jtest: java not found on PATH (Neo4j 3.1 needs Java, e.g. 17): %w", err)
	}
	runDir := filepath.Join(cache, "run")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return nil, fmt.Errorf("neo4jtest: %w", err)
	}
	removeStaleServerDirs(runDir, logf)

	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	// A free port found with :0 can be taken by someone else before the JVM
	// binds it; a bind failure is retried with new ports.
	var lastErr error
	for attempt := 1; attempt <= 3; attempt++ {
		s, err := startOnce(ctx, home, runDir, opts, timeout, logf)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if !errors.Is(err, errPortInUse) || ctx.Err() != nil {
			break
		}
		logf("neo4jtest: port clash, retrying with other ports: %v", err)
	}
	return nil, lastErr
}

var errPortInUse = errors.New("port already in use")

func startOnce(ctx context.Context, home, runDir string, opts Options, timeout time.Duration, logf func(string, ...any)) (_ *Server, err error) {
	begin := time.Now()
	ports, err := freePorts(2)
	if err != nil {
		return nil, fmt.Errorf("neo4jtest: find free ports: %w", err)
	}
	dir, err := os.MkdirTemp(runDir, "srv-")
	if err != nil {
		return nil, fmt.Errorf("neo4jtest: %w", err)
	}
	s := &Server{
		home:     home,
		dir:      dir,
		boltAddr: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0])),
		httpAddr: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[1])),
		password: opts.Password,
		logf:     logf,
		exited:   make(chan struct{}),
	}
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	// Owner pid lets a later Start remove this directory if we die.
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, fmt.Errorf("neo4jtest: %w", err)
	}
	if err := s.writeConf(opts); err != nil {
		return nil, err
	}
	if opts.Password != "" {
		if err := s.setInitialPassword(ctx, opts.Password); err != nil {
			return nil, err
		}
	}
	if err := s.launch(); err != nil {
		return nil, err
	}
	if err := s.waitStarted(ctx, timeout); err != nil {
		return nil, err
	}
	popts := append([]ProxyOption{WithLogf(logf)}, opts.ProxyOptions...)
	if s.proxy, err = NewBoltProxy(s.boltAddr, popts...); err != nil {
		return nil, fmt.Errorf("neo4jtest: start the Bolt proxy: %w", err)
	}
	logf("neo4jtest: Neo4j %s ready in %s (bolt v1 %s, proxy %s, http %s, pid %d, dir %s)",
		Neo4jVersion, time.Since(begin).Round(time.Millisecond), s.boltAddr, s.proxy.URL(), s.httpAddr, s.PID(), dir)
	return s, nil
}

func freePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// conf keys that the per-server configuration sets itself.
var overriddenConf = []string{
	"dbms.directories.", "dbms.connector.", "dbms.security.auth_enabled",
	"dbms.udc.enabled", "dbms.memory.", "dbms.shell.", "dbms.logs.",
	"dbms.jvm.additional=-XX:+AlwaysPreTouch",
}

// writeConf writes <dir>/conf/neo4j.conf: the installation's configuration
// (which carries the Java 17 flags) with private directories, loopback
// ports, and nothing else listening.
func (s *Server) writeConf(opts Options) error {
	base, err := os.ReadFile(filepath.Join(s.home, "conf", "neo4j.conf"))
	if err != nil {
		return fmt.Errorf("neo4jtest: read the installation's neo4j.conf: %w", err)
	}
	var b strings.Builder
	for _, line := range strings.Split(string(base), "\n") {
		keep := true
		for _, k := range overriddenConf {
			if strings.HasPrefix(strings.TrimSpace(line), k) {
				keep = false
			}
		}
		if keep {
			b.WriteString(line + "\n")
		}
	}
	heap := opts.HeapSize
	if heap == "" {
		heap = "1g"
	}
	d := func(sub string) string {
		p := filepath.Join(s.dir, sub)
		os.MkdirAll(p, 0o755)
		return p
	}
	fmt.Fprintf(&b, `
# fondue-neo4j: per-server settings
dbms.directories.data=%s
dbms.directories.logs=%s
dbms.directories.run=%s
dbms.directories.import=%s
dbms.directories.certificates=%s
dbms.directories.plugins=%s
dbms.security.auth_enabled=%t
dbms.connector.bolt.enabled=true
dbms.connector.bolt.tls_level=DISABLED
dbms.connector.bolt.listen_address=%s
dbms.connector.http.enabled=true
dbms.connector.http.listen_address=%s
dbms.connector.https.enabled=false
dbms.shell.enabled=false
dbms.udc.enabled=false
dbms.memory.heap.initial_size=256m
dbms.memory.heap.max_size=%s
dbms.memory.pagecache.size=64m
`, d("data"), d("logs"), d("run"), d("import"), d("certificates"), filepath.Join(s.home, "plugins"),
		opts.Password != "", s.boltAddr, s.httpAddr, heap)
	for _, f := range opts.JVMFlags {
		b.WriteString("dbms.jvm.additional=" + f + "\n")
	}
	if err := os.MkdirAll(filepath.Join(s.dir, "conf"), 0o755); err != nil {
		return fmt.Errorf("neo4jtest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "conf", "neo4j.conf"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("neo4jtest: write neo4j.conf: %w", err)
	}
	return nil
}

func (s *Server) env() []string {
	return append(os.Environ(), "NEO4J_HOME="+s.home, "NEO4J_CONF="+filepath.Join(s.dir, "conf"))
}

// setInitialPassword runs `neo4j-admin set-initial-password`, which writes
// data/dbms/auth.ini; the server imports it on its first start.
func (s *Server) setInitialPassword(ctx context.Context, password string) error {
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(s.home, "bin", "neo4j-admin"), "set-initial-password", password)
	cmd.Env = s.env()
	cmd.Dir = s.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("neo4jtest: `neo4j-admin set-initial-password` failed: %v\n%s", err, tail(string(out), 20))
	}
	if _, err := os.Stat(filepath.Join(s.dir, "data", "dbms", "auth.ini")); err != nil {
		return fmt.Errorf("neo4jtest: `neo4j-admin set-initial-password` wrote no data/dbms/auth.ini (output: %s)", strings.TrimSpace(string(out)))
	}
	return nil
}

func (s *Server) consoleLog() string { return filepath.Join(s.dir, "console.log") }

// launch starts `bin/neo4j console` (which execs the JVM) in its own process
// group, with Pdeathsig so that the kernel kills it when the thread that
// started it dies. That thread is locked to a goroutine that lives until
// the JVM exits, so in practice the JVM dies with the test process.
func (s *Server) launch() error {
	logFile, err := os.Create(s.consoleLog())
	if err != nil {
		return fmt.Errorf("neo4jtest: %w", err)
	}
	cmd := exec.Command("bash", filepath.Join(s.home, "bin", "neo4j"), "console")
	cmd.Env = s.env()
	cmd.Dir = s.dir
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	s.cmd = cmd
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see the doc comment
		defer logFile.Close()
		if err := cmd.Start(); err != nil {
			started <- err
			close(s.exited)
			return
		}
		started <- nil
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("neo4jtest: start `bin/neo4j console`: %w", err)
	}
	return nil
}

// waitStarted waits for the "Started." log line and for the Bolt port to
// accept connections.
func (s *Server) waitStarted(ctx context.Context, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return s.startError(fmt.Sprintf("start-up cancelled: %v", ctx.Err()))
		case <-deadline.C:
			return s.startError(fmt.Sprintf("no \"Started.\" line within %s", timeout))
		case <-s.exited:
			msg := fmt.Sprintf("the server exited during start-up (%v)", s.waitErr)
			err := s.startError(msg)
			if bytes.Contains(readFile(s.consoleLog()), []byte("Address already in use")) {
				return fmt.Errorf("%w: %w", errPortInUse, err)
			}
			return err
		case <-tick.C:
			if hasLine(s.consoleLog(), " Started.") {
				c, err := net.DialTimeout("tcp", s.boltAddr, time.Second)
				if err == nil {
					c.Close()
					return nil
				}
			}
		}
	}
}

func (s *Server) startError(what string) error {
	return fmt.Errorf("neo4jtest: Neo4j %s in %s: %s\n--- console.log (last 40 lines) ---\n%s\n--- logs/debug.log (last 20 lines) ---\n%s",
		Neo4jVersion, s.dir, what, tail(string(readFile(s.consoleLog())), 40),
		tail(string(readFile(filepath.Join(s.dir, "logs", "debug.log"))), 20))
}

func readFile(p string) []byte {
	b, _ := os.ReadFile(p)
	return b
}

func hasLine(path, substr string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.Contains(sc.Text(), substr) {
			return true
		}
	}
	return false
}

// removeStaleServerDirs deletes server directories whose owning process is
// gone (a test binary that crashed before Stop).
func removeStaleServerDirs(runDir string, logf func(string, ...any)) {
	entries, err := os.ReadDir(runDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "srv-") {
			continue
		}
		dir := filepath.Join(runDir, e.Name())
		pid, err := strconv.Atoi(strings.TrimSpace(string(readFile(filepath.Join(dir, "owner.pid")))))
		if err != nil {
			// No owner yet: it may be being created right now.
			if info, ierr := e.Info(); ierr != nil || time.Since(info.ModTime()) < time.Minute {
				continue
			}
		} else if processAlive(pid) {
			continue
		}
		logf("neo4jtest: removing stale server directory %s", dir)
		os.RemoveAll(dir)
	}
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// BoltURL is the bolt:// URL of the proxy (use it with neo4j-go-driver v5,
// without a database name).
func (s *Server) BoltURL() string { return s.proxy.URL() }

// Proxy is the Bolt proxy in front of the server, for fault injection.
func (s *Server) Proxy() *BoltProxy { return s.proxy }

// UpstreamAddr is Neo4j's own Bolt v1 address (not usable by driver v5).
func (s *Server) UpstreamAddr() string { return s.boltAddr }

// HTTPAddr is Neo4j's HTTP address (host:port).
func (s *Server) HTTPAddr() string { return s.httpAddr }

// Dir is the server's private directory (conf, data, logs, console.log).
func (s *Server) Dir() string { return s.dir }

// AuthEnabled reports whether the server was started with a Password.
func (s *Server) AuthEnabled() bool { return s.password != "" }

// AuthToken returns the credentials that the server accepts: basic auth for
// User and the password when auth is on, else no auth.
func (s *Server) AuthToken() neo4j.AuthToken {
	if s.password != "" {
		return neo4j.BasicAuth(User, s.password, "")
	}
	return neo4j.NoAuth()
}

// NewDriver returns a driver for BoltURL with AuthToken. The caller closes it.
func (s *Server) NewDriver(configurers ...func(*neo4j.Config)) (neo4j.DriverWithContext, error) {
	return neo4j.NewDriverWithContext(s.BoltURL(), s.AuthToken(), configurers...)
}

// PID is the JVM's process id (0 if it is not running).
func (s *Server) PID() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// RSS returns the JVM's resident set size in bytes (from /proc).
func (s *Server) RSS() (int64, error) {
	pid := s.PID()
	if pid == 0 {
		return 0, errors.New("neo4jtest: server not running")
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("neo4jtest: no VmRSS in /proc status")
}

// LogTail returns the last n lines of the server's console output.
func (s *Server) LogTail(n int) string { return tail(string(readFile(s.consoleLog())), n) }

// Stop closes the proxy, kills the JVM's process group, waits for it and
// removes the server directory. It is safe to call more than once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.driverMu.Lock()
		if s.driver != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			s.driver.Close(ctx)
			cancel()
			s.driver = nil
		}
		s.driverMu.Unlock()
		if s.proxy != nil {
			s.proxy.Close()
		}
		if s.cmd != nil && s.cmd.Process != nil {
			// The data is thrown away, so there is no point in a clean
			// shutdown: kill the whole group at once.
			syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			select {
			case <-s.exited:
			case <-time.After(30 * time.Second):
				s.stopErr = fmt.Errorf("neo4jtest: JVM pid %d did not exit 30s after SIGKILL", s.cmd.Process.Pid)
				return
			}
		}
		if err := os.RemoveAll(s.dir); err != nil {
			s.stopErr = fmt.Errorf("neo4jtest: remove %s: %w", s.dir, err)
		}
	})
	return s.stopErr
}

// Driver returns a driver owned by the server (closed by Stop), for helpers
// such as Reset.
func (s *Server) Driver() (neo4j.DriverWithContext, error) {
	s.driverMu.Lock()
	defer s.driverMu.Unlock()
	if s.driver == nil {
		d, err := s.NewDriver()
		if err != nil {
			return nil, err
		}
		s.driver = d
	}
	return s.driver, nil
}

// Reset empties the database for the next test: it drops every constraint
// and index, then deletes every node and relationship (in batches).
func (s *Server) Reset(ctx context.Context) error {
	d, err := s.Driver()
	if err != nil {
		return fmt.Errorf("neo4jtest: Reset: %w", err)
	}
	if err := dropSchema(ctx, d); err != nil {
		return fmt.Errorf("neo4jtest: Reset: %w", err)
	}
	for {
		res, err := neo4j.ExecuteQuery(ctx, d,
			"MATCH (n) WITH n LIMIT 20000 DETACH DELETE n RETURN count(*) AS deleted",
			nil, neo4j.EagerResultTransformer)
		if err != nil {
			return fmt.Errorf("neo4jtest: Reset: delete nodes: %w", err)
		}
		n, _, err := neo4j.GetRecordValue[int64](res.Records[0], "deleted")
		if err != nil {
			return fmt.Errorf("neo4jtest: Reset: %w", err)
		}
		if n == 0 {
			return nil
		}
	}
}

// dropSchema drops every index and uniqueness constraint. Neo4j 3.1 lists
// them only as text ("INDEX ON :Label(prop)", with label and property not
// escaped), so each possible split of the text into label and property is
// tried with an escaped DROP until one succeeds.
func dropSchema(ctx context.Context, d neo4j.DriverWithContext) error {
	res, err := neo4j.ExecuteQuery(ctx, d, "CALL db.indexes() YIELD description, type RETURN description, type", nil, neo4j.EagerResultTransformer)
	if err != nil {
		return fmt.Errorf("list indexes: %w", err)
	}
	for _, r := range res.Records {
		desc, _, _ := neo4j.GetRecordValue[string](r, "description")
		typ, _, _ := neo4j.GetRecordValue[string](r, "type")
		mid, ok := strings.CutPrefix(desc, "INDEX ON :")
		if !ok || !strings.HasSuffix(mid, ")") {
			return fmt.Errorf("cannot parse index description %q", desc)
		}
		mid = strings.TrimSuffix(mid, ")")
		var lastErr error
		dropped := false
		for i := strings.Index(mid, "("); i >= 0 && !dropped; {
			label, prop := escapeName(mid[:i]), escapeName(mid[i+1:])
			q := "DROP INDEX ON :" + label + "(" + prop + ")"
			if typ == "node_unique_property" {
				q = "DROP CONSTRAINT ON (n:" + label + ") ASSERT n." + prop + " IS UNIQUE"
			}
			if _, lastErr = neo4j.ExecuteQuery(ctx, d, q, nil, neo4j.EagerResultTransformer); lastErr == nil {
				dropped = true
			}
			next := strings.Index(mid[i+1:], "(")
			if next < 0 {
				break
			}
			i += 1 + next
		}
		if !dropped {
			return fmt.Errorf("drop %s %q: %w", typ, desc, lastErr)
		}
	}
	// Anything left (e.g. a kind of constraint not backed by an index) is an
	// error rather than a silently dirty database.
	for _, q := range []string{"CALL db.constraints()", "CALL db.indexes()"} {
		res, err := neo4j.ExecuteQuery(ctx, d, q, nil, neo4j.EagerResultTransformer)
		if err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		if len(res.Records) > 0 {
			return fmt.Errorf("%s still lists %v after dropping the schema", q, res.Records[0].Values)
		}
	}
	return nil
}

// escapeName quotes a label, relationship type or property name for Cypher.
func escapeName(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
