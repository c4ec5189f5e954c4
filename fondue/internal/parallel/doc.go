// Package parallel runs the engine's loops over chunks of rows on several
// goroutines (ForChunks, RowChunks) so that results do not depend on the
// number of workers, and reports the chunks done as progress.
package parallel
