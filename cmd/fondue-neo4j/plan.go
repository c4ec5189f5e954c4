package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/review"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
	"github.com/spf13/cobra"
)

// newPlanCmd is "plan list|accept|reject": the review page's decisions
// without a browser, written to the same approved plan.
func newPlanCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "List, accept or reject the proposed splits (or merges) of a dry run's plan, without a browser",
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

The merge plan of "sync --duplicates --dry-run --output json" works alike,
on pairs given as KEY,KEY: list prints keep, merge, their names, decision,
score and reasons; the approved plan is the merge plan with the decisions,
which "sync --merge --plan FILE" merges (docs/duplicates.md).

Exit codes: 0 ok, 1 error, 2 bad usage or input (a plan that cannot be
read, a key not in the plan, an approved plan of another dry run).`,
		Example: `  fondue-neo4j sync --split --split-top 20 --dry-run --display-property name,title --output json > dry-run.json
  fondue-neo4j plan list --plan dry-run.json
  fondue-neo4j plan accept --plan dry-run.json 11 23
  fondue-neo4j plan reject --plan dry-run.json 55
  fondue-neo4j sync --split --plan fondue-approved-plan.json
  fondue-neo4j sync --duplicates --dry-run --output json > duplicates.json
  fondue-neo4j plan accept --plan duplicates.json --approved merge.json a:17150,a:17151
  fondue-neo4j sync --merge --plan merge.json`,
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
			switch {
			case err != nil:
				return err
			case dr.Merge != nil:
				mp, err := a.approvedMerge(dr)
				if err != nil {
					return err
				}
				return a.listMergePlan(mp)
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
			switch {
			case err != nil:
				return err
			case dr.Merge != nil:
				return a.decideMerge(dr, args, decision)
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
	if err != nil || dr.Merge != nil {
		return dr, nil, err // a merge plan's approved plan: approvedMerge
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

// approvedMerge is the approved plan (review.approved) of the merge plan
// of a dry run (dr.Merge): the dry run's plan, every pair undecided, when
// there is none yet.
func (a *app) approvedMerge(dr *review.DryRun) (*mergeplan.Plan, error) {
	planFile, approved := a.cfg.Review.Plan, a.cfg.Review.Approved
	data, err := os.ReadFile(approved)
	switch {
	case errors.Is(err, os.ErrNotExist):
		p := *dr.Merge
		p.Pairs, p.Input = slices.Clone(p.Pairs), planFile
		return &p, nil
	case err != nil:
		return nil, withCode(exitUsage, fmt.Errorf("approved plan %s: %w", approved, err))
	case !mergeplan.IsMerge(data):
		return nil, usageErrorf("approved plan %s is a split's, and plan %s a merge plan: give the merge's with --approved FILE", approved, planFile)
	}
	p, err := mergeplan.Parse(data)
	if err != nil {
		return nil, usageErrorf("%s: %v", approved, err)
	}
	if p.RunID != dr.Merge.RunID {
		return nil, usageErrorf("approved plan %s: reviewed from the dry run of run %s, not from %s (run %s)", approved, p.RunID, planFile, dr.Merge.RunID)
	}
	return p, nil
}

// decideMerge is "plan accept|reject" on a merge plan's pairs, each given
// as KEEP,MERGE (either order), written to the approved plan whole.
func (a *app) decideMerge(dr *review.DryRun, args []string, decision string) error {
	mp, err := a.approvedMerge(dr)
	if err != nil {
		return err
	}
	ds := map[[2]string]string{}
	for _, arg := range args {
		x, y, ok := strings.Cut(arg, ",")
		if !ok || x == "" || y == "" {
			return usageErrorf("%q: give a pair of the merge plan as KEY,KEY (see plan list --plan %s)", arg, a.cfg.Review.Plan)
		}
		ds[[2]string{x, y}] = decision
	}
	if err := mp.Decide(ds, splitplan.ISOTime(time.Now())); err != nil {
		return usageErrorf("%v (plan %s, approved plan %s)", err, a.cfg.Review.Plan, a.cfg.Review.Approved)
	}
	data, err := mp.Marshal()
	if err == nil {
		err = writeFileWhole(a.cfg.Review.Approved, append(data, '\n'))
	}
	if err != nil {
		return fmt.Errorf("approved plan %s: %w", a.cfg.Review.Approved, err)
	}
	rejected := 0
	for _, p := range mp.Pairs {
		if p.Decision == mergeplan.DecisionReject {
			rejected++
		}
	}
	a.log.Info("wrote the approved merge plan: apply it with sync --merge --plan", "file", a.cfg.Review.Approved,
		"accepted", len(mp.Accepted()), "rejected", rejected, "undecided", len(mp.Pairs)-len(mp.Accepted())-rejected)
	return nil
}

// listMergePlan prints the pairs of a merge plan, one a line (TSV, the
// column names first on a terminal).
func (a *app) listMergePlan(mp *mergeplan.Plan) error {
	var b strings.Builder
	if a.outTTY {
		b.WriteString("keep\tmerge\tkeep_name\tmerge_name\tdecision\tscore\treasons\n")
	}
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	for _, p := range mp.Pairs {
		var rs []string
		for _, r := range p.Reasons {
			rs = append(rs, clean.Replace(r.Value))
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", clean.Replace(p.Keep.Text()), clean.Replace(p.Merge.Text()),
			clean.Replace(p.KeepName), clean.Replace(p.MergeName), p.Decision, strconv.FormatFloat(p.Score, 'g', 10, 64), strings.Join(rs, "; "))
	}
	_, err := a.stdout.Write([]byte(b.String()))
	return err
}
