#!/usr/bin/env python3
"""Independent simulation of Dyck-1-2 as printed (sec:dyck-1-2), for the
test of the claim example.dyck12.literal.

It follows the paper's description, not the engine's weights: step 1
marks a_i = 0 where o_i = +1, o_{i+1} = -1 or o_i = -1, o_{i-1} = +1;
step 2 runs leftmost UHAT on the one printed sequence j/n - (a_j - 1)
over j < i (left) and over j > i (right) and retrieves the selected
bracket's type only (eqn:dyck_select_nearest: the state is
[o_i, a_i, l_i, r_i, i/n], with l_i, r_i in {+1, -1}, 0 where no
position is on that side); an active i is marked when its selected
neighbour's type closes (opens) it, from the types alone; step 3
accepts iff every a_i' = 0. Run it to regenerate
dyck12_literal.txt:  python3 dyck12_literal.py > dyck12_literal.txt
"""
from fractions import Fraction
import itertools


def literal_accepts(w):
    n = len(w)
    o = [1 if c == "(" else -1 for c in w]
    a = []
    for i in range(n):
        prev = o[i - 1] if i > 0 else 0
        nxt = o[i + 1] if i < n - 1 else 0
        a.append(0 if (o[i] == 1 and nxt == -1) or (o[i] == -1 and prev == 1) else 1)

    def select(js):
        if not js:
            return None
        score = {j: Fraction(j + 1, n) - (a[j] - 1) for j in js}
        best = max(score.values())
        return min(j for j in js if score[j] == best)

    # The updates of step 2 read the bits of step 1, not each other's.
    a2 = list(a)
    for i in range(n):
        l, r = select(range(i)), select(range(i + 1, n))
        lo = o[l] if l is not None else 0
        ro = o[r] if r is not None else 0
        ml = lo == 1 and o[i] == -1 and a[i] == 1
        mr = ro == -1 and o[i] == 1 and a[i] == 1
        a2[i] = a[i] - int(ml) - int(mr)
    return all(x == 0 for x in a2)


def member_depth2(w):
    d = deepest = 0
    for c in w:
        d += 1 if c == "(" else -1
        if d < 0:
            return False
        deepest = max(deepest, d)
    return d == 0 and deepest <= 2


members = accepted_members = non_members = accepted_non_members = 0
smallest = None
for n in range(1, 9):
    for t in itertools.product("()", repeat=n):
        w = "".join(t)
        acc = literal_accepts(w)
        if member_depth2(w):
            members += 1
            accepted_members += acc
            if not acc and smallest is None:
                smallest = w
        else:
            non_members += 1
            accepted_non_members += acc
print(f"members {accepted_members}/{members} smallest-rejected {smallest} non-members {accepted_non_members}/{non_members}")
