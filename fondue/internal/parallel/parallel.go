package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// WorkerCount resolves a requested number of workers (0 or less: all cores).
func WorkerCount(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// ForChunks runs fn(worker, chunk) for every chunk in [0, chunks) on up to
// workers goroutines. Chunks are handed out dynamically for load balance;
// callers keep results deterministic by making each chunk's output depend only
// on the chunk, never on the worker. It stops early and returns ctx.Err()
// when ctx is cancelled. When ctx carries a progress report
// (WithChunkProgress), the calling goroutine makes it as the chunks finish.
func ForChunks(ctx context.Context, workers, chunks int, fn func(worker, chunk int)) error {
	workers = min(WorkerCount(workers), chunks)
	t := NewChunkTicker(ctx, chunks)
	if workers <= 1 {
		for c := 0; c < chunks; c++ {
			if c&15 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			fn(0, c)
			t.FinishedHere()
		}
		return ctx.Err()
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks || ctx.Err() != nil {
					return
				}
				fn(w, c)
				t.Finished()
			}
		}(w)
	}
	t.Wait(&wg)
	return ctx.Err()
}

// chunkProgressKey is the context key of a chunk progress report.
type chunkProgressKey struct{}

// chunkReport receives how many chunks of a parallel loop are done.
type chunkReport func(done, total int)

// WithChunkProgress returns a context under which ForChunks and
// baselineParallel report how many of their chunks are done, at each
// percent of them (each chunk when there are fewer than 100), from the
// calling goroutine, never with done = total (the loop's end is its
// caller's to report). Score uses it for progress within the scoring and
// splitting phases; the reports change nothing of what is computed.
func WithChunkProgress(ctx context.Context, report func(done, total int)) context.Context {
	return context.WithValue(ctx, chunkProgressKey{}, chunkReport(report))
}

// SubProgress returns ctx with its chunk progress report (if any) mapped
// to the share [lo, hi) of it: for a phase made of several parallel loops
// one after another, each reports its part and the whole never goes back.
func SubProgress(ctx context.Context, lo, hi float64) context.Context {
	report, _ := ctx.Value(chunkProgressKey{}).(chunkReport)
	if report == nil {
		return ctx
	}
	const scale = 1 << 20
	return context.WithValue(ctx, chunkProgressKey{}, chunkReport(func(done, total int) {
		report(int(scale*(lo+(hi-lo)*float64(done)/float64(total))), scale)
	}))
}

// ChunkTicker makes the reports of WithChunkProgress for one loop; a nil
// *ChunkTicker (no report asked) does nothing.
type ChunkTicker struct {
	report chunkReport
	chunks int
	done   atomic.Int64
	tick   chan struct{} // a percent was crossed (workers to the caller)
}

// NewChunkTicker returns the ticker of a loop of chunks under ctx: nil
// when ctx asks for no report (WithChunkProgress) or there is one chunk.
func NewChunkTicker(ctx context.Context, chunks int) *ChunkTicker {
	report, _ := ctx.Value(chunkProgressKey{}).(chunkReport)
	if report == nil || chunks <= 1 {
		return nil
	}
	return &ChunkTicker{report: report, chunks: chunks, tick: make(chan struct{}, 1)}
}

// step reports whether d done chunks cross a percent of the total, short of all.
func (t *ChunkTicker) step(d int) bool {
	return d < t.chunks && d*100/t.chunks != (d-1)*100/t.chunks
}

// Finished counts a chunk done by a worker, and wakes the caller at a step.
func (t *ChunkTicker) Finished() {
	if t == nil {
		return
	}
	if t.step(int(t.done.Add(1))) {
		select {
		case t.tick <- struct{}{}:
		default: // the caller has one pending already
		}
	}
}

// FinishedHere counts a chunk done by the calling goroutine itself.
func (t *ChunkTicker) FinishedHere() {
	if t == nil {
		return
	}
	if d := int(t.done.Add(1)); t.step(d) {
		t.report(d, t.chunks)
	}
}

// Wait waits for the workers of wg, making the reports meanwhile.
func (t *ChunkTicker) Wait(wg *sync.WaitGroup) {
	if t == nil {
		wg.Wait()
		return
	}
	end := make(chan struct{})
	go func() {
		wg.Wait()
		close(end)
	}()
	last := 0
	for {
		select {
		case <-end:
			return
		case <-t.tick:
			if d := int(t.done.Load()); d < t.chunks && d > last {
				t.report(d, t.chunks)
				last = d
			}
		}
	}
}

// RowChunks splits rows 0..n-1 into contiguous chunks of roughly equal cost,
// where cost(i) is given. The split depends only on the costs, never on the
// number of workers, which is what keeps per-chunk sums reproducible.
func RowChunks(n int, target float64, cost func(i int) float64) []int {
	bounds := []int{0}
	acc := 0.0
	for i := 0; i < n; i++ {
		acc += cost(i)
		if acc >= target && i+1 < n {
			bounds = append(bounds, i+1)
			acc = 0
		}
	}
	return append(bounds, n)
}

// FirstError returns the first error of errs that is not nil, or nil.
// Loops over chunks keep one error per chunk (or per item) and return this
// one, so that the error they return does not depend on the workers.
func FirstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
