// Package errs holds the engine's error type for caller input that cannot
// work, shared by its packages and re-exported as fondue.OptionsError.
package errs

// OptionsError reports caller input that cannot work: options (an unknown
// method, a splitter that needs an embedding after a baseline, invalid MCL
// options) or arguments that cannot work on the graph at hand (an embedding
// with as many dimensions as the graph has nodes). Test for it with
// errors.As, with *fondue.OptionsError.
type OptionsError struct{ Msg string }

func (e *OptionsError) Error() string { return e.Msg }
