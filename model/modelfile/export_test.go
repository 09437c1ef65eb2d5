package modelfile

import (
	"sort"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// TestTensor is a tensor of a safetensors file, for the tests of package
// model_test, which see the recipes.
type TestTensor struct {
	Name  string
	Shape []int
	Data  []numeric.Expr
}

// Tensors returns the tensors a safetensors file of m for lengths up to
// maxN holds, in the file's order (by name).
func Tensors(m *model.Model, maxN int) ([]TestTensor, error) {
	enc := &encoder{}
	enc.model(m, maxN)
	if enc.err != nil {
		return nil, enc.err
	}
	out := make([]TestTensor, len(enc.tensors))
	for k, t := range enc.tensors {
		out[k] = TestTensor{t.name, t.shape, t.data}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out, nil
}

// Index is the "[i][j]" of the k-th entry of a tensor of the given shape.
func Index(shape []int, k int) string { return stIndex(shape, k) }
