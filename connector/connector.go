package connector

import (
	"context"
	"errors"
	"fmt"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"
)

// errorf returns a *syncjob.Error: the connector's errors are of the kinds
// syncjob defines (ErrAuth, ErrUnreachable, ErrEmpty, ErrLocked, ErrInvalid).
func errorf(kind, cause error, format string, args ...any) error {
	return syncjob.Errorf(kind, cause, format, args...)
}

// Causes that a caller may name its own settings for: a server that asks
// for a password when Config has none (with syncjob.ErrAuth), or that does
// not answer within Config.ConnectTimeout (with syncjob.ErrUnreachable).
var (
	ErrNoPassword = errors.New("no password")
	ErrNoAnswer   = errors.New("no answer")
)

// CheckURI refuses a URI that is not bolt:// or neo4j:// (optionally +s
// or +ssc) with a host.
func CheckURI(uri string) error {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return errors.New("not a URI like bolt://host:7687 or neo4j://host:7687")
	}
	switch u.Scheme {
	case "bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc":
		return nil
	}
	return fmt.Errorf("scheme %q is not one of bolt, neo4j (optionally +s or +ssc)", u.Scheme)
}

// Config says how to reach Neo4j.
type Config struct {
	// URI of the server: bolt:// (one server), neo4j:// (routing), with +s
	// or +ssc for TLS. Default bolt://localhost:7687.
	URI string
	// User and Password; an empty Password connects without authentication.
	User, Password string
	// Database to use on Neo4j 4 and later; empty: the server's default.
	Database string
	// ConnectTimeout bounds connecting (default 10 s): Open, which opens a
	// connection, logs in and reads the server's version, fails within it
	// when the server does not answer, so that a wrong address fails fast.
	// Later, it bounds opening each new connection.
	ConnectTimeout time.Duration
	// MaxRetryTime is the connection's retry budget (default 30 s): after a
	// transient failure such as a dropped connection, calls are retried
	// until MaxRetryTime has passed since the first failure that no
	// success followed, however many calls retry (see retry.go).
	MaxRetryTime time.Duration
	// FetchSize is the number of records per batch when streaming results
	// (Bolt 4 and later; default 10,000).
	FetchSize int
	// ReadConcurrency is the number of read transactions, each in a
	// session of its own, that a native pull reads the relationships with
	// at once, each for a range of the start nodes (default 2; GDS's name
	// for the same setting of its projections).
	ReadConcurrency int
	// Log receives the connector's and the driver's messages (default: none).
	Log *slog.Logger
}

// Config's defaults, of its zero fields.
const (
	DefaultURI             = "bolt://localhost:7687"
	DefaultConnectTimeout  = 10 * time.Second
	DefaultMaxRetryTime    = 30 * time.Second
	DefaultFetchSize       = 10000
	DefaultReadConcurrency = 2
)

// Conn is a connection to one Neo4j server (a driver and its pool). It is
// safe for concurrent use.
type Conn struct {
	cfg     Config
	driver  neo4j.DriverWithContext
	version string
	edition string
	log     *slog.Logger

	fenceMu sync.Mutex
	fence   *Lock // the lock every write transaction checks (AcquireLock)

	budget retryBudget // failures of the connection's calls (retry)

	uniqueMu sync.Mutex
	unique   map[string][]string // properties a uniqueness constraint covers, by label (Unique)
}

// Open connects, verifies the credentials and checks the server's version.
// Failures wrap ErrUnreachable, ErrAuth or ErrInvalid, with a message that
// names the URI and user, never the password.
func Open(ctx context.Context, cfg Config) (*Conn, error) {
	if cfg.URI == "" {
		cfg.URI = DefaultURI
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.MaxRetryTime <= 0 {
		cfg.MaxRetryTime = DefaultMaxRetryTime
	}
	if cfg.FetchSize <= 0 {
		cfg.FetchSize = DefaultFetchSize
	}
	if cfg.ReadConcurrency <= 0 {
		cfg.ReadConcurrency = DefaultReadConcurrency
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if err := CheckURI(cfg.URI); err != nil {
		return nil, errorf(syncjob.ErrInvalid, err, "Config.URI %q: %v", cfg.URI, err)
	}
	auth := neo4j.NoAuth()
	if cfg.Password != "" {
		auth = neo4j.BasicAuth(cfg.User, cfg.Password, "")
	}
	c := &Conn{cfg: cfg, log: cfg.Log}
	var err error
	c.driver, err = neo4j.NewDriverWithContext(cfg.URI, auth, func(dc *config.Config) {
		dc.SocketConnectTimeout = cfg.ConnectTimeout
		dc.ConnectionAcquisitionTimeout = 2*cfg.ConnectTimeout + cfg.MaxRetryTime
		// One attempt per call: the connector retries (Conn.retry), with
		// one budget for all the calls of a run.
		dc.MaxTransactionRetryTime = 0
		dc.Log = driverLog{cfg.Log}
		dc.UserAgent = "fondue-neo4j"
	})
	if err != nil {
		return nil, errorf(syncjob.ErrInvalid, err, "Config.URI %q: %v", cfg.URI, err)
	}
	// Connecting, logging in and the version check all fit in
	// ConnectTimeout: a server that does not answer fails within it.
	octx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	if err := c.driver.VerifyConnectivity(octx); err != nil {
		c.driver.Close(context.WithoutCancel(ctx))
		return nil, c.openError(ctx, octx, err, c.connectError(err))
	}
	if err := c.detect(octx); err != nil {
		c.driver.Close(context.WithoutCancel(ctx))
		return nil, c.openError(ctx, octx, err, err)
	}
	if cfg.Database != "" {
		q, err := c.render("ping", cypher.Vars{})
		if err == nil {
			_, err = c.query(octx, q, nil, false)
		}
		if err != nil {
			c.driver.Close(context.WithoutCancel(ctx))
			return nil, c.openError(ctx, octx, err, c.classify(err, "open database "+strconv.Quote(cfg.Database)))
		}
	}
	c.log.Debug("connected to Neo4j", "uri", cfg.URI, "user", cfg.User, "version", c.version, "edition", c.edition)
	return c, nil
}

// openError is the error of a step of Open that failed with err: the
// caller's cancellation, a server that did not answer within
// ConnectTimeout (octx's deadline), or else classified.
func (c *Conn) openError(ctx, octx context.Context, err, classified error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case octx.Err() != nil:
		return errorf(syncjob.ErrUnreachable, errors.Join(ErrNoAnswer, err), "cannot reach Neo4j at %s: no answer within %s", c.cfg.URI, c.cfg.ConnectTimeout)
	}
	return classified
}

// connectError classifies a failure to connect.
func (c *Conn) connectError(err error) error {
	var nerr *neo4j.Neo4jError
	where := fmt.Sprintf("Neo4j at %s", c.cfg.URI)
	if errors.As(err, &nerr) {
		switch {
		case strings.HasPrefix(nerr.Code, "Neo.ClientError.Security.AuthenticationRateLimit"):
			return errorf(syncjob.ErrAuth, err, "%s: too many failed logins for user %q: the server refuses logins for a few seconds (check the password)", where, c.cfg.User)
		case strings.HasPrefix(nerr.Code, "Neo.ClientError.Security."):
			if c.cfg.Password == "" {
				return errorf(syncjob.ErrAuth, errors.Join(ErrNoPassword, err), "%s requires authentication", where)
			}
			return errorf(syncjob.ErrAuth, err, "%s: authentication failed for user %q (wrong user or password)", where, c.cfg.User)
		case strings.HasPrefix(nerr.Code, "Neo.ClientError.Database.DatabaseNotFound"):
			return errorf(syncjob.ErrInvalid, err, "%s: database %q does not exist", where, c.cfg.Database)
		}
		return errorf(syncjob.ErrUnreachable, err, "%s: %s", where, oneLine(nerr.Msg))
	}
	var opErr *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return errorf(syncjob.ErrUnreachable, err, "cannot reach %s: connection refused (is Neo4j running, and is the Bolt port right?)", where)
	case errors.As(err, &opErr) && opErr.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return errorf(syncjob.ErrUnreachable, err, "cannot reach %s: no answer within %s", where, c.cfg.ConnectTimeout)
	case unsupportedBolt(err):
		return errorf(syncjob.ErrUnreachable, err, "%s does not speak a Bolt version this driver supports (3.0 and later): is it a Neo4j Bolt port? (%s)", where, oneLine(err.Error()))
	}
	return errorf(syncjob.ErrUnreachable, err, "cannot reach %s: %s", where, oneLine(err.Error()))
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " ..."
	}
	return s
}

// detect reads the server's version and refuses one that is not supported.
func (c *Conn) detect(ctx context.Context) error {
	q, err := cypher.Render("components", cypher.Vars{})
	if err != nil {
		return err
	}
	// No database: any will do.
	var res *neo4j.EagerResult
	err = c.retry(ctx, func() error {
		var err error
		res, err = neo4j.ExecuteQuery(ctx, c.driver, q, nil, neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithReadersRouting())
		return err
	})
	if err != nil {
		return c.classify(err, "read the server version (dbms.components())")
	}
	for _, r := range res.Records {
		name, _, _ := neo4j.GetRecordValue[string](r, "name")
		versions, _, _ := neo4j.GetRecordValue[[]any](r, "versions")
		edition, _, _ := neo4j.GetRecordValue[string](r, "edition")
		if !strings.Contains(name, "Neo4j Kernel") || len(versions) == 0 {
			continue
		}
		v, _ := versions[0].(string)
		if err := cypher.CheckVersion(v); err != nil {
			return errorf(syncjob.ErrInvalid, err, "Neo4j at %s: %v", c.cfg.URI, err)
		}
		c.version, c.edition = v, edition
		return nil
	}
	return errorf(syncjob.ErrInvalid, nil, "Neo4j at %s: dbms.components() does not list the Neo4j Kernel", c.cfg.URI)
}

// Version is the server's version, e.g. "5.26.0".
func (c *Conn) Version() string { return c.version }

// Edition is the server's edition, e.g. "community".
func (c *Conn) Edition() string { return c.edition }

// Driver is the underlying driver (closed by Close).
func (c *Conn) Driver() neo4j.DriverWithContext { return c.driver }

// Close closes the driver and its connections.
func (c *Conn) Close(ctx context.Context) error { return c.driver.Close(ctx) }

// render renders a statement; a bad name is ErrInvalid.
func (c *Conn) render(name string, v cypher.Vars) (string, error) {
	q, err := cypher.Render(name, v)
	if err != nil {
		var ne *cypher.NameError
		if errors.As(err, &ne) {
			return "", errorf(syncjob.ErrInvalid, err, "%v", err)
		}
		return "", err
	}
	return q, nil
}

func (c *Conn) queryOpts(extra ...neo4j.ExecuteQueryConfigurationOption) []neo4j.ExecuteQueryConfigurationOption {
	opts := extra
	if c.cfg.Database != "" {
		opts = append(opts, neo4j.ExecuteQueryWithDatabase(c.cfg.Database))
	}
	return opts
}

func (c *Conn) session(ctx context.Context, mode neo4j.AccessMode) neo4j.SessionWithContext {
	return c.driver.NewSession(ctx, neo4j.SessionConfig{
		AccessMode:   mode,
		DatabaseName: c.cfg.Database,
		FetchSize:    c.cfg.FetchSize,
	})
}

// classify turns a driver error during work into a connector error: lost
// connections are ErrUnreachable, anything else keeps its message.
func (c *Conn) classify(err error, doing string) error {
	var cerr *syncjob.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &cerr), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case connectionLost(err):
		return errorf(syncjob.ErrUnreachable, err, "lost the connection to Neo4j at %s while trying to %s (retried for up to %s): %s",
			c.cfg.URI, doing, c.cfg.MaxRetryTime, oneLine(err.Error()))
	}
	var nerr *neo4j.Neo4jError
	if errors.As(err, &nerr) {
		switch {
		case strings.HasPrefix(nerr.Code, "Neo.ClientError.Security."):
			return errorf(syncjob.ErrAuth, err, "Neo4j at %s refused to %s: %s", c.cfg.URI, doing, oneLine(nerr.Msg))
		case strings.HasPrefix(nerr.Code, "Neo.ClientError.Database.DatabaseNotFound"):
			return errorf(syncjob.ErrInvalid, err, "Neo4j at %s: database %q does not exist", c.cfg.URI, c.cfg.Database)
		}
	}
	return &driverError{msg: doing + ": " + oneLine(err.Error()), cause: err}
}

// driverLog adapts the driver's logger to slog, at debug level: what the
// driver warns about (a retried transaction, a dropped connection) reaches
// the user, once, as the connector's own error or warning. The driver never
// logs credentials through this interface.
type driverLog struct{ l *slog.Logger }

func (d driverLog) Error(name, id string, err error) {
	d.l.Debug("neo4j driver", "component", name, "id", id, "error", err.Error())
}
func (d driverLog) Warnf(name, id, msg string, args ...any) {
	d.l.Debug("neo4j driver: "+fmt.Sprintf(msg, args...), "component", name, "id", id)
}
func (d driverLog) Infof(name, id, msg string, args ...any) {
	d.l.Debug("neo4j driver: "+fmt.Sprintf(msg, args...), "component", name, "id", id)
}
func (d driverLog) Debugf(name, id, msg string, args ...any) {
	d.l.Debug("neo4j driver: "+fmt.Sprintf(msg, args...), "component", name, "id", id)
}
