package recipes

// Internals the external tests use.

var AoCheck = aoCheck
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
