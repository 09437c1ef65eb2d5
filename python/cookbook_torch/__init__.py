"""cookbook_torch: the models of the Transformer Cookbook's verification
engine as PyTorch modules.

    import cookbook_torch
    model = cookbook_torch.load("dyck1.json")              # torch.float64
    y = model("(()")                                       # outputs, [n, k]
    model.decide(y)                                        # ["0", "0", "0"]
    cookbook_torch.save(model, "copy.json")                # 'verify check --model' reads it

load reads the engine's JSON and safetensors model files; the module
computes in the engine's order of operations, so that at torch.float64 its
outputs are bit for bit those of 'verify run --precision fp64' and at
torch.float32 those of fp32, and at "fp16", "bf16", "fp8-e4m3" and
"fp8-e5m2" (emulated in float64 tensors) those of the same precision. The
file format is docs/model-format.md.
"""

from ._files import ModelFileError, load, save
from ._model import (Attention, Embedding, FeedForward, Head, Layer, LayerNorm, Linear, Positions,
                     Transformer)
from ._numbers import parse_weight

__all__ = ["load", "save", "ModelFileError", "Transformer", "Layer", "Attention", "Head", "FeedForward",
           "LayerNorm", "Linear", "Embedding", "Positions", "parse_weight"]
