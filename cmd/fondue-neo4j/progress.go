package main

import (
	"fmt"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/schollz/progressbar/v3"
)

// progress turns the engine's progress reports into one progress bar per
// phase on a terminal. Off a terminal it logs each phase's end at debug
// level, so that scheduled runs keep quiet logs.
type progress struct {
	a     *app
	bar   *progressbar.ProgressBar
	phase fondue.Phase
	start time.Time
}

func newProgress(a *app) *progress { return &progress{a: a} }

func (p *progress) report(pr fondue.Progress) {
	if pr.Phase != p.phase {
		p.finish()
		p.phase, p.start = pr.Phase, time.Now()
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
