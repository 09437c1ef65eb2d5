package modelfile

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/transformer-cookbook/verify/model"
)

// # Safetensors
//
// WriteSafetensors and ReadSafetensors exchange a model with PyTorch in
// the safetensors format (https://github.com/huggingface/safetensors): an
// 8-byte little-endian header length N, N bytes of JSON header (padded
// with spaces to a multiple of 8, so that the data is aligned), then the
// tensors' little-endian data, row-major, contiguous and in the order of
// their names. The header maps each tensor's name to its dtype (here F64,
// F32, F16, BF16, F8_E4M3 or F8_E5M2: see dtype.go), shape and
// data_offsets [begin, end) into the data, and "__metadata__" to a map of
// strings.
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
// Writing stores each weight in the dtype when it is exactly a number of
// it, and otherwise refuses, naming every such weight, unless asked to
// round (WriteSafetensorsRounded: once, to nearest, ties to even, by
// numeric's correctly rounded evaluation, so an irrational constant is
// rounded once too). Reading gives each weight the exact rational value of
// its stored binary number, whatever the dtype of its tensor; a file may
// mix dtypes (see DtypesPrecision for the precision it runs at). So a
// model read back from a file is the original, exactly, when the write
// did not round.
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

// WriteSafetensors writes m to w in the safetensors format, its weights
// stored in dtype (one of SafetensorsDtypes) and its position encodings
// sampled for every length up to maxN. A weight whose exact value is not
// a number of the dtype is never rounded silently: WriteSafetensors then
// returns an *UnrepresentableError listing every such weight, and writes
// nothing (WriteSafetensorsRounded rounds them). It validates m first and
// writes nothing on any error, such as a weight beyond the dtype's range.
// It stops with ctx's error when ctx is done before the file is written;
// it writes nothing then.
func WriteSafetensors(ctx context.Context, w io.Writer, m *model.Model, maxN int, dtype string) error {
	_, err := writeSafetensors(ctx, w, m, maxN, dtype, false)
	return err
}

// WriteSafetensorsRounded is WriteSafetensors with each weight that is not
// a number of the dtype rounded once to the nearest one, ties to even
// (numeric's correctly rounded evaluation, so an irrational constant is
// rounded once too); it returns every weight it rounded, in the file's
// order. A weight beyond the dtype's largest finite number is still an
// error.
func WriteSafetensorsRounded(ctx context.Context, w io.Writer, m *model.Model, maxN int, dtype string) ([]RoundedWeight, error) {
	return writeSafetensors(ctx, w, m, maxN, dtype, true)
}

func writeSafetensors(ctx context.Context, w io.Writer, m *model.Model, maxN int, dtype string, round bool) ([]RoundedWeight, error) {
	dt, ok := dtypeByName(dtype)
	if !ok {
		return nil, fmt.Errorf("safetensors dtype %q: want one of %s", dtype, dtypeList())
	}
	enc := &encoder{ctx: ctx}
	arch := enc.model(m, maxN)
	if enc.err != nil {
		return nil, enc.err
	}
	var archJSON bytes.Buffer
	je := json.NewEncoder(&archJSON)
	je.SetEscapeHTML(false)
	if err := je.Encode(arch); err != nil {
		return nil, err
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
		return nil, err
	}
	header.WriteString(`{"__metadata__":`)
	header.Write(meta)
	var inexact []RoundedWeight
	for _, t := range tensors {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		begin := len(data)
		for k, e := range t.data {
			bits, x, exact, err := encodeWeight(e, dt)
			if err != nil {
				return nil, fmt.Errorf("%s%s = %v: %w", t.name, stIndex(t.shape, k), e, err)
			}
			if !exact {
				inexact = append(inexact, RoundedWeight{Tensor: t.name, Index: stIndices(t.shape, k), Value: e, Nearest: x})
			}
			data = appendBits(data, bits, dt.size)
		}
		name, _ := json.Marshal(t.name)
		shape, _ := json.Marshal(t.shape)
		fmt.Fprintf(&header, `,%s:{"dtype":%q,"shape":%s,"data_offsets":[%d,%d]}`, name, dtype, shape, begin, begin+len(t.data)*dt.size)
	}
	if len(inexact) > 0 && !round {
		return nil, &UnrepresentableError{Dtype: dtype, Weights: inexact}
	}
	header.WriteByte('}')
	for header.Len()%8 != 0 {
		header.WriteByte(' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(header.Len()))
	out = append(out, header.Bytes()...)
	_, err = w.Write(append(out, data...))
	return inexact, err
}
