package main

import (
	"context"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/metrics"
)

// metricsTimeout bounds the push and the textfile write at the end of a
// run, an interrupted one included (Kubernetes allows 30 s after SIGTERM).
const metricsTimeout = 10 * time.Second

// withMetrics runs a sync or undo (command) and reports it where
// metrics.pushgateway_url and metrics.textfile say, with the exit code the
// process exits with; run fills a.ran's summary. A dry run reports
// nothing. A report that fails is logged: the run's exit code stays.
func (a *app) withMetrics(ctx context.Context, command string, run func() error) error {
	start := time.Now()
	a.ran = metrics.Run{Command: command}
	err := run()
	c := a.cfg
	if c == nil || (c.Metrics.PushgatewayURL == "" && c.Metrics.Textfile == "") || (command == "sync" && c.DryRun) {
		return err
	}
	r := a.ran
	r.Database, r.Start, r.End = c.Neo4j.Database, start, time.Now()
	if err != nil {
		r.ExitCode = cli.ExitCode(ctx, err)
	}
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), metricsTimeout)
	defer cancel()
	o := metrics.Options{PushgatewayURL: c.Metrics.PushgatewayURL, Job: c.Metrics.Job, Textfile: c.Metrics.Textfile}
	if merr := metrics.Record(mctx, o, r); merr != nil {
		a.log.Error("the run's metrics were not reported", "command", command, "exit_code", r.ExitCode, "error", merr.Error())
	}
	return err
}
