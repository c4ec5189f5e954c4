package main

import (
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
)

// splitterNames lists the splitters of score, review and sync, the default
// first.
var splitterNames = cli.SplitterNames

// isSplitterName reports whether name is one of fondue's splitters.
var isSplitterName = cli.IsSplitterName

// scoreOptions builds the engine's options from the configuration
// (cli.EngineOptions).
func (a *app) scoreOptions() (fondue.Options, error) { return cli.EngineOptions(a.cfg) }

var describeOptions = cli.DescribeOptions
