package fondue

// OptionsError reports options that cannot work (an unknown method, a
// splitter that needs an embedding after a baseline) or cannot work on the
// graph at hand (an embedding with as many dimensions as the graph has
// nodes). Test for it with errors.As.
type OptionsError struct{ Msg string }

func (e *OptionsError) Error() string { return e.Msg }
