// Package textdist measures how far apart two strings are, for the
// suggestions of messages about a name that is not there ("did you mean
// ...?": a setting, a run id).
package textdist
