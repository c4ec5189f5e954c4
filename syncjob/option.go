package syncjob

// Option is a setting of the package's API as messages name it: its
// value is the Go name ("PullOptions.WriteNodeLabels"). A program with
// names of its own for the settings (a CLI's configuration keys) gives
// them to Error.Render; every Option a message may name is a constant
// below (a Store's own settings are constants of its package).
type Option string

// The Options that messages name.
const (
	OptNodeLabels            Option = "PullOptions.NodeLabels"
	OptRelationshipTypes     Option = "PullOptions.RelationshipTypes"
	OptNodeQuery             Option = "PullOptions.NodeQuery"
	OptRelationshipQuery     Option = "PullOptions.RelationshipQuery"
	OptIDProperty            Option = "PullOptions.IDProperty"
	OptDisplayProperties     Option = "PullOptions.DisplayProperties"
	OptEvidenceProperties    Option = "PullOptions.EvidenceProperties"
	OptWriteNodeLabels       Option = "PullOptions.WriteNodeLabels"
	OptMarkerLabel           Option = "PullOptions.MarkerLabel"
	OptPullEmbeddingProperty Option = "PullOptions.EmbeddingProperty"

	OptWriteProperty          Option = "WriteOptions.Property"
	OptScoreProperty          Option = "WriteOptions.ScoreProperty"
	OptEntitiesProperty       Option = "WriteOptions.EntitiesProperty"
	OptRunProperty            Option = "WriteOptions.RunProperty"
	OptWriteEmbeddingProperty Option = "WriteOptions.EmbeddingProperty"

	OptCloneKey       Option = "Options.CloneKey"
	OptSkipProperties Option = "Options.SkipProperties"
	OptApplyCloneKey  Option = "ApplyOptions.CloneKey"
	OptLockTTL        Option = "LockOptions.TTL"
	OptUnfinished     Option = "Options.Unfinished"

	OptDuplicateType Option = "DuplicateOptions.Type"
	OptNameProperty  Option = "DuplicateOptions.NameProperty"

	// A plan's names (Apply checks them; a Store finds nodes by the key).
	OptPlanNodeLabels        Option = "Plan.NodeLabels"
	OptPlanRelationshipTypes Option = "Plan.RelationshipTypes"
	OptPlanIDProperty        Option = "Plan.IDProperty"
	OptPlanDisplayProperties Option = "Plan.DisplayProperties"
	OptPlanMarkerLabel       Option = "Plan.MarkerLabel"
	OptPlanSkipProperties    Option = "Plan.SkipProperties"
)
