package modelfile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// Reading a safetensors file (the format and its names are described in
// safetensors.go): the framing first, checked as strictly as the
// reference implementation does, then the architecture in the metadata
// by the walker of JSON model files, with the tensors as its weights.

// stTensor is a tensor of a file being read.
type stTensor struct {
	name   string
	dtype  *stDtype
	shape  []int
	elems  int
	begin  int
	length int    // in bytes, from data_offsets
	data   []byte // the length bytes at begin, once the framing is checked
	used   bool
}

// ReadSafetensors reads a model written by WriteSafetensors and returns
// it with the largest length max_n its position encodings cover. Each
// weight is the exact rational value of its stored number, in its
// tensor's dtype. Reading is strict, as the reference implementation is
// and more: the header must fit the file and the limit of 100 MB, be
// UTF-8 JSON without repeated keys, give each tensor a dtype the engine
// reads (F64, F32, F16, BF16, F8_E4M3, F8_E5M2; tensors may differ), a
// shape and data_offsets that tile the data exactly (no gap, no overlap,
// nothing after), hold the architecture in its metadata, and every tensor
// must be one the architecture names, of the shape it implies, with
// finite entries. It reads the whole of r into memory, and never panics.
func ReadSafetensors(r io.Reader) (*model.Model, int, error) {
	m, maxN, _, err := ReadSafetensorsDtypes(r)
	return m, maxN, err
}

// ReadSafetensorsDtypes is ReadSafetensors, and also returns the dtypes of
// the file's tensors, each once, in the order F64, F32, BF16, F16,
// F8_E5M2, F8_E4M3 (see DtypesPrecision for the precision they imply).
func ReadSafetensorsDtypes(r io.Reader) (*model.Model, int, []string, error) {
	m, maxN, tensors, err := readSafetensors(r)
	if err != nil {
		return nil, 0, nil, err
	}
	var dtypes []string
	for k := len(stDtypes) - 1; k >= 0; k-- {
		for _, t := range tensors {
			if t.dtype == stDtypes[k] {
				dtypes = append(dtypes, t.dtype.name)
				break
			}
		}
	}
	return m, maxN, dtypes, nil
}

func readSafetensors(r io.Reader) (*model.Model, int, map[string]*stTensor, error) {
	file, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, nil, err
	}
	tensors, meta, err := readSafetensorsHeader(file)
	if err != nil {
		return nil, 0, nil, err
	}
	archText, ok := meta[stArchitectureKey]
	if !ok {
		return nil, 0, nil, fmt.Errorf("__metadata__: no %q key, so no architecture: not a file written by WriteSafetensors", stArchitectureKey)
	}
	root, err := decodeTree(strings.NewReader(archText), stArchitectureKey, maxJSONString)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("__metadata__.%s: %w", stArchitectureKey, err)
	}
	src := &stWeights{tensors: tensors}
	d := &decoder{src: src}
	m, maxN := d.model(root)
	if d.err != nil {
		return nil, 0, nil, d.err
	}
	var unused []string
	for _, t := range tensors {
		if !t.used {
			unused = append(unused, t.name)
		}
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		return nil, 0, nil, fmt.Errorf("tensor %q is not part of the model the architecture describes (%d such tensors)", unused[0], len(unused))
	}
	if err := m.Validate(); err != nil {
		return nil, 0, nil, err
	}
	return m, maxN, tensors, nil
}

// readSafetensorsHeader checks the framing of a safetensors file and
// returns its tensors by name and its metadata.
func readSafetensorsHeader(file []byte) (map[string]*stTensor, map[string]string, error) {
	if len(file) < 8 {
		return nil, nil, fmt.Errorf("file of %d bytes: a safetensors file starts with an 8-byte header length", len(file))
	}
	n := binary.LittleEndian.Uint64(file)
	if n > stMaxHeader {
		return nil, nil, fmt.Errorf("header length %d exceeds the limit of %d bytes", n, stMaxHeader)
	}
	if n > uint64(len(file)-8) {
		return nil, nil, fmt.Errorf("header length %d larger than the file (%d bytes after the length)", n, len(file)-8)
	}
	head, data := file[8:8+n], file[8+n:]
	if !utf8.Valid(head) {
		return nil, nil, fmt.Errorf("header is not UTF-8")
	}
	if len(head) == 0 || head[0] != '{' {
		return nil, nil, fmt.Errorf("header does not start with '{'")
	}
	// The header's metadata holds the architecture as one string, as long
	// as the model's JSON (a lookup built for N = 65,536 takes 1.5 MB):
	// its strings are bounded by the header itself, which the input's
	// size bounds; the architecture's own strings are checked when it is
	// decoded.
	root, err := decodeTree(bytes.NewReader(head), "", len(head))
	if err != nil {
		return nil, nil, fmt.Errorf("header: %w", err)
	}
	var meta map[string]string
	tensors := map[string]*stTensor{}
	var order []*stTensor
	for _, name := range root.keys {
		v := root.vals[name]
		if name == "__metadata__" {
			if meta, err = stMetadata(v); err != nil {
				return nil, nil, err
			}
			continue
		}
		t, err := stInfo(name, v)
		if err != nil {
			return nil, nil, err
		}
		tensors[name] = t
		order = append(order, t)
	}
	if meta == nil {
		return nil, nil, fmt.Errorf("header has no __metadata__, so no architecture: not a file written by WriteSafetensors")
	}
	// The tensors must tile the data: sorted by offset, each begins where
	// the previous ends, and the last ends with the file.
	sort.SliceStable(order, func(a, b int) bool { return order[a].begin < order[b].begin })
	at := 0
	for _, t := range order {
		switch {
		case t.begin > at:
			return nil, nil, fmt.Errorf("tensor %q: data_offsets begin at %d, leaving bytes %d to %d of the data to no tensor", t.name, t.begin, at, t.begin)
		case t.begin < at:
			return nil, nil, fmt.Errorf("tensor %q: data_offsets begin at %d, overlapping the tensor before it, which ends at %d", t.name, t.begin, at)
		}
		if t.length > len(data)-t.begin {
			return nil, nil, fmt.Errorf("tensor %q: data_offsets end at %d, past the end of the data (%d bytes)", t.name, t.begin+t.length, len(data))
		}
		t.data = data[t.begin : t.begin+t.length]
		at += t.length
	}
	if at != len(data) {
		return nil, nil, fmt.Errorf("the tensors cover %d bytes of data, the file has %d", at, len(data))
	}
	return tensors, meta, nil
}

// stMetadata reads __metadata__, a map of strings.
func stMetadata(v any) (map[string]string, error) {
	o, ok := v.(*jsonObject)
	if !ok {
		return nil, fmt.Errorf("__metadata__: %s, want an object of strings", jsonType(v))
	}
	meta := map[string]string{}
	for _, k := range o.keys {
		s, ok := o.vals[k].(string)
		if !ok {
			return nil, fmt.Errorf("__metadata__.%s: %s, want a string", k, jsonType(o.vals[k]))
		}
		meta[k] = s
	}
	return meta, nil
}

// stInfo reads a tensor's header entry: dtype, shape and data_offsets,
// checked against each other.
func stInfo(name string, v any) (*stTensor, error) {
	o, ok := v.(*jsonObject)
	if !ok {
		return nil, fmt.Errorf("tensor %q: %s, want an object", name, jsonType(v))
	}
	for _, k := range o.keys {
		if k != "dtype" && k != "shape" && k != "data_offsets" {
			return nil, fmt.Errorf("tensor %q: unknown field %q (known: dtype, shape, data_offsets)", name, k)
		}
	}
	t := &stTensor{name: name}
	dtype, ok := o.vals["dtype"].(string)
	if !ok {
		return nil, fmt.Errorf("tensor %q: dtype missing or not a string", name)
	}
	dt, ok := dtypeByName(dtype)
	if !ok {
		return nil, fmt.Errorf("tensor %q: dtype %q is not supported (accepted: %s)", name, dtype, dtypeList())
	}
	t.dtype = dt
	size := dt.size
	shape, err := stInts(o.vals["shape"], -1)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: shape: %w", name, err)
	}
	offsets, err := stInts(o.vals["data_offsets"], 2)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: data_offsets: %w", name, err)
	}
	if offsets[1] < offsets[0] {
		return nil, fmt.Errorf("tensor %q: data_offsets [%d, %d] end before they begin", name, offsets[0], offsets[1])
	}
	// The element count, with overflow checked against the byte length:
	// no product may exceed what the offsets declare.
	length := offsets[1] - offsets[0]
	elems := 1
	for _, s := range shape {
		if s != 0 && elems > length/size/s {
			elems = -1
			break
		}
		elems *= s
	}
	if elems < 0 || elems*size != length {
		return nil, fmt.Errorf("tensor %q: shape %v of %s needs %s bytes, data_offsets [%d, %d] hold %d", name, shape, dtype, stBytes(shape, size), offsets[0], offsets[1], length)
	}
	t.shape, t.begin, t.length, t.elems = shape, offsets[0], length, elems
	return t, nil
}

// stBytes is the byte size of a shape, as text (it may overflow an int).
func stBytes(shape []int, size int) string {
	b := big.NewInt(int64(size))
	for _, s := range shape {
		b.Mul(b, big.NewInt(int64(s)))
	}
	return b.String()
}

// stInts reads a list of non-negative integers (of length n unless n < 0).
func stInts(v any, n int) ([]int, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s, want a list of integers", jsonType(v))
	}
	if n >= 0 && len(arr) != n {
		return nil, fmt.Errorf("%d integers, want %d", len(arr), n)
	}
	out := make([]int, len(arr))
	for i, x := range arr {
		num, ok := x.(json.Number)
		if !ok {
			return nil, fmt.Errorf("entry %d: %s, want an integer", i, jsonType(x))
		}
		k, err := strconv.Atoi(string(num))
		if err != nil || k < 0 {
			return nil, fmt.Errorf("entry %d: %s is not a non-negative integer in range", i, num)
		}
		out[i] = k
	}
	return out, nil
}

// stWeights supplies the weights of a model being read from the tensors
// of a safetensors file, each marked used so that ReadSafetensors can
// refuse the tensors the architecture does not name.
type stWeights struct {
	tensors map[string]*stTensor
	// seen holds the weights made so far, by value (at most
	// maxInterned): a 16-bit or 8-bit dtype has at most 65,536 values,
	// and one Expr (about 130 bytes) shared by every entry of a value
	// keeps the model near 8 bytes an entry, not 130.
	seen map[float64]numeric.Expr
}

func (*stWeights) inline() bool { return false }

// tensor returns the named tensor, checked to have the shape want (a
// negative size: any positive one, described by what); nil when absent.
func (s *stWeights) tensor(d *decoder, name string, want []int, what []string, required bool) *stTensor {
	if d.err != nil {
		return nil
	}
	t, ok := s.tensors[name]
	if !ok {
		if required {
			d.failf(name, "tensor missing")
		}
		return nil
	}
	t.used = true
	ok = len(t.shape) == len(want)
	for k := 0; ok && k < len(want); k++ {
		ok = want[k] < 0 && t.shape[k] > 0 || t.shape[k] == want[k]
	}
	if !ok {
		parts := make([]string, len(want))
		for k := range want {
			if want[k] < 0 {
				parts[k] = "≥ 1 (" + what[k] + ")"
			} else {
				parts[k] = fmt.Sprintf("%d (%s)", want[k], what[k])
			}
		}
		d.failf(name, "shape %v, want [%s]", t.shape, strings.Join(parts, ", "))
		return nil
	}
	return t
}

// values decodes t's entries as the exact rationals of their binary
// values; NaN and the infinities are errors.
func (s *stWeights) values(d *decoder, t *stTensor) []numeric.Expr {
	if d.err != nil || t == nil {
		return nil
	}
	out := make([]numeric.Expr, t.elems)
	for k := range out {
		x, bits := decodeWeight(t.data, k, t.dtype)
		if math.IsInf(x, 0) || math.IsNaN(x) {
			d.failf(t.name+stIndex(t.shape, k), "%v, not a finite number (%s bits 0x%0*x)", x, t.dtype.name, 2*t.dtype.size, bits)
			return nil
		}
		if x == 0 {
			continue
		}
		e, ok := s.seen[x]
		if !ok {
			e = numeric.LitFloat(x)
			if s.seen == nil {
				s.seen = map[float64]numeric.Expr{}
			}
			if len(s.seen) < maxInterned {
				s.seen[x] = e
			}
		}
		out[k] = e
	}
	return out
}

// stIndex is the multi-index "[i][j]" of the k-th entry of a tensor of
// the given shape, in row-major order.
func stIndex(shape []int, k int) string {
	var b strings.Builder
	for _, i := range stIndices(shape, k) {
		b.WriteString("[" + strconv.Itoa(i) + "]")
	}
	return b.String()
}

// stIndices is the multi-index of the k-th entry of a tensor of the given
// shape, in row-major order.
func stIndices(shape []int, k int) []int {
	idx := make([]int, len(shape))
	for a := len(shape) - 1; a >= 0; a-- {
		idx[a] = k % shape[a]
		k /= shape[a]
	}
	return idx
}

func (s *stWeights) matrix(d *decoder, _ *jsonObject, _, tensor string, want dims, required bool) (model.Matrix, bool) {
	t := s.tensor(d, tensor, []int{want.rows, want.cols}, []string{want.rowsWhat, want.colsWhat}, required)
	vals := s.values(d, t)
	if d.err != nil || t == nil {
		return model.Matrix{}, false
	}
	return model.Matrix{Rows: t.shape[0], Cols: t.shape[1], Data: vals}, true
}

func (s *stWeights) vector(d *decoder, _ *jsonObject, _, tensor string, n int, what string) (model.Vector, bool) {
	t := s.tensor(d, tensor, []int{n}, []string{what}, false)
	vals := s.values(d, t)
	if d.err != nil || t == nil {
		return nil, false
	}
	return vals, true
}

func (s *stWeights) embedding(d *decoder, _ *jsonObject, symbols, width int) []model.Vector {
	t := s.tensor(d, "embed.weight", []int{symbols, width}, []string{"one per symbol of the alphabet", "d"}, true)
	vals := s.values(d, t)
	if d.err != nil {
		return nil
	}
	return splitRows(vals, symbols, width)
}

// splitRows cuts row-major data into rows of the given width.
func splitRows(vals []numeric.Expr, rows, width int) []model.Vector {
	out := make([]model.Vector, rows)
	for r := range out {
		out[r] = vals[r*width : (r+1)*width : (r+1)*width]
	}
	return out
}

func (s *stWeights) positions(d *decoder, _ *jsonObject, maxN, width int, dependsOnN bool) [][]model.Vector {
	if !dependsOnN {
		t := s.tensor(d, "pos_embed.weight", []int{maxN, width}, []string{"max_n", "d"}, true)
		vals := s.values(d, t)
		if d.err != nil {
			return nil
		}
		return [][]model.Vector{splitRows(vals, maxN, width)}
	}
	t := s.tensor(d, "pos_embed.weight", []int{maxN, maxN, width}, []string{"max_n", "max_n", "d"}, true)
	vals := s.values(d, t)
	if d.err != nil {
		return nil
	}
	table := make([][]model.Vector, maxN)
	for n := 1; n <= maxN; n++ {
		block := splitRows(vals[(n-1)*maxN*width:n*maxN*width], maxN, width)
		// Rows i > n are padding, as pe_n(i) exists only for i ≤ n.
		for i := n + 1; i <= maxN; i++ {
			for c, x := range block[i-1] {
				if !x.IsZero() {
					d.failf(fmt.Sprintf("pos_embed.weight[%d][%d][%d]", n-1, i-1, c), "%v: entries past i = n are padding and must be 0", x)
					return nil
				}
			}
		}
		table[n-1] = block[:n]
	}
	return table
}
