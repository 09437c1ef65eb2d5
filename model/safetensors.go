package model

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/transformer-cookbook/verify/numeric"
)

// # Safetensors
//
// WriteSafetensors and ReadSafetensors exchange a model with PyTorch in
// the safetensors format (https://github.com/huggingface/safetensors): an
// 8-byte little-endian header length N, N bytes of JSON header (padded
// with spaces to a multiple of 8, so that the data is aligned), then the
// tensors' little-endian data, row-major, contiguous and in the order of
// their names. The header maps each tensor's name to its dtype ("F32" or
// "F64" here), shape and data_offsets [begin, end) into the data, and
// "__metadata__" to a map of strings.
//
// The tensors are named as a PyTorch state dict would name them, with
// nn.Linear's convention that a weight is [out, in] (y = W x):
//
//	embed.weight                         [|alphabet|, d]   (nn.Embedding)
//	pos_embed.weight                     [N, d], or [N, N, d] with pe_n(i) at [n-1, i-1]
//	                                     (none for a position formula, which is in the metadata)
//	layers.L.attn_norm.weight / .bias    [width]           γ and β, when not nil
//	layers.L.attn_norm.select.weight     [rows, d]         W^N, when set
//	layers.L.attn.heads.H.q_proj.weight  [d_key, d_in]
//	layers.L.attn.heads.H.k_proj.weight  [d_key, d_in]
//	layers.L.attn.heads.H.v_proj.weight  [d, d_in]
//	layers.L.ffn_norm.weight / .bias     [width]           (and .select.weight)
//	layers.L.ffn.fc1.weight, .fc1.bias   [hidden, d_in], [hidden]
//	layers.L.ffn.fc2.weight, .fc2.bias   [d, hidden], [d]
//	final_norm.weight / .bias            [d]
//	unembed.weight                       [outputs, d]
//
// with L and H counted from 0. An absent bias is zero, an absent norm
// weight (γ) is one, as with bias=False and elementwise_affine=False.
//
// Everything else — the architecture — is in the metadata, under the key
// "cookbook_architecture", as the JSON model file (see WriteJSON) without
// its weight fields: names, alphabet, max_n, d, mask, weighting, score
// scale, activation, norm placement, residual switches, output kind and
// labels, whether positions depend on n, a position formula (its scales
// and bases as exact text), and the two scalars that are
// parameters of the architecture rather than tensors, the temperature τ
// and the layer norms' ε, as exact text (which Python's eval reads with
// sqrt, log, exp, sin, cos and pi from math). "format": "pt" is there too,
// for loaders that look for it.
//
// Writing rounds every weight once, to nearest, to the dtype (numeric's
// correctly rounded evaluation, so an irrational constant is rounded
// once too); reading gives each weight the exact rational value of its
// stored binary number. So a model read back from F64 is the float64
// model of the original, exactly.
//
// To load a file in PyTorch:
//
//	import json
//	from safetensors import safe_open
//	from safetensors.torch import load_file
//	sd = load_file("lookup.safetensors")        # name -> torch.Tensor
//	with safe_open("lookup.safetensors", "pt") as f:
//	    arch = json.loads(f.metadata()["cookbook_architecture"])
//	q = sd["layers.0.attn.heads.0.q_proj.weight"]  # [d_key, d], so q_i = q @ h_i
//	print(arch["layers"][0]["attention"]["weighting"], arch["max_n"])
//
// testdata/read_safetensors.py reads the format with Python's standard
// library alone.

// stMaxHeader is the largest header read, as in the reference
// implementation (100 MB).
const stMaxHeader = 100_000_000

// stArchitectureKey is the metadata key of the architecture.
const stArchitectureKey = "cookbook_architecture"

// stSize is the size in bytes of an element of each supported dtype.
var stSize = map[string]int{"F32": 4, "F64": 8}

// WriteSafetensors writes m in the safetensors format, its weights
// rounded to dtype ("F32" or "F64") and its position encodings sampled for
// every length up to maxN. It validates m first and writes nothing on an
// error, such as a weight that overflows the dtype.
func (m *Model) WriteSafetensors(w io.Writer, maxN int, dtype string) error {
	return m.WriteSafetensorsContext(context.Background(), w, maxN, dtype)
}

// WriteSafetensorsContext is WriteSafetensors, stopped with ctx's error
// when ctx is done before the file is written, so that a long export can
// be interrupted; it writes nothing then.
func (m *Model) WriteSafetensorsContext(ctx context.Context, w io.Writer, maxN int, dtype string) error {
	size, ok := stSize[dtype]
	if !ok {
		return fmt.Errorf("safetensors dtype %q: want F32 or F64", dtype)
	}
	enc := &encoder{ctx: ctx}
	arch := enc.model(m, maxN)
	if enc.err != nil {
		return enc.err
	}
	var archJSON bytes.Buffer
	je := json.NewEncoder(&archJSON)
	je.SetEscapeHTML(false)
	if err := je.Encode(arch); err != nil {
		return err
	}
	tensors := enc.tensors
	sort.Slice(tensors, func(a, b int) bool { return tensors[a].name < tensors[b].name })

	var data []byte
	var header bytes.Buffer
	meta, err := json.Marshal(map[string]string{
		"format":          "pt",
		stArchitectureKey: strings.TrimSpace(archJSON.String()),
	})
	if err != nil {
		return err
	}
	header.WriteString(`{"__metadata__":`)
	header.Write(meta)
	for _, t := range tensors {
		if err := ctx.Err(); err != nil {
			return err
		}
		begin := len(data)
		for k, e := range t.data {
			if data, err = appendFloat(data, e, dtype); err != nil {
				return fmt.Errorf("%s[%d] = %v: %v", t.name, k, e, err)
			}
		}
		name, _ := json.Marshal(t.name)
		shape, _ := json.Marshal(t.shape)
		fmt.Fprintf(&header, `,%s:{"dtype":%q,"shape":%s,"data_offsets":[%d,%d]}`, name, dtype, shape, begin, begin+len(t.data)*size)
	}
	header.WriteByte('}')
	for header.Len()%8 != 0 {
		header.WriteByte(' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(header.Len()))
	out = append(out, header.Bytes()...)
	_, err = w.Write(append(out, data...))
	return err
}

// appendFloat appends e rounded once to dtype, little-endian.
func appendFloat(data []byte, e numeric.Expr, dtype string) ([]byte, error) {
	if dtype == "F32" {
		x, err := numeric.Float32{}.Eval(0, e)
		if err != nil {
			return nil, err
		}
		if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
			return nil, fmt.Errorf("overflows F32")
		}
		return binary.LittleEndian.AppendUint32(data, math.Float32bits(x)), nil
	}
	x, err := numeric.Float64{}.Eval(0, e)
	if err != nil {
		return nil, err
	}
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil, fmt.Errorf("overflows F64")
	}
	return binary.LittleEndian.AppendUint64(data, math.Float64bits(x)), nil
}
