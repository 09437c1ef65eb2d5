package recipes

// Internals the external tests use.

var AoCheck = aoCheck
var Averages = averages
var AoDimension = aoDimension
var AoSample = aoSample
var BuildInductionFrequent = buildInductionFrequent
var ComponentNames = componentNames
var Dyck1Values = dyck1Values
var DyckAlphabet = dyckAlphabet
var DyckBit = dyckBit
var DyckDepth = dyckDepth
var DyckMember = dyckMember
var DyckO = dyckO
var DyckSample = dyckSample
var DyckUnmatched = dyckUnmatched

type InductFrequentPrinted = inductFrequentPrinted

var InductionInputs = inductionInputs
var LhGap = lhGap
var LhScore = lhScore
var LookupAlphabet = lookupAlphabet
var LookupConcat = lookupConcat
var LookupExpected = lookupExpected
var LookupIndex = lookupIndex
var LookupInputs = lookupInputs
var LookupProjections = lookupProjections
var LookupValid = lookupValid
var MultiHeadExpected = multiHeadExpected
var PredExpected = predExpected
var PredFirstHead = predFirstHead
var PredValue = predValue
var RatOf = ratOf
var RealVectors = realVectors
var SampleAO = sampleAO
var SampleOrAll = sampleOrAll
var TieBreakExpected = tieBreakExpected
var TieBreakTerms = tieBreakTerms

type VectorInput = vectorInput

// The recipes, by the names the tests have always used (the package
// reaches them by name, through Get).
var (
	Add                      = add
	Amplify                  = amplify
	AmplifyLiteral           = amplifyLiteral
	And                      = and
	Avg                      = avg
	AvgPrefix                = avgPrefix
	BOS                      = bos
	BoolConvert              = boolConvert
	Boolean                  = boolean
	CPWL                     = cpwl
	CancelResidual           = cancelResidual
	Categorical              = categorical
	Clip                     = clip
	Count                    = count
	Dyck1                    = dyck1
	Dyck12                   = dyck12
	Dyck12Literal            = dyck12Literal
	Dyck1N                   = dyck1N
	DyckKD                   = dyckKD
	First                    = first
	FirstLiteral             = firstLiteral
	FirstUHAT                = firstUHAT
	HardmaxSoftmax           = hardmaxSoftmax
	IdentityAttn             = identityAttn
	IdentityFFN              = identityFFN
	If                       = ifRecipe
	InductionFrequent        = inductionFrequent
	InductionFrequentLiteral = inductionFrequentLiteral
	InductionRecent          = inductionRecent
	InductionRecentLiteral   = inductionRecentLiteral
	InversePosition          = inversePosition
	LH                       = lh
	LNCircumvent             = lnCircumvent
	LayerNormVector          = layerNormVector
	Lookup                   = lookup
	LookupAO                 = lookupAO
	LookupLH                 = lookupLH
	LookupOneHot             = lookupOneHot
	Max                      = maxRecipe
	Min                      = minRecipe
	MulGELU                  = mulGELU
	MultiHead                = multiHead
	Not                      = not
	Or                       = or
	Pred                     = pred
	PredLiteral              = predLiteral
	PredStrict               = predStrict
	Scale                    = scale
	Sub                      = sub
	TieBreaking              = tieBreaking
	ZeroFFN                  = zeroFFN
)
