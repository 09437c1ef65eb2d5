package all

// Each chapter registers its claims when it is linked in.
import (
	_ "github.com/transformer-cookbook/verify/proofs/assembly"
	_ "github.com/transformer-cookbook/verify/proofs/attention"
	_ "github.com/transformer-cookbook/verify/proofs/basics"
	_ "github.com/transformer-cookbook/verify/proofs/examples"
	_ "github.com/transformer-cookbook/verify/proofs/ffn"
	_ "github.com/transformer-cookbook/verify/proofs/layernorm"
	_ "github.com/transformer-cookbook/verify/proofs/rounding"
)
