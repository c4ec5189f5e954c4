package fondue

import "github.com/fondue-neo4j/fondue-neo4j/fondue/internal/errs"

// OptionsError reports caller input that cannot work: options (an unknown
// method, a splitter that needs an embedding after a baseline, invalid MCL
// options) or arguments that cannot work on the graph at hand (an embedding
// with as many dimensions as the graph has nodes). Every package of the
// engine returns it; test for it with errors.As.
type OptionsError = errs.OptionsError
