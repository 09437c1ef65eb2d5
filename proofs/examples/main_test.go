package examples

import (
	"testing"

	"github.com/transformer-cookbook/verify/proofs/internal/prooftest"
)

func TestMain(m *testing.M) { prooftest.Main(m) }
