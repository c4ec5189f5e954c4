package score

// Internals for the external tests (package score_test), which compare
// fondue.Score with the parts of the combined method.
var (
	SplitDisconnection  = splitDisconnection
	EffectivePieces     = effectivePieces
	GraphEvidence       = graphEvidence
	CombineRanks        = combineRanks
	CombineByDegree     = combineByDegree
	DisconnectionWeight = disconnectionWeight
)

type SignParams = signParams
