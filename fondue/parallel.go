package fondue

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// workerCount resolves a requested number of workers (0 or less: all cores).
func workerCount(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// forChunks runs fn(worker, chunk) for every chunk in [0, chunks) on up to
// workers goroutines. Chunks are handed out dynamically for load balance;
// callers keep results deterministic by making each chunk's output depend only
// on the chunk, never on the worker. It stops early and returns ctx.Err()
// when ctx is cancelled.
func forChunks(ctx context.Context, workers, chunks int, fn func(worker, chunk int)) error {
	workers = min(workerCount(workers), chunks)
	if workers <= 1 {
		for c := 0; c < chunks; c++ {
			if c&15 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			fn(0, c)
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
			}
		}(w)
	}
	wg.Wait()
	return ctx.Err()
}

// rowChunks splits rows 0..n-1 into contiguous chunks of roughly equal cost,
// where cost(i) is given. The split depends only on the costs, never on the
// number of workers, which is what keeps per-chunk sums reproducible.
func rowChunks(n int, target float64, cost func(i int) float64) []int {
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
