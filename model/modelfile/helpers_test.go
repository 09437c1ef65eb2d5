package modelfile

import (
	"github.com/transformer-cookbook/verify/model/internal/modeltest"
)

// Builders of exact test models (package modeltest).
var (
	rat        = modeltest.Rat
	ex         = modeltest.Ex
	vec        = modeltest.Vec
	rows       = modeltest.Rows
	row        = modeltest.Row
	validModel = modeltest.ValidModel
)
