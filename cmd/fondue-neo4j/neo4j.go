package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/connector"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/output"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/runid"
)

// neo4jConfig builds the connection settings. There is no password
// flag: the password comes from FONDUE_NEO4J_PASSWORD or a file
// (neo4j.password_file, --password-file), so that it never shows in a
// process list or a shell history; of the two, the configuration keeps the
// one that wins (config.Neo4j).
func (a *app) neo4jConfig() (connector.Config, error) {
	c := a.cfg.Neo4j
	var cfg connector.Config
	pw := c.Password
	if file := c.PasswordFile; file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return cfg, usageErrorf("neo4j.password_file: cannot read %s: %v", file, errors.Unwrap(err))
		}
		pw = strings.TrimRight(string(data), "\r\n")
		if pw == "" {
			return cfg, usageErrorf("neo4j.password_file %s is empty", file)
		}
	}
	cfg.URI = c.URI
	cfg.User = c.User
	cfg.Password = pw
	cfg.Database = c.Database
	cfg.ConnectTimeout = c.ConnectTimeout
	cfg.MaxRetryTime = c.MaxRetryTime
	cfg.FetchSize = a.cfg.Graph.FetchSize
	cfg.ReadConcurrency = a.cfg.Graph.ReadConcurrency
	cfg.Log = a.log
	return cfg, nil
}

// runID returns run_id, "" when it is not set: syncjob.Sync then resumes
// an unfinished run or takes a new id (the UTC time and a random suffix).
func (a *app) runID() (string, error) {
	id := a.cfg.RunID
	if id == "" {
		return "", nil
	}
	if !runid.Valid(id) {
		return "", usageErrorf("run_id %q: use up to 128 letters, digits and . _ : + -", id)
	}
	return id, nil
}

func (a *app) outputJSON() (bool, error) {
	switch o := strings.ToLower(a.cfg.Output.Format); o {
	case "json":
		return true, nil
	case "text", "":
		return false, nil
	default:
		return false, usageErrorf("output %q: want text or json", o)
	}
}

// exitCode gives the sync job's errors their exit code, and says which
// settings to change where the job cannot name them.
func exitCode(err error) error {
	var ee *exitErr
	var ue *syncjob.UnfinishedError
	switch {
	case err == nil || errors.As(err, &ee):
		return err
	case errors.Is(err, connector.ErrNoPassword):
		return withCode(exitAuth, fmt.Errorf("%w: set FONDUE_NEO4J_PASSWORD or neo4j.password_file", err))
	case syncjob.IsAuth(err):
		return withCode(exitAuth, err)
	case errors.Is(err, connector.ErrNoAnswer):
		return withCode(exitUnreachable, fmt.Errorf("%w (neo4j.connect_timeout)", err))
	case errors.As(err, &ue):
		u := ue.Run
		return fmt.Errorf("run %s stopped after %d of %d splits (split.unfinished fail): resume it (split.unfinished resume, or --run-id %s) or undo it (split.unfinished undo, or fondue-neo4j undo --run-id %s)",
			u.RunID, u.Split, u.Planned, u.RunID, u.RunID)
	case syncjob.IsUnreachable(err):
		return withCode(exitUnreachable, err)
	case syncjob.IsEmpty(err), syncjob.IsUnknownRun(err):
		return withCode(exitEmpty, err)
	case syncjob.IsLocked(err):
		return withCode(exitLocked, err)
	case syncjob.IsInvalid(err), syncjob.IsStalePlan(err):
		return withCode(exitUsage, err)
	case errors.Is(err, syncjob.ErrMemory):
		return withCode(exitMemory, fmt.Errorf("%w; lower embedding.dim, raise max_memory, or use a larger machine", err))
	}
	return err
}

// printJSON writes v to stdout, indented.
func (a *app) printJSON(v any) error { return output.JSON(a.stdout, v) }

func millis(d time.Duration) int64 { return d.Milliseconds() }
