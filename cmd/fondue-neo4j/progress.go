package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/schollz/progressbar/v3"
)

// progressLogEvery is how often a long phase logs its progress off a
// terminal (a variable for tests).
var progressLogEvery = 30 * time.Second

// progressBeat is how often a running phase is looked at between the
// engine's reports: the bar's elapsed time and time left are redrawn, and
// off a terminal a phase that has not logged for progressLogEvery logs where
// it is, even when the engine has nothing new to say (an epoch of a graph of
// ten million nodes takes longer than that).
var progressBeat = time.Second

// Phases of the CLI itself, besides the engine's (fondue.Phase*) and the
// sync job's ("pull", "write", "split", "undo").
const (
	phaseLoad fondue.Phase = "load" // reading an edge list: bytes of the file
	phasePull fondue.Phase = "pull" // reading the subgraph from Neo4j: rows, total unknown
)

// progress turns progress reports into one progress bar per phase on a
// terminal, with the time left where it can be estimated. Off a terminal
// it logs each phase's end at debug level, so that scheduled runs keep
// quiet logs, and a phase that runs long logs where it is (and the time
// left) every progressLogEvery, reports or not, so that a slow run is
// never silent. Reports come from one goroutine at a time; a heartbeat
// goroutine per phase does the rest.
type progress struct {
	a   *app
	now func() time.Time // time.Now; tests set another clock

	mu       sync.Mutex
	bar      *progressbar.ProgressBar
	barTotal int       // the bar's length, -1 when it counts without one
	drawn    time.Time // when the bar was last drawn
	phase    fondue.Phase
	last     fondue.Progress // the phase's latest report
	start    time.Time
	lastLog  time.Time
	stop     chan struct{} // closed when the phase ends: its heartbeat stops
}

func newProgress(a *app) *progress { return &progress{a: a, now: time.Now} }

func (p *progress) report(pr fondue.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if pr.Phase != p.phase {
		p.finishLocked()
		p.begin(pr, now)
	}
	p.last = pr
	if p.bar != nil {
		p.draw(now)
	} else if !p.a.tty && now.Sub(p.lastLog) >= progressLogEvery {
		p.logLocked(now)
	}
	if pr.Total > 0 && pr.Done >= pr.Total && pr.Phase != fondue.PhaseEmbedding {
		p.finishLocked()
	}
}

// begin starts a phase: its bar on a terminal, and its heartbeat.
func (p *progress) begin(pr fondue.Progress, now time.Time) {
	p.phase, p.start, p.lastLog = pr.Phase, now, now
	if p.a.tty {
		total := pr.Total
		if pr.Phase == fondue.PhaseEmbedding || total <= 0 {
			// Training stops at convergence, usually long before the
			// epoch limit: count epochs instead of filling a bar. The
			// same for a phase of unknown size.
			total = -1
		}
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.a.stderr),
			progressbar.OptionSetDescription(fmt.Sprintf("%-10s", pr.Phase)),
			progressbar.OptionShowCount(),
			progressbar.OptionShowBytes(pr.Phase == phaseLoad),
			progressbar.OptionSetWidth(30),
			progressbar.OptionSetPredictTime(false), // the description says the time left
			progressbar.OptionClearOnFinish(),       // (draw throttles)
		)
		p.barTotal, p.drawn = total, time.Time{}
	}
	stop := make(chan struct{})
	p.stop = stop
	every := max(min(progressBeat, progressLogEvery), time.Millisecond)
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				p.beat(stop)
			}
		}
	}()
}

// beat is the heartbeat of the phase that stop belongs to.
func (p *progress) beat(stop chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != stop {
		return // the phase is over
	}
	now := p.now()
	switch {
	case p.bar != nil:
		p.drawn = time.Time{} // the elapsed time and the time left move on
		p.draw(now)
	case !p.a.tty && now.Sub(p.lastLog) >= progressLogEvery:
		p.logLocked(now)
	}
}

// barThrottle is the shortest time between two drawings of a bar.
const barThrottle = 100 * time.Millisecond

// draw draws the bar with the latest report and the time left, at most
// every barThrottle: the text first, then the count, so that the last
// drawing has both.
func (p *progress) draw(now time.Time) {
	if now.Sub(p.drawn) < barThrottle {
		return
	}
	p.drawn = now
	p.bar.Describe(p.describe(now))
	if p.barTotal < 0 || p.last.Done <= p.barTotal {
		_ = p.bar.Set(p.last.Done)
	}
}

// timeLeft estimates the time a phase still needs from its rate so far:
// done of total after elapsed. It cannot when nothing is done yet or the
// total is unknown.
func timeLeft(done, total int, elapsed time.Duration) (time.Duration, bool) {
	if done <= 0 || total <= 0 || elapsed <= 0 {
		return 0, false
	}
	if done >= total {
		return 0, true
	}
	return time.Duration(float64(elapsed) * float64(total-done) / float64(done)), true
}

// left says the time left of the phase, "" when it cannot be estimated.
// The embedding's is an upper bound: it is the time to the epoch limit,
// and training usually stops sooner, when it converges.
func (p *progress) left(now time.Time) string {
	d, ok := timeLeft(p.last.Done, p.last.Total, now.Sub(p.start))
	if !ok {
		return ""
	}
	s := roundDuration(d).String() + " left"
	if p.phase == fondue.PhaseEmbedding {
		s = "at most " + s
	}
	return s
}

// roundDuration rounds a duration for people: seconds below an hour,
// minutes above.
func roundDuration(d time.Duration) time.Duration {
	if d >= time.Hour {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}

// describe is the bar's text: the phase and the time left; for scoring
// with context nodes, the nodes scored and the context, so that the
// bar's count is read as the summary's "scored N nodes".
func (p *progress) describe(now time.Time) string {
	if c := p.last.Context; c > 0 {
		return fmt.Sprintf("%-10s (%d scored, %d context) %s", p.phase, p.last.Total, c, p.left(now))
	}
	return fmt.Sprintf("%-10s %s", p.phase, p.left(now))
}

// logLocked logs where the phase is (off a terminal).
func (p *progress) logLocked(now time.Time) {
	p.lastLog = now
	pr := p.last
	attrs := []any{"phase", string(p.phase)}
	switch {
	case p.phase == fondue.PhaseEmbedding:
		// Training stops when converged: the total is the epoch limit.
		attrs = append(attrs, "epochs", pr.Done, "total", pr.Total)
	case pr.Total > 0:
		attrs = append(attrs, "done", pr.Done, "total", pr.Total, "percent", round3(100*float64(pr.Done)/float64(pr.Total)))
		if pr.Context > 0 {
			attrs = append(attrs, "context", pr.Context) // not scored: total counts the scored
		}
	default:
		attrs = append(attrs, "done", pr.Done)
	}
	attrs = append(attrs, "seconds", round3(now.Sub(p.start).Seconds()))
	if d, ok := timeLeft(pr.Done, pr.Total, now.Sub(p.start)); ok {
		key := "left_seconds"
		if p.phase == fondue.PhaseEmbedding {
			key = "left_seconds_at_most" // to the epoch limit
		}
		attrs = append(attrs, key, round3(d.Seconds()))
	}
	p.a.log.Info("progress", attrs...)
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishLocked()
}

func (p *progress) finishLocked() {
	if p.phase == "" {
		return
	}
	close(p.stop)
	p.stop = nil
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
	p.a.log.Debug("phase done", "phase", string(p.phase), "seconds", p.now().Sub(p.start).Seconds())
	p.phase = ""
}

// loadProgress reports the bytes of a file read (filesource.Source's
// Progress) as the load phase's progress, finished at the file's end.
func loadProgress(p *progress) func(done, total int) {
	return func(done, total int) {
		p.report(fondue.Progress{Phase: phaseLoad, Done: done, Total: total})
		if done == total {
			p.finish()
		}
	}
}
