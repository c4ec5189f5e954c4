package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/connector"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/spf13/pflag"
)

// addNeo4jFlags adds the connection flags shared by sync and undo. There
// is no password flag: the password comes from FONDUE_NEO4J_PASSWORD or
// neo4j.password_file, so that it never shows in a process list or a
// shell history.
func addNeo4jFlags(f *pflag.FlagSet) {
	f.String("uri", "bolt://localhost:7687", "Neo4j URI: bolt://host:7687 (one server) or neo4j://host:7687 (cluster), +s/+ssc for TLS")
	f.String("user", "neo4j", "Neo4j user (password: FONDUE_NEO4J_PASSWORD or --password-file)")
	f.String("password-file", "", "file holding the Neo4j password (e.g. a mounted secret)")
	f.String("database", "", "database (Neo4j 4 and later; default: the server's default database)")
	f.String("connect-timeout", "10s", "give up connecting (and logging in) after this long when the server does not answer")
	f.String("max-retry-time", "30s", "retry transactions after transient failures (e.g. a dropped connection) for up to this long: one budget for the whole run")
	f.String("lock-name", syncjob.DefaultLockName, "name of the lock in the database: runs with the same name never write at once")
	f.String("lock-ttl", syncjob.DefaultLockTTL.String(), "the lock of a crashed run expires after this long")
	f.String("output", "text", "text (a summary on stderr) or json (the summary on stdout)")
	f.String("marker-label", syncjob.DefaultMarkerLabel, "label of the nodes a split creates (undo takes the run record's; this is for runs recorded without one)")
}

// neo4jConfig builds the connection settings and checks them.
func (a *app) neo4jConfig() (connector.Config, error) {
	v := a.v
	var cfg connector.Config
	if v.InConfig("neo4j.password") {
		return cfg, usageErrorf("neo4j.password must not be in the config file %s: set FONDUE_NEO4J_PASSWORD or neo4j.password_file", a.configFile)
	}
	// The password is one setting with the usual precedence: the
	// --password-file flag, then FONDUE_NEO4J_PASSWORD, then
	// neo4j.password_file (FONDUE_NEO4J_PASSWORD_FILE or the config file).
	pw := v.GetString("neo4j.password") // only from FONDUE_NEO4J_PASSWORD
	file := v.GetString("neo4j.password_file")
	if pw != "" && !(a.cmd != nil && a.cmd.Flags().Changed("password-file")) {
		file = ""
	}
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return cfg, usageErrorf("neo4j.password_file: cannot read %s: %v", file, errors.Unwrap(err))
		}
		pw = strings.TrimRight(string(data), "\r\n")
		if pw == "" {
			return cfg, usageErrorf("neo4j.password_file %s is empty", file)
		}
	}
	cfg.URI = v.GetString("neo4j.uri")
	cfg.User = v.GetString("neo4j.user")
	cfg.Password = pw
	cfg.Database = v.GetString("neo4j.database")
	var err error
	if cfg.ConnectTimeout, err = a.duration("neo4j.connect_timeout"); err != nil {
		return cfg, err
	}
	if cfg.MaxRetryTime, err = a.duration("neo4j.max_retry_time"); err != nil {
		return cfg, err
	}
	fs, err := a.positiveInt("graph.fetch_size")
	if err != nil {
		return cfg, err
	}
	cfg.FetchSize = fs
	if cfg.ReadConcurrency, err = a.positiveInt("graph.read_concurrency"); err != nil {
		return cfg, err
	}
	cfg.Log = a.log
	return cfg, nil
}

// duration reads a duration such as "30s" or "2m".
func (a *app) duration(key string) (time.Duration, error) {
	raw := a.v.Get(key)
	s := strings.TrimSpace(fmt.Sprint(raw))
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, usageErrorf("%s = %v: want a positive duration such as 30s, 2m or 1h", key, raw)
	}
	return d, nil
}

func (a *app) positiveInt(key string) (int, error) {
	x := a.v.GetFloat64(key)
	if x < 1 || x != float64(int64(x)) {
		return 0, usageErrorf("%s = %v: must be a positive integer", key, a.v.Get(key))
	}
	return int(x), nil
}

// stringList reads a list of names: a YAML list, a flag or an environment
// variable (comma-separated). Names are literal (config.List): nothing is
// trimmed.
func (a *app) stringList(key string) []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	switch x := a.v.Get(key).(type) {
	case []string:
		for _, s := range x {
			add(s)
		}
	case []any:
		for _, s := range x {
			add(fmt.Sprint(s))
		}
	case string:
		for _, s := range strings.Split(x, ",") {
			add(s)
		}
	case nil:
	default:
		add(fmt.Sprint(x))
	}
	return out
}

// runID returns run_id, or a new one: the UTC time and a random suffix.
func (a *app) runID() (string, error) {
	id := a.v.GetString("run_id")
	if id == "" {
		return syncjob.NewRunID(), nil
	}
	if !syncjob.ValidRunID(id) {
		return "", usageErrorf("run_id %q: use up to 128 letters, digits and . _ : + -", id)
	}
	return id, nil
}

func (a *app) outputJSON() (bool, error) {
	switch o := strings.ToLower(a.v.GetString("output")); o {
	case "json":
		return true, nil
	case "text", "":
		return false, nil
	default:
		return false, usageErrorf("output %q: want text or json", o)
	}
}

// exitCode gives the sync job's errors their exit code.
func exitCode(err error) error {
	var ee *exitErr
	switch {
	case err == nil || errors.As(err, &ee):
		return err
	case syncjob.IsAuth(err):
		return withCode(exitAuth, err)
	case syncjob.IsUnreachable(err):
		return withCode(exitUnreachable, err)
	case syncjob.IsEmpty(err), syncjob.IsUnknownRun(err):
		return withCode(exitEmpty, err)
	case syncjob.IsLocked(err):
		return withCode(exitLocked, err)
	case syncjob.IsInvalid(err), syncjob.IsStalePlan(err):
		return withCode(exitUsage, err)
	}
	return err
}

// printJSON writes v to stdout, indented.
func (a *app) printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = a.stdout.Write(append(b, '\n'))
	return err
}

func millis(d time.Duration) int64 { return d.Milliseconds() }
