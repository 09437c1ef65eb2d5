package recipes

import (
	"fmt"
	"strings"

	"github.com/transformer-cookbook/verify/internal/suggest"
	"github.com/transformer-cookbook/verify/model"
)

// ParseWeighting reads a weighting by its name in model (softmax,
// lhardmax, rhardmax, avghardmax) or the paper's acronyms (SMAT, AHAT,
// UHAT for leftmost).
func ParseWeighting(s string) (model.Weighting, error) {
	switch strings.ToLower(s) {
	case "softmax", "smat":
		return model.Softmax, nil
	case "lhardmax", "uhat", "leftmost":
		return model.LeftHardmax, nil
	case "rhardmax", "rightmost", "uhat-right":
		return model.RightHardmax, nil
	case "avghardmax", "ahat", "average":
		return model.AverageHardmax, nil
	}
	names := []string{"softmax", "SMAT", "avghardmax", "AHAT", "lhardmax", "UHAT", "rhardmax", "UHAT-right"}
	return 0, fmt.Errorf("unknown weighting %s%s (softmax/SMAT, avghardmax/AHAT, lhardmax/UHAT, rhardmax/UHAT-right)", suggest.Quote(s), suggest.DidYouMean(s, names))
}

// WeightingAcronym is the paper's name of a weighting: SMAT, AHAT, UHAT
// (leftmost) or UHAT-right.
func WeightingAcronym(w model.Weighting) string {
	switch w {
	case model.Softmax:
		return "SMAT"
	case model.AverageHardmax:
		return "AHAT"
	case model.LeftHardmax:
		return "UHAT"
	case model.RightHardmax:
		return "UHAT-right"
	}
	return w.String()
}

// DefaultWeighting is the weighting a check uses unless told otherwise:
// the first the paper gives (Softmax, which does not matter, for recipes
// without attention).
func (r *Recipe) DefaultWeighting() model.Weighting {
	if len(r.Weightings) == 0 {
		return model.Softmax
	}
	return r.Weightings[0]
}

// WeightingName is the weighting a report names for r under w: its
// acronym, or "no attention" for recipes without attention.
func (r *Recipe) WeightingName(w model.Weighting) string {
	if len(r.Weightings) == 0 {
		return "no attention"
	}
	return WeightingAcronym(w)
}

// Supports reports whether the paper says r works with weighting w.
func (r *Recipe) Supports(w model.Weighting) bool {
	if len(r.Weightings) == 0 {
		return true
	}
	for _, x := range r.Weightings {
		if x == w {
			return true
		}
	}
	return false
}
