package proofs

import "strings"

// families lists the claims the paper states for every member of an
// infinite family (every length n, every N, every ε > 0, every FFN)
// whose checkers decide finitely many members only: every input up to a
// length, a few values of ε, four random FFNs. Their checkers may prove
// each member they reach, exactly and exhaustively, but a proof of the
// instances is not a proof of the family, so Run reports such a claim
// as HOLDS, its evidence naming the instances checked (the checker's own
// summary) and the family they are drawn from (this table).
//
// A claim leaves this table when its checker covers the whole family (a
// symbolic argument in the family's parameter, a region proof with the
// parameter as a coordinate), as lemma.edelman and ffn.gtzero.definition
// do.
var families = map[string]string{
	"assembly.parallel.proof":    "every pair of transformers tf1, tf2",
	"assembly.parallel.widen":    "every pair of transformers tf1, tf2",
	"assembly.routing.attention": "every attention layer sa and linear maps L, R",
	"assembly.routing.ffn":       "every FFN ff and linear maps L, R",
	"assembly.serial.stack":      "every pair of transformers tl1, tl2",

	"attn.avg-prefix.exact":                "every length n and width d",
	"attn.avg.exact":                       "every length n and width d",
	"attn.cheatsheet.first.ahat":           "every length n",
	"attn.cheatsheet.first.smat":           "every length n",
	"attn.cheatsheet.first.uhat-retrieve":  "every length n and width d",
	"attn.cheatsheet.identity.ahat":        "every length n and width d",
	"attn.cheatsheet.identity.smat":        "every length n and width d",
	"attn.cheatsheet.identity.uhat":        "every length n and width d",
	"attn.cheatsheet.index-lookup.ahat":    "every length n and bound N",
	"attn.cheatsheet.index-lookup.smat":    "every length n and bound N",
	"attn.cheatsheet.index-lookup.uhat":    "every length n and bound N",
	"attn.cheatsheet.multi-head.ahat":      "every length n, bound N and number of heads H",
	"attn.cheatsheet.multi-head.smat":      "every length n, bound N and number of heads H",
	"attn.cheatsheet.multi-head.uhat":      "every length n, bound N and number of heads H",
	"attn.cheatsheet.predecessor.ahat":     "every length n and every value v_i",
	"attn.cheatsheet.predecessor.uhat":     "every length n and every value v_i",
	"attn.cheatsheet.tie-breaking.ahat":    "every length n, gap γ and score sequence",
	"attn.cheatsheet.tie-breaking.smat":    "every length n, bound N, gap γ and score sequence",
	"attn.cheatsheet.tie-breaking.uhat":    "every length n, gap γ and score sequence",
	"attn.cheatsheet.uniform-average.ahat": "every length n and width d",
	"attn.cheatsheet.uniform-average.smat": "every length n and width d",
	"attn.first-uhat.exact":                "every length n",
	"attn.first.average":                   "every position i",
	"attn.first.exact":                     "every length n",
	"attn.first.inverse-position":          "every length n",
	"attn.hardmax.definition":              "every score vector s ∈ ℝ^n, every n",
	"attn.hardmax.tieless":                 "every tieless score vector s ∈ ℝ^n, every n",
	"attn.identity.exact":                  "every length n and width d",
	"attn.lookup-ao.exact":                 "every length n, bound N, ε and δ",
	"attn.lookup-ao.gap":                   "every bound N and ε < 1/2",
	"attn.lookup-ao.width":                 "every bound N, ε and δ",
	"attn.lookup-lh.exact":                 "every length n and bound N",
	"attn.lookup-lh.gap":                   "every bound N",
	"attn.lookup-lh.unique-max":            "every pair of positions q, j (proved for all real q, j by ln.hash.argmax)",
	"attn.lookup-lh.width":                 "every bound N",
	"attn.lookup-onehot.exact":             "every length n and bound N",
	"attn.lookup-onehot.gap":               "every bound N",
	"attn.lookup-onehot.width":             "every bound N",
	"attn.lookup-qm.exact":                 "every length n and bound N",
	"attn.lookup-qm.gap":                   "every bound N",
	"attn.lookup-qm.scaled":                "every length n and scaling factor",
	"attn.lookup-qm.width":                 "every bound N",
	"attn.lookup-qm.values":                "every length n and bound N",
	"attn.lookup-onehot.values":            "every length n and bound N",
	"attn.lookup-ao.values":                "every length n, bound N, ε and δ",
	"attn.lookup-lh.values":                "every length n and bound N",
	"attn.multihead.simulation":            "every length n, bound N and number of heads H",
	"attn.pred-strict.exact":               "every length n and every value v_i",
	"attn.pred.exact":                      "every length n and every value v_i",
	"attn.pred.odd-even":                   "every length n and every value v_i",
	"attn.softmax-lookup.ao":               "every length n, bound N, ε and δ",
	"attn.softmax-lookup.lh":               "every length n and bound N",
	"attn.softmax-lookup.onehot":           "every length n and bound N",
	"attn.softmax-lookup.qm":               "every length n and bound N",
	"attn.softmax.underflow":               "every length n, score sequence and format",
	"attn.tiebreak.exact":                  "every length n, gap γ and score sequence",
	"attn.tiebreak.softmax":                "every length n, bound N and score sequence",

	"example.dyck-kd.depths":               "every length n, number of bracket types k and depth D",
	"example.dyck-kd.k2-d2":                "every length n",
	"example.dyck.definition":              "every string over {(, )}",
	"example.dyck1-n.edges":                "every length bound N",
	"example.dyck1-n.single-unit":          "every length bound N",
	"example.dyck1-n.thresholds":           "every length bound N",
	"example.dyck1.magnitudes":             "every length n",
	"example.dyck1.values":                 "every length n",
	"example.dyck1.violation":              "every length n",
	"example.dyck12.exact":                 "every length n",
	"example.dyck12.step1":                 "every length n",
	"example.induction.frequent.exact":     "every length n and alphabet",
	"example.induction.recent.exact":       "every length n and alphabet",
	"ffn.boolean.derivation":               "every number of bits m",
	"ffn.boolean.exact":                    "every number of bits m",
	"ffn.boolean.hidden":                   "every number of bits m",
	"ffn.cancel-residual.exact":            "every FFN f",
	"ffn.cheatsheet.boolean.exact":         "every number of bits m",
	"ffn.cheatsheet.cancel-residual.exact": "every FFN f",
	"ffn.cheatsheet.cpwl.exact":            "every continuous piecewise-linear f",
	"ffn.cpwl.exact":                       "every set of points (x_k, y_k)",
	"ffn.cpwl.rewrite":                     "every set of points (x_k, y_k)",
	"ffn.if.interval":                      "every interval [a, b]",

	"ln.amplify":                  "every δ > 0 and width d",
	"ln.circumvent":               "every width d",
	"ln.ffn.homogeneous":          "every bias-free ReLU FFN",
	"ln.ffn.lipschitz":            "every ReLU FFN",
	"ln.hash.gap":                 "every bound N",
	"pe.ao.family":                "every bound N",
	"pe.ao.probability-corrected": "every k ≥ 1, ε and bound N",
	"pe.inverse.bos":              "every length n",
	"pe.onehot.dot":               "every bound N",
	"repr.bos.uniform":            "every length n",
	"repr.cat.onehot":             "every number of symbols k",
	"repr.int.count":              "every length n",
	"repr.int.precision":          "every binary format",
}

// Family is the infinite family the paper states c for when its checker
// decides finitely many members only, or "" (see families). A claim's
// reading under Definition def:attn (ID suffix .sqrt-dkey) ranges over the
// family of the claim it re-reads.
func (c *Claim) Family() string {
	return families[strings.TrimSuffix(c.ID, ".sqrt-dkey")]
}
