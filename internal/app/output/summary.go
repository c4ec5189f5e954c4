package output

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/text/plural"
)

// terminalTop is how many of a sync summary's most ambiguous nodes the
// terminal summary and the log record show.
const terminalTop = 5

// SyncText writes a sync run's summary for people (on a terminal): what
// was written or the approved plan applied, what was scored, and
// what was split with the command that undoes it.
func SyncText(w io.Writer, sum *syncjob.Summary) {
	for _, u := range sum.Unfinished {
		fmt.Fprintln(w, u.String())
	}
	if ap := sum.ApprovedPlan; ap != nil {
		fmt.Fprintf(w, "run %s: approved plan %s (reviewed %s)\n", sum.RunID, ap.File, ap.ReviewedAt)
	} else {
		fmt.Fprintf(w, "run %s: %s, %s; %s written (pull %s, compute %s, write %s)\n",
			sum.RunID, plural.N(sum.NodeCount, "node"), plural.N(sum.RelationshipCount, "relationship"), plural.Of(sum.NodePropertiesWritten, "property", "properties"),
			ms(sum.PreProcessingMillis), ms(sum.ComputeMillis), ms(sum.WriteMillis))
	}
	scored(w, sum)
	if in := sum.Incremental; in != nil {
		if in.Mode == syncjob.ModeFull {
			fmt.Fprintf(w, "a full run: %s\n", in.Reason)
		} else {
			fmt.Fprintf(w, "an incremental run: %s changed, %s re-scored, %s kept\n",
				plural.N(in.NodesChanged, "node"), plural.N(in.NodesRescored, "node"), plural.N(in.NodesReused, "node"))
		}
	}
	if sum.NodesUnchanged > 0 {
		fmt.Fprintf(w, "written: %s; %s unchanged, left alone\n", plural.N(sum.NodesWritten, "node"), plural.N(sum.NodesUnchanged, "node"))
	}
	if sum.WarmStartFrom != "" {
		fmt.Fprintf(w, "warm start from the %s: %d nodes reused, %d new (%d epochs)\n", sum.WarmStartFrom, sum.WarmStartNodes, sum.WarmStartNewNodes, sum.Epochs)
	}
	if n := len(sum.Remembered); n > 0 {
		fmt.Fprintf(w, "not proposed: %d nodes a review decided on, their neighbours unchanged (undo --forget-decisions forgets the decisions)\n", n)
	}
	if d := sum.Duplicates; d != nil {
		fmt.Fprintf(w, "duplicates: %s compared, %s scored, %s kept; %s written, %s of earlier runs deleted; memory estimate %s\n",
			plural.N(d.Compared, "node"), plural.N(d.Candidates, "candidate pair"), plural.N(len(d.Pairs), "pair"),
			plural.N(d.RelationshipsWritten, d.RelationshipType+" relationship"), plural.N(d.RelationshipsDeleted, "relationship"),
			sysmem.FormatBytes(d.MemoryEstimate))
		for _, p := range d.Pairs[:min(len(d.Pairs), terminalTop)] {
			fmt.Fprintf(w, "  %.3f  %s ~ %s  %s\n", p.Probability, p.A.Key.DescribeNode(p.A.Name), p.B.Key.DescribeNode(p.B.Name), strings.Join(p.Reasons, "; "))
		}
	}
	if sp := sum.Split; sp != nil {
		fmt.Fprintf(w, "split: %d of %d planned nodes split (%d already, %d skipped, %d failed), %s created, %s moved; undo: fondue-neo4j undo --run-id %s\n",
			sp.Split, sp.Planned, sp.AlreadyDone, sp.Skipped, sp.Failed, plural.N(sp.NodesCreated, "node"), plural.N(sp.RelationshipsMoved, "relationship"), sum.RunID)
	}
}

// SyncAttrs are the attributes of a sync run's one log record (off a
// terminal), the same facts as SyncText's.
func SyncAttrs(sum *syncjob.Summary) []any {
	attrs := []any{"run_id", sum.RunID, "nodeCount", sum.NodeCount, "relationshipCount", sum.RelationshipCount,
		"nodePropertiesWritten", sum.NodePropertiesWritten, "preProcessingMillis", sum.PreProcessingMillis,
		"computeMillis", sum.ComputeMillis, "writeMillis", sum.WriteMillis, "nodesWritten", sum.NodesWritten, "nodesUnchanged", sum.NodesUnchanged}
	if in := sum.Incremental; in != nil {
		attrs = append(attrs, "mode", in.Mode, "nodesChanged", in.NodesChanged, "nodesRescored", in.NodesRescored, "nodesReused", in.NodesReused)
		if in.Reason != "" {
			attrs = append(attrs, "fullReason", in.Reason)
		}
	}
	if sc := sum.Scored; sc != nil {
		attrs = append(attrs, "scoredNodes", sc.Nodes, "unscoredNodes", sum.UnscoredNodes)
		if sc.Labels != nil {
			attrs = append(attrs, "scoredByLabel", scoredByLabel(sc))
		}
		if sc.Context > 0 {
			attrs = append(attrs, "contextNodes", sc.Context, "contextByLabel", contextByLabel(sc))
		}
		var top []string
		for _, n := range sc.Top[:min(len(sc.Top), terminalTop)] {
			top = append(top, n.Key.DescribeNode(n.Name))
		}
		attrs = append(attrs, "mostAmbiguous", top)
		if len(sc.Sure) > 0 {
			attrs = append(attrs, "sure", SureTexts(sc.Sure))
		}
	}
	if sum.WarmStartFrom != "" {
		attrs = append(attrs, "warmStartFrom", sum.WarmStartFrom, "warmStartNodes", sum.WarmStartNodes, "warmStartNewNodes", sum.WarmStartNewNodes, "epochs", sum.Epochs)
	}
	if n := len(sum.Remembered); n > 0 {
		attrs = append(attrs, "notProposedByDecision", n)
	}
	if d := sum.Duplicates; d != nil {
		attrs = append(attrs, "duplicatesCompared", d.Compared, "duplicateCandidates", d.Candidates, "duplicatePairs", len(d.Pairs),
			"duplicateRelationshipsWritten", d.RelationshipsWritten, "duplicateRelationshipsDeleted", d.RelationshipsDeleted,
			"duplicatesMemoryEstimateBytes", d.MemoryEstimate)
	}
	if sp := sum.Split; sp != nil {
		attrs = append(attrs, "splitMillis", sum.SplitMillis, "split", sp.Split, "nodesCreated", sp.NodesCreated)
	}
	if ap := sum.ApprovedPlan; ap != nil {
		attrs = append(attrs, "approvedPlan", ap.File, "approvedFingerprint", ap.Fingerprint)
	}
	var unfinished []string
	for _, u := range sum.Unfinished {
		unfinished = append(unfinished, u.String())
	}
	if unfinished != nil {
		attrs = append(attrs, "unfinished", unfinished)
	}
	return attrs
}

// scoredByLabel is the number of scored nodes of each label.
func scoredByLabel(sc *syncjob.Scored) map[string]int {
	m := make(map[string]int, len(sc.Labels))
	for l, c := range sc.Labels {
		m[l] = c.Scored
	}
	return m
}

// contextByLabel is the number of context nodes of each label that has
// some.
func contextByLabel(sc *syncjob.Scored) map[string]int {
	m := map[string]int{}
	for l, c := range sc.Labels {
		if c.Context > 0 {
			m[l] = c.Context
		}
	}
	return m
}

// labelParts lists counts per label, most first: "77 Character, 12 Paris"
// (labels counting none left out).
func labelParts(sc *syncjob.Scored, count func(syncjob.LabelCount) int) string {
	labels := slices.Collect(maps.Keys(sc.Labels))
	slices.SortFunc(labels, func(a, b string) int {
		if c := cmp.Compare(count(sc.Labels[b]), count(sc.Labels[a])); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, l := range labels {
		if n := count(sc.Labels[l]); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, l))
		}
	}
	return strings.Join(parts, ", ")
}

// scored writes what a run scored, for people: the scored nodes per
// label (most first), the context nodes (write.node_labels), then the
// most ambiguous nodes, one a line:
//
//	scored 77 nodes: 77 Character, 12 Paris; 3 isolated nodes not scored; 120 context nodes: 120 Place
//	most ambiguous (ambiguity, score, node, labels):
//	  1.0000  0.974026  11 (Valjean)  :Character
func scored(w io.Writer, sum *syncjob.Summary) {
	sc := sum.Scored
	if sc == nil {
		return
	}
	line := "scored " + plural.N(sc.Nodes, "node")
	if parts := labelParts(sc, func(c syncjob.LabelCount) int { return c.Scored }); parts != "" {
		line += ": " + parts
	}
	if sum.UnscoredNodes > 0 {
		line += fmt.Sprintf("; %s not scored", plural.N(sum.UnscoredNodes, "isolated node"))
	}
	if sc.Context > 0 {
		line += "; " + plural.N(sc.Context, "context node")
		if parts := labelParts(sc, func(c syncjob.LabelCount) int { return c.Context }); parts != "" {
			line += ": " + parts
		}
	}
	fmt.Fprintf(w, "%s\n", line)
	for _, t := range SureTexts(sc.Sure) {
		fmt.Fprintf(w, "%s\n", t)
	}
	if len(sc.Top) == 0 {
		return
	}
	fmt.Fprintf(w, "most ambiguous (ambiguity, score, node, labels):\n")
	for _, n := range sc.Top[:min(len(sc.Top), terminalTop)] {
		labels := ""
		if len(n.Labels) > 0 {
			labels = "  :" + strings.Join(n.Labels, ":")
		}
		fmt.Fprintf(w, "  %.4f  %.6g  %s%s\n", n.Ambiguity, n.Score, n.Key.DescribeNode(n.Name), labels)
	}
}

// SureTexts say in words how sure the tops of a ranking are (see
// score.Sure), one a top: well separated when chance explains less than
// half of it, else a short list to check.
func SureTexts(sure []score.Sure) []string {
	var out []string
	for _, s := range sure {
		top := "the top " + plural.N(s.Top, "node")
		if s.OnePercent {
			top = fmt.Sprintf("the top 1%% (%s, ambiguity > 0.99)", plural.N(s.Top, "node"))
		}
		chance := fmt.Sprintf("chance alone would put about %.1f of them there", s.Chance)
		if s.Chance >= float64(s.Top) {
			chance = "chance alone would fill it"
		}
		if s.Separated() {
			out = append(out, fmt.Sprintf("%s: well separated, %s; worth reviewing", top, chance))
		} else {
			out = append(out, fmt.Sprintf("%s: a short list to check, not a finding; %s", top, chance))
		}
	}
	return out
}

func ms(m int64) string {
	return (time.Duration(m) * time.Millisecond).Round(time.Millisecond).String()
}

// EstimateText writes a memory estimate's phases and parts, and the
// verdict against limit (0: none known).
func EstimateText(w io.Writer, e memory.Estimate, fits bool, limit int64) error {
	tw := tabwriter.NewWriter(w, 2, 8, 3, ' ', 0)
	for _, ph := range e.Phases {
		fmt.Fprintf(tw, "%s\t%s\t\n", ph.Phase, sysmem.FormatBytes(ph.Bytes))
		for _, p := range ph.Parts {
			fmt.Fprintf(tw, "  %s\t%s\t\n", p.Name, sysmem.FormatBytes(p.Bytes))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	verdict := "fits"
	switch {
	case !fits:
		verdict = "does NOT fit"
	case e.HeldToLimit(limit):
		verdict = "fits, with the garbage collector held to the limit (more CPU time)"
	}
	limitText := "no limit known"
	if limit > 0 {
		limitText = "limit " + sysmem.FormatBytes(limit)
	}
	_, err := fmt.Fprintf(w, "\nleast memory (the live data, the collector held to it): %s\nrequired memory (peak resident, with GC headroom): %s; %s (%s)\n",
		sysmem.FormatBytes(e.Least), sysmem.FormatBytes(e.Peak), verdict, limitText)
	return err
}

// EstimateJSON is estimate's JSON: the counts, the peak, live and least
// bytes, the limit (0: none known), whether it fits and whether only with
// the collector held to the limit, and the phases.
func EstimateJSON(nodes, edges int64, e memory.Estimate, fits bool, limit int64) map[string]any {
	return map[string]any{
		"nodeCount": nodes, "relationshipCount": edges, "requiredMemory": sysmem.FormatBytes(e.Peak),
		"bytesPeak": e.Peak, "bytesLive": e.Live, "bytesLeast": e.Least, "limitBytes": limit, "fits": fits,
		"heldToLimit": fits && e.HeldToLimit(limit), "phases": e.Phases,
	}
}

// JSON writes v indented, and a newline.
func JSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
