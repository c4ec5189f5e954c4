package main

import (
	"fmt"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/schollz/progressbar/v3"
)

// progressLogEvery is how often a long phase logs its progress off a
// terminal (a variable for tests).
var progressLogEvery = 30 * time.Second

// progress turns the engine's progress reports into one progress bar per
// phase on a terminal. Off a terminal it logs each phase's end at debug
// level, so that scheduled runs keep quiet logs, and a phase that runs long
// logs where it is every progressLogEvery, so that a slow run is never
// silent.
type progress struct {
	a       *app
	bar     *progressbar.ProgressBar
	phase   fondue.Phase
	start   time.Time
	lastLog time.Time
}

func newProgress(a *app) *progress { return &progress{a: a} }

func (p *progress) report(pr fondue.Progress) {
	if pr.Phase != p.phase {
		p.finish()
		p.phase, p.start = pr.Phase, time.Now()
		p.lastLog = p.start
		if p.a.tty && pr.Total > 0 {
			total := pr.Total
			if pr.Phase == fondue.PhaseEmbedding {
				// Training stops at convergence, usually long before the
				// epoch limit: count epochs instead of filling a bar.
				total = -1
			}
			p.bar = progressbar.NewOptions(total,
				progressbar.OptionSetWriter(p.a.stderr),
				progressbar.OptionSetDescription(fmt.Sprintf("%-10s", pr.Phase)),
				progressbar.OptionShowCount(),
				progressbar.OptionSetWidth(30),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionClearOnFinish(),
			)
		}
	}
	if p.bar != nil {
		_ = p.bar.Set(pr.Done)
	} else if now := time.Now(); !p.a.tty && now.Sub(p.lastLog) >= progressLogEvery {
		p.lastLog = now
		what := "done"
		if pr.Phase == fondue.PhaseEmbedding {
			what = "epochs" // of at most Total: training stops when converged
		}
		p.a.log.Info("progress", "phase", string(pr.Phase), what, pr.Done, "total", pr.Total,
			"seconds", round3(now.Sub(p.start).Seconds()))
	}
	if pr.Done >= pr.Total && pr.Phase != fondue.PhaseEmbedding {
		p.finish()
	}
}

func (p *progress) finish() {
	if p.phase == "" {
		return
	}
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
	p.a.log.Debug("phase done", "phase", string(p.phase), "seconds", time.Since(p.start).Seconds())
	p.phase = ""
}
