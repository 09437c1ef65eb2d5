package eval

import (
	"math/big"
	"sync"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// narrowRunner runs a model at a bigfloat precision of at most
// numeric.NarrowMaxBits bits in float64 (numeric.NarrowBigFloat), and
// redoes in big.Float (the BigFloat instance) every run during which a
// value left float64's share of the range, every run that failed, and
// every run once one has: the results are BigFloat's in every case. A
// trace, the prefix runners, HeadScores and FeedForwardRows go to the
// BigFloat instance, which is built when first needed.
type narrowRunner struct {
	fast *Instance[float64]
	nb   numeric.NarrowBigFloat
	m    *model.Model

	once    sync.Once
	slow    *Instance[*big.Float]
	slowErr error
}

// newNarrowRunner returns the runner of m at p (a bigfloat of at most
// NarrowMaxBits bits), or the BigFloat instance itself where a weight
// already leaves the range.
func newNarrowRunner(p numeric.Precision, m *model.Model) (Runner, error) {
	nb := numeric.NewNarrowBigFloat(p.Bits)
	fast, err := Instantiate[float64](nb, m)
	if err != nil || nb.Exits() > 0 {
		return Instantiate[*big.Float](nb.Big, m)
	}
	return &narrowRunner{fast: fast, nb: nb, m: m}, nil
}

// bigFloat is the BigFloat instance, built once.
func (r *narrowRunner) bigFloat() (*Instance[*big.Float], error) {
	r.once.Do(func() { r.slow, r.slowErr = Instantiate[*big.Float](r.nb.Big, r.m) })
	return r.slow, r.slowErr
}

func (r *narrowRunner) Run(input []int, trace bool) (*Result, error) {
	if !trace && r.nb.Exits() == 0 {
		res, err := r.fast.Run(input, false)
		if err == nil && r.nb.Exits() == 0 {
			return res, nil
		}
	}
	slow, err := r.bigFloat()
	if err != nil {
		return nil, err
	}
	return slow.Run(input, trace)
}

func (r *narrowRunner) RunStream(h0 [][]*big.Rat, trace bool) (*Result, error) {
	if !trace && r.nb.Exits() == 0 {
		res, err := r.fast.RunStream(h0, false)
		if err == nil && r.nb.Exits() == 0 {
			return res, nil
		}
	}
	slow, err := r.bigFloat()
	if err != nil {
		return nil, err
	}
	return slow.RunStream(h0, trace)
}

func (r *narrowRunner) Round(x *big.Rat) Value {
	return ValueOf[*big.Float](r.nb.Big, r.nb.Big.SetRat(nil, x))
}

func (r *narrowRunner) Precision() numeric.Precision { return r.nb.Precision() }
func (r *narrowRunner) Notes() []string              { return r.fast.Notes() }

func (r *narrowRunner) HeadScores(layer, head int, x [][]*big.Rat, i int) ([]int, []Value, error) {
	slow, err := r.bigFloat()
	if err != nil {
		return nil, nil, err
	}
	return slow.HeadScores(layer, head, x, i)
}

func (r *narrowRunner) FeedForwardRows(layer int, x []*big.Rat) (preActivation, out []Value, err error) {
	slow, err := r.bigFloat()
	if err != nil {
		return nil, nil, err
	}
	return slow.FeedForwardRows(layer, x)
}

func (r *narrowRunner) prefixRunner(maxLen int) (PrefixRunner, error) {
	slow, err := r.bigFloat()
	if err != nil {
		return nil, err
	}
	return slow.prefixRunner(maxLen)
}

func (r *narrowRunner) prefixRunnerAt(n int) (PrefixRunner, error) {
	slow, err := r.bigFloat()
	if err != nil {
		return nil, err
	}
	return slow.prefixRunnerAt(n)
}

// NarrowInstance returns, for eval.New's runner of a bigfloat of at most
// numeric.NarrowMaxBits bits, its float64 instance and the backend that
// counts the operations leaving float64's share of the range: a caller
// that computes with the instance's pieces (the analysis of package
// certify) reads the count before and after, and redoes the work on
// Underlying's instance when it grew. ok is false for any other runner.
func NarrowInstance(r Runner) (inst *Instance[float64], b numeric.NarrowBigFloat, ok bool) {
	nr, ok := r.(*narrowRunner)
	if !ok {
		return nil, numeric.NarrowBigFloat{}, false
	}
	return nr.fast, nr.nb, true
}

// Underlying returns the instance whose computation r gives: r itself,
// or, for a runner that computes a precision by faster means where it
// can, the plain instance of that precision (which the analysis of
// package certify takes apart into its pieces).
func Underlying(r Runner) (Runner, error) {
	if nr, ok := r.(*narrowRunner); ok {
		return nr.bigFloat()
	}
	return r, nil
}
