package neo4jtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
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

// Options configure Start. The zero value starts the LTS version with the
// default password.
type Options struct {
	// Version is the server to start (default LTS).
	Version Version

	// Password of the user "neo4j" (default DefaultPassword; Neo4j 5 wants
	// at least 8 characters). Authentication is always on.
	Password string

	// StartTimeout bounds the wait for the server to be ready (default 4
	// minutes; a start takes 10-40 s on two busy cores). The installation
	// (Maven) is bounded by the context only.
	StartTimeout time.Duration

	// HeapSize is the JVM heap (-Xmx; default "1g"), PageCache Neo4j's page
	// cache (default "128m"). Together they bound the server's memory.
	HeapSize, PageCache string

	// Settings are extra neo4j.conf settings (name=value), after the defaults.
	Settings map[string]string

	// CacheDir overrides CacheDir() for the installation and the per-server
	// directories.
	CacheDir string

	// Logf receives progress messages (e.g. testing.T.Logf); may be nil.
	Logf func(format string, args ...any)
}

// User is the server's user; DefaultPassword its password unless
// Options.Password says otherwise.
const (
	User            = "neo4j"
	DefaultPassword = "fondue-test-password"
)

// Server is a running Neo4j with a fault-injection Proxy in front of its Bolt
// port. Its data lives in a fresh directory that Stop removes (Restart keeps
// it).
type Server struct {
	version  Version
	reported string // the version the server reports
	java     string
	jdk      JDK
	opts     Options // as given to Start, for Restart
	home     string
	dir      string
	boltAddr string
	password string
	proxy    *Proxy
	logf     func(string, ...any)

	cmd     *exec.Cmd
	stdin   io.WriteCloser
	exited  chan struct{}
	waitErr error

	stopOnce sync.Once
	stopErr  error

	driverMu sync.Mutex
	driver   neo4j.DriverWithContext
}

// Start installs the server's version if needed (see Install) and starts it
// in a JVM of its own with a private directory, Bolt on a loopback port that
// the JVM binds and reports, authentication on, usage reports off and
// bounded memory, then the Proxy in front of it. It never skips: any problem
// (JDK, Maven, artifact, start-up) is an error that says what failed, with
// the tail of the server's output for start-up failures.
//
// The JVM runs in its own process group; it is killed by the kernel if the
// goroutine-locked thread that started it (and so the test process) dies,
// and it shuts itself down when its stdin closes. Call Stop when done.
func Start(ctx context.Context, opts Options) (*Server, error) {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	v := opts.Version
	if v == (Version{}) {
		v = LTS
	}
	cache := opts.CacheDir
	if cache == "" {
		var err error
		if cache, err = CacheDir(); err != nil {
			return nil, err
		}
	}
	jdk, err := FindJDK(v.Java)
	if err != nil {
		return nil, fmt.Errorf("neo4jtest: Neo4j %s: %w", v.Neo4j, err)
	}
	home, err := Install(ctx, cache, v, logf)
	if err != nil {
		return nil, err
	}
	runDir := filepath.Join(cache, "run")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return nil, fmt.Errorf("neo4jtest: %w", err)
	}
	removeStaleServerDirs(runDir, logf)
	dir, err := os.MkdirTemp(runDir, "srv-")
	if err != nil {
		return nil, fmt.Errorf("neo4jtest: %w", err)
	}
	s := &Server{
		version:  v,
		java:     jdk.Java(),
		jdk:      jdk,
		opts:     opts,
		home:     home,
		dir:      dir,
		password: opts.Password,
		logf:     logf,
	}
	if s.password == "" {
		s.password = DefaultPassword
	}
	begin := time.Now()
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	// The owner's pid lets a later Start remove this directory if we die.
	if err = os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, fmt.Errorf("neo4jtest: %w", err)
	}
	if err = s.writeConf(opts); err != nil {
		return nil, err
	}
	if err = s.launchAndWait(ctx); err != nil {
		return nil, err
	}
	if s.proxy, err = NewProxy(s.boltAddr, logf); err != nil {
		return nil, fmt.Errorf("neo4jtest: start the proxy: %w", err)
	}
	logf("neo4jtest: Neo4j %s ready in %s (Java %s, bolt %s, proxy %s, pid %d, dir %s)",
		s.reported, time.Since(begin).Round(time.Millisecond), jdk.Version, s.boltAddr, s.proxy.Addr(), s.PID(), dir)
	return s, nil
}

// launchAndWait starts the JVM on the server's directory and waits for its
// READY line.
func (s *Server) launchAndWait(ctx context.Context) error {
	ready, err := s.launch(s.jdk, s.opts)
	if err != nil {
		return err
	}
	timeout := s.opts.StartTimeout
	if timeout <= 0 {
		timeout = 4 * time.Minute
	}
	return s.waitReady(ctx, ready, timeout)
}

// RestartOptions configure Restart. The zero value is a clean shutdown.
type RestartOptions struct {
	// Kill stops the server with SIGKILL instead of a clean shutdown, as a
	// crash would: the restart then recovers the committed transactions
	// from the transaction log.
	Kill bool
}

// Restart stops the server and starts it again on the same directory: the
// databases, the users and their passwords, and neo4j.conf are kept. While
// it restarts, the proxy refuses connections (open ones are cut, as when a
// server goes away); then it listens again on the same address and relays
// to the new Bolt port, so BoltURL does not change (DirectURL does). The
// driver of Driver is closed and made again on next use; armed faults stay
// armed. If the server does not come up again, Restart returns why (with
// the output's tail) and the server is unusable; Stop still cleans up.
// Restart is not safe to call concurrently with other methods.
func (s *Server) Restart(ctx context.Context, opts RestartOptions) error {
	begin := time.Now()
	s.closeDriver()
	s.proxy.Refuse()
	if err := s.stopJVM(opts.Kill); err != nil {
		return err
	}
	if err := s.launchAndWait(ctx); err != nil {
		return fmt.Errorf("neo4jtest: restart: %w", err)
	}
	s.proxy.setUpstream(s.boltAddr)
	if err := s.proxy.Restore(); err != nil {
		return fmt.Errorf("neo4jtest: restart: %w", err)
	}
	s.logf("neo4jtest: Neo4j %s restarted in %s (bolt %s, proxy %s, pid %d)",
		s.reported, time.Since(begin).Round(time.Millisecond), s.boltAddr, s.proxy.Addr(), s.PID())
	return nil
}

// stopJVM stops the running JVM and waits for it: cleanly (its stdin
// closes, Neo4j shuts down; killed if that takes more than two minutes), or
// at once with SIGKILL.
func (s *Server) stopJVM(kill bool) error {
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	pid := s.cmd.Process.Pid
	if s.stdin != nil {
		s.stdin.Close()
	}
	if !kill {
		select {
		case <-s.exited:
			return nil
		case <-time.After(2 * time.Minute):
			s.logf("neo4jtest: Neo4j %s (pid %d) did not shut down within 2 minutes; killing it", s.version.Neo4j, pid)
		}
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	select {
	case <-s.exited:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("neo4jtest: JVM pid %d did not exit 30s after SIGKILL", pid)
	}
}

func (s *Server) confPath() string   { return filepath.Join(s.dir, "neo4j.conf") }
func (s *Server) consoleLog() string { return filepath.Join(s.dir, "console.log") }

// writeConf writes the server's neo4j.conf.
func (s *Server) writeConf(opts Options) error {
	pageCache := opts.PageCache
	if pageCache == "" {
		pageCache = "128m"
	}
	settings := [][2]string{
		{"server.bolt.enabled", "true"},
		{"server.bolt.listen_address", "127.0.0.1:0"},
		{"server.bolt.tls_level", "DISABLED"},
		{"dbms.security.auth_enabled", "true"},
		{"dbms.usage_report.enabled", "false"},
		{"dbms.routing.enabled", "false"},
		{"server.memory.pagecache.size", pageCache},
		{"server.directories.plugins", filepath.Join(s.home, "plugins")},
		{"dbms.security.procedures.unrestricted", "gds.*,apoc.*"},
	}
	var b strings.Builder
	b.WriteString("# written by internal/testenv/neo4jtest\n")
	for _, kv := range settings {
		if _, over := opts.Settings[kv[0]]; !over {
			fmt.Fprintf(&b, "%s=%s\n", kv[0], kv[1])
		}
	}
	for k, v := range opts.Settings {
		fmt.Fprintf(&b, "%s=%s\n", k, v)
	}
	if err := os.WriteFile(s.confPath(), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("neo4jtest: write neo4j.conf: %w", err)
	}
	return nil
}

// jvmArgs are the JVM options: bounded heap, and the module openings that
// Neo4j's own neo4j.conf ships.
func jvmArgs(jdk JDK, heap string) []string {
	if heap == "" {
		heap = "1g"
	}
	args := []string{
		"-Xms256m", "-Xmx" + heap,
		"-XX:+ExitOnOutOfMemoryError",
		"-Dfile.encoding=UTF-8",
		"--add-opens=java.base/java.nio=ALL-UNNAMED",
		"--add-opens=java.base/java.io=ALL-UNNAMED",
		"--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
		"--add-opens=java.base/java.lang=ALL-UNNAMED",
	}
	if jdk.Major >= 21 {
		args = append(args, "--enable-native-access=ALL-UNNAMED")
	}
	return args
}

// launch starts the JVM in its own process group, with Pdeathsig so that the
// kernel kills it when the thread that started it dies. That thread is
// locked to a goroutine that lives until the JVM exits, so in practice the
// JVM dies with the test process. ready receives the READY line's fields.
func (s *Server) launch(jdk JDK, opts Options) (<-chan map[string]string, error) {
	// Appended to: a restart's output follows the previous run's.
	logFile, err := os.OpenFile(s.consoleLog(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("neo4jtest: %w", err)
	}
	exited := make(chan struct{})
	s.exited, s.waitErr = exited, nil
	args := append(jvmArgs(jdk, opts.HeapSize),
		"-cp", filepath.Join(s.home, "classes")+string(os.PathListSeparator)+filepath.Join(s.home, "lib", "*"),
		"Neo4jTestServer", s.dir, s.confPath())
	cmd := exec.Command(jdk.Java(), args...)
	cmd.Env = append(os.Environ(), "NEO4JTEST_PASSWORD="+s.password)
	cmd.Dir = s.dir
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	s.cmd = cmd
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see the doc comment
		defer logFile.Close()
		if err := cmd.Start(); err != nil {
			started <- err
			close(exited)
			return
		}
		started <- nil
		s.waitErr = cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("neo4jtest: start %s: %w", jdk.Java(), err)
	}
	ready := make(chan map[string]string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if rest, ok := strings.CutPrefix(line, "READY "); ok {
				fields := map[string]string{}
				for _, f := range strings.Fields(rest) {
					if k, v, ok := strings.Cut(f, "="); ok {
						fields[k] = v
					}
				}
				ready <- fields
				continue
			}
			fmt.Fprintln(logFile, line)
		}
	}()
	return ready, nil
}

// waitReady waits for the READY line.
func (s *Server) waitReady(ctx context.Context, ready <-chan map[string]string, timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case f := <-ready:
		s.boltAddr, s.reported = f["bolt"], f["version"]
		if s.boltAddr == "" {
			return s.startError("the server's READY line has no bolt address")
		}
		return nil
	case <-s.exited:
		return s.startError(fmt.Sprintf("the JVM exited before the server was ready (%v)", s.waitErr))
	case <-timer.C:
		return s.startError(fmt.Sprintf("the server was not ready within %s", timeout))
	case <-ctx.Done():
		return s.startError(ctx.Err().Error())
	}
}

// startError describes a failed start with the tails of the server's output
// and debug log.
func (s *Server) startError(what string) error {
	msg := fmt.Sprintf("neo4jtest: Neo4j %s (%s): %s\n--- console (last lines) ---\n%s", s.version.Neo4j, s.dir, what, s.LogTail(30))
	if dbg := readFile(filepath.Join(s.dir, "logs", "debug.log")); len(dbg) > 0 {
		msg += "\n--- logs/debug.log (last lines) ---\n" + tail(string(dbg), 15)
	}
	return errors.New(msg)
}

func readFile(p string) []byte {
	b, _ := os.ReadFile(p)
	return b
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

// Version is the version this server was started as.
func (s *Server) Version() Version { return s.version }

// ServerVersion is the version the running server reports (dbms.components).
func (s *Server) ServerVersion() string { return s.reported }

// BoltURL is the bolt:// URL of the proxy in front of the server: use it
// for everything, so that faults can be injected.
func (s *Server) BoltURL() string { return s.proxy.URL() }

// DirectURL is the bolt:// URL of the server itself, bypassing the proxy.
func (s *Server) DirectURL() string { return "bolt://" + s.boltAddr }

// Proxy is the fault-injection proxy in front of the server.
func (s *Server) Proxy() *Proxy { return s.proxy }

// Dir is the server's private directory (neo4j.conf, data, logs, console.log).
func (s *Server) Dir() string { return s.dir }

// Password is the password of User.
func (s *Server) Password() string { return s.password }

// AuthToken returns the credentials the server accepts.
func (s *Server) AuthToken() neo4j.AuthToken { return neo4j.BasicAuth(User, s.password, "") }

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

// LogTail returns the last n lines of the JVM's console output.
func (s *Server) LogTail(n int) string { return tail(string(readFile(s.consoleLog())), n) }

// Stop closes the proxy, kills the JVM's process group, waits for it and
// removes the server directory. It is safe to call more than once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.closeDriver()
		if s.proxy != nil {
			s.proxy.Close()
		}
		if s.stdin != nil {
			s.stdin.Close()
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

// closeDriver closes the driver of Driver, if any.
func (s *Server) closeDriver() {
	s.driverMu.Lock()
	defer s.driverMu.Unlock()
	if s.driver != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s.driver.Close(ctx)
		cancel()
		s.driver = nil
	}
}

// Driver returns a driver owned by the server (closed by Stop), for helpers
// such as Reset. It connects directly, not through the proxy, so that
// faults armed by a test do not hit the test's own set-up.
func (s *Server) Driver() (neo4j.DriverWithContext, error) {
	s.driverMu.Lock()
	defer s.driverMu.Unlock()
	if s.driver == nil {
		d, err := neo4j.NewDriverWithContext(s.DirectURL(), s.AuthToken())
		if err != nil {
			return nil, err
		}
		s.driver = d
	}
	return s.driver, nil
}

// Reset empties the default database: every GDS graph, constraint, index
// (but the two token lookup indexes) and node is dropped. It also clears
// the proxy's faults.
func (s *Server) Reset(ctx context.Context) error {
	if err := s.proxy.ClearFaults(); err != nil {
		return fmt.Errorf("neo4jtest: Reset: %w", err)
	}
	d, err := s.Driver()
	if err != nil {
		return fmt.Errorf("neo4jtest: Reset: %w", err)
	}
	run := func(q string) ([]*neo4j.Record, error) {
		res, err := neo4j.ExecuteQuery(ctx, d, q, nil, neo4j.EagerResultTransformer)
		if err != nil {
			return nil, fmt.Errorf("neo4jtest: Reset: %s: %w", q, err)
		}
		return res.Records, nil
	}
	if _, err := run("CALL gds.graph.list() YIELD graphName CALL gds.graph.drop(graphName) YIELD graphName AS dropped RETURN count(*)"); err != nil {
		return err
	}
	for _, list := range []struct{ show, drop string }{
		{"SHOW CONSTRAINTS YIELD name RETURN name", "DROP CONSTRAINT %s IF EXISTS"},
		{"SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name", "DROP INDEX %s IF EXISTS"},
	} {
		recs, err := run(list.show)
		if err != nil {
			return err
		}
		for _, r := range recs {
			name, _ := r.Values[0].(string)
			if _, err := run(fmt.Sprintf(list.drop, escapeName(name))); err != nil {
				return err
			}
		}
	}
	for {
		recs, err := run("MATCH (n) WITH n LIMIT 20000 DETACH DELETE n RETURN count(*) AS deleted")
		if err != nil {
			return err
		}
		if n, _ := recs[0].Values[0].(int64); n == 0 {
			return nil
		}
	}
}

// escapeName backtick-quotes a schema name.
func escapeName(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
