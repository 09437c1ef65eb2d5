# The paper's First (§First), built in PyTorch and saved for the engine.
import torch
import cookbook_torch as ct

N = 16  # the longest input the position table covers

model = ct.Transformer(
    name="first", alphabet=["a", "b"], components=["p", "c", "first"],
    embed=torch.zeros(2, 3, dtype=torch.float64),            # the symbols are ignored
    positions=ct.Positions([[(-1) ** i, 0, 0] for i in range(1, N + 1)], name="(-1)^i"),
    layers=[ct.Layer(
        # uniform future-masked attention, W^V = −I: c_i = −(1/i) Σ_{j≤i} (−1)^j
        attn=ct.Attention([ct.Head(query=[[0, 0, 0]], key=[[0, 0, 0]],
                                   value=[[0, 0, 0], [-1, 0, 0], [0, 0, 0]])],
                          mask="future", weighting="avghardmax", scale="none"),
        # GTZero_{1/3}(c − 1/3) = 3 ReLU(c − 1/3) − 3 ReLU(c − 2/3), into first
        ffn=ct.FeedForward(w1=[[0, 1, 0], [0, 1, 0]], b1=["-1/3", "-2/3"],
                           w2=[[0, 0], [0, 0], [3, -3]], activation="relu"))],
    unembed=[[0, 0, 1], [0, 1, 0]], output="readout", labels=["first", "c"], max_n=N)

y = model("abba")        # [n, 2]: first and c at every position
print(y)
ct.save(model, "first.json")
