package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/review"
	"github.com/spf13/cobra"
)

// newPlanCmd is "plan list|accept|reject": the review page's decisions
// without a browser, written to the same approved plan.
func newPlanCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "List, accept or reject the proposed splits of a dry run's plan, without a browser",
		Long: `plan takes the decisions of the review page from the command line. --plan
FILE is the output of "sync --split --split-top K --dry-run --output json";
--approved FILE (default fondue-approved-plan.json) is the approved plan, in
the format the review page exports, that "sync --split --plan FILE" applies.

  plan list      the plan's nodes: key, name, decision, ambiguity, entities
                 and the proposed split (groups of neighbours, "|" between)
  plan accept K  split the nodes whose keys are given, as proposed
  plan reject K  do not split them; later runs remember it

accept and reject keep every other decision in the approved plan (made
here or on the page) and write it whole or not at all; the first one
creates it. Keys are the plan's (graph.id_property values, else element
ids). To split a node with other groups than proposed, use the page.

Exit codes: 0 ok, 1 error, 2 bad usage or input (a plan that cannot be
read, a key not in the plan, an approved plan of another dry run).`,
		Example: `  fondue-neo4j sync --split --split-top 20 --dry-run --display-property name,title --output json > dry-run.json
  fondue-neo4j plan list --plan dry-run.json
  fondue-neo4j plan accept --plan dry-run.json 11 23
  fondue-neo4j plan reject --plan dry-run.json 55
  fondue-neo4j sync --split --plan fondue-approved-plan.json`,
		// Cobra checks subcommands on the root only: a wrong one here is
		// a usage error too.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("%s needs a command: list, accept or reject (see '%s --help')", cmd.CommandPath(), cmd.CommandPath())
			}
			return usageErrorf("unknown command %q for %q (list, accept or reject)", args[0], cmd.CommandPath())
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the plan's nodes with their proposed splits and decisions",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dr, ap, err := a.readPlans()
			if err != nil {
				return err
			}
			return a.listPlan(dr, ap)
		},
	}
	cmd.AddCommand(list, a.planDecideCmd(review.DecisionAccept), a.planDecideCmd(review.DecisionReject))
	for _, c := range cmd.Commands() {
		cli.AddFlags(c, config.CmdPlan)
	}
	return cmd
}

func (a *app) planDecideCmd(decision string) *cobra.Command {
	short := "Accept the proposed splits of these nodes"
	if decision == review.DecisionReject {
		short = "Reject the proposed splits of these nodes"
	}
	return &cobra.Command{
		Use:   decision + " NODE...",
		Short: short,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("%s needs the keys of the nodes to %s (see '%s --help')", cmd.CommandPath(), decision, cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			dr, ap, err := a.readPlans()
			if err != nil {
				return err
			}
			ds := map[string]string{}
			for _, k := range args {
				ds[k] = decision
			}
			if err := ap.Decide(dr, ds, time.Now()); err != nil {
				return usageErrorf("%s (plan %s, approved plan %s)", err, a.cfg.Review.Plan, a.cfg.Review.Approved)
			}
			data, err := ap.Marshal()
			if err == nil {
				err = writeFileWhole(a.cfg.Review.Approved, data)
			}
			if err != nil {
				return fmt.Errorf("approved plan %s: %w", a.cfg.Review.Approved, err)
			}
			a.log.Info("wrote the approved plan: apply it with sync --split --plan", "file", a.cfg.Review.Approved,
				"accepted", len(ap.Nodes), "rejected", len(ap.Rejected), "undecided", len(ap.Undecided))
			return nil
		},
	}
}

// readPlans reads the dry run (review.plan) and the approved plan
// (review.approved): a new one, every node undecided, when there is none.
func (a *app) readPlans() (*review.DryRun, *review.ApprovedPlan, error) {
	planFile, approved := a.cfg.Review.Plan, a.cfg.Review.Approved
	if planFile == "" {
		return nil, nil, usageErrorf("plan needs --plan FILE: the output of \"sync --split --split-top K --dry-run --output json\"")
	}
	dr, err := readDryRun(planFile)
	if err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(approved)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return dr, review.NewApproved(dr, planFile), nil
	case err != nil:
		return nil, nil, withCode(exitUsage, fmt.Errorf("approved plan %s: %w", approved, err))
	}
	ap, err := review.ParsePlan(data)
	if err != nil {
		return nil, nil, usageErrorf("%s: %v", approved, err)
	}
	return dr, ap, nil
}

// listPlan prints the plan's nodes, one a line (TSV, the column names
// first on a terminal, as score does).
func (a *app) listPlan(dr *review.DryRun, ap *review.ApprovedPlan) error {
	doc, _ := review.FromDryRun(dr, nil, nil, len(dr.Plan.Nodes))
	var b strings.Builder
	if a.outTTY {
		b.WriteString("node\tname\tdecision\tambiguity\tentities\tsplit\n")
	}
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ", "|", "/")
	for _, n := range doc.Nodes {
		var groups []string
		for _, g := range n.Groups {
			var names []string
			for _, j := range g {
				names = append(names, clean.Replace(n.Neighbors[j].Name))
			}
			groups = append(groups, strings.Join(names, ","))
		}
		key := n.Key.Text()
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%d\t%s\n", clean.Replace(key), clean.Replace(n.Name), ap.DecisionOf(key),
			strconv.FormatFloat(n.Ambiguity, 'g', 10, 64), n.Entities, strings.Join(groups, "|"))
	}
	_, err := a.stdout.Write([]byte(b.String()))
	return err
}
