#!/usr/bin/env python3
"""Independent values for the tests of the GELU product's best constants
(claims ffn.mul.taylor.{erf,tanh} and ffn.mul.bound.{erf,tanh}; the tests
in proofs/ffn/ffn_gelu_sup_test.go read gelu_sup.txt).

For both GELU forms, erf (eq:gelu) and tanh (eq:gelu_approx1), with
R(z) = GELU(z) - z/2 - z^2/sqrt(2 pi) and
eps(x, y) = sqrt(pi/2) (GELU(x + y) - GELU(x) - GELU(y)) - xy, it computes
at 40 significant digits (mpmath), from sympy's exact derivatives:

  tstar  T* = sup |R(z)|/|z|^3 over z != 0: a grid over [-12, 12], then
         Newton's method on the derivative of R(z)/z^3;
  cstar  C* = sup |eps(x, y)|/(|x| + |y|)^3 over (x, y) != 0: a grid over
         the whole l1 circle (all four sides, every direction) times s in
         (0, 12], then Newton's method on the gradient in (x, y);
  odd-part, at0
         R(-z) - R(z) and R^(k)(0), k = 0..3, simplified exactly by sympy
         (the near region's premises: each must be 0);
  m4     max |GELU''''| over [-3/8, 3/8], by a grid and Newton's method on
         GELU''''';
  rjet   R^(k)(z)/k! for k = 0..5 at sample points;
  rho    R(z)/z^3 at sample points, drho its derivative;
  c4min, c4max, c45min, c45max
         the range of R''''/24 and of (R'''' + t R''''')/24 over t in
         [0, z], on a grid of 3000 points (the near region's enclosures
         of R(z)/z^3 and of its derivative);
  mulratio, taylorratio
         |eps(x, y)|/(|x| + |y|)^3 and |R(z)|/|z|^3 at sample points of the
         near (|x| + |y| <= 3/8) and far (>= 8) regions;
  midratio
         eps(x, y)/(|x| + |y|)^3, signed, at sample points of the middle
         region, in all four quadrants.

It knows nothing of the Go code's reduction to x >= |y|, its Taylor
models or its branch and bound. Regenerate with
  python3 gelu_sup.py > gelu_sup.txt
"""
import mpmath as mp
import sympy as sp

mp.mp.dps = 40
DIGITS = 30

z = sp.symbols("z", real=True)
FORMS = {
    "erf": z / 2 * (1 + sp.erf(z / sp.sqrt(2))),
    "tanh": z / 2 * (1 + sp.tanh(sp.sqrt(2 / sp.pi) * (z + sp.Rational(44715, 1000000) * z**3))),
}


def fmt(v):
    return mp.nstr(mp.mpf(v), DIGITS, min_fixed=-5, max_fixed=5)


def derivs(expr, n):
    """mpmath functions for expr and its first n derivatives."""
    out, e = [], expr
    for _ in range(n + 1):
        out.append(sp.lambdify(z, e, "mpmath"))
        e = sp.diff(e, z)
    return out


def maximize_1d(f, df, ddf, lo, hi, steps):
    best = max((abs(f(lo + (hi - lo) * mp.mpf(i) / steps)), lo + (hi - lo) * mp.mpf(i) / steps) for i in range(1, steps + 1))
    t = mp.findroot(df, best[1], solver="newton", df=ddf) if ddf else mp.findroot(df, best[1])
    return abs(f(t)), t


for name, G in FORMS.items():
    R = G - z / 2 - z**2 / sp.sqrt(2 * sp.pi)
    Rk = derivs(R, 6)
    # the near region's premises, exactly: R is even, and R and its first
    # three derivatives vanish at 0
    print(name, "odd-part", sp.simplify(R.subs(z, -z) - R))
    for k in range(4):
        print(name, "at0", k, sp.simplify(sp.diff(R, z, k).subs(z, 0)))
    G4 = derivs(sp.diff(G, z, 4), 2)
    rho = R / z**3
    rhok = derivs(rho, 2)

    def Rf(t):
        return Rk[0](mp.mpf(t))

    # T*: R is even in exact arithmetic; the grid covers both signs anyway
    best = (mp.mpf(0), None)
    for i in range(-1200, 1201):
        if i == 0:
            continue
        t = mp.mpf(i) / 100
        r = abs(Rf(t)) / abs(t) ** 3
        if r > best[0]:
            best = (r, t)
    t = mp.findroot(rhok[1], best[1], solver="newton", df=rhok[2])
    print(name, "tstar", fmt(abs(rhok[0](t))), fmt(t))

    # C*: every direction of the l1 circle, s in (0, 12]
    def ratio(x, y):
        e = mp.sqrt(mp.pi / 2) * (Rf(x + y) - Rf(x) - Rf(y))
        return abs(e) / (abs(x) + abs(y)) ** 3

    mp.mp.dps = 20
    best = (mp.mpf(0), None)
    for j in range(160):  # direction: tau in [0, 4) around the circle
        tau = mp.mpf(j) / 40
        side, f = int(tau), tau - int(tau)
        u, v = [(1 - f, f), (-f, 1 - f), (-(1 - f), -f), (f, -(1 - f))][side]
        for i in range(1, 121):
            s = mp.mpf(i) / 10
            r = ratio(s * u, s * v)
            if r > best[0]:
                best = (r, (s * u, s * v))
    mp.mp.dps = 40
    x0, y0 = best[1]
    sgn = 1 if x0 * y0 >= 0 else -1

    def F(x, y):  # smooth where the signs of x, y and eps stay fixed
        e = mp.sqrt(mp.pi / 2) * (Rf(x + y) - Rf(x) - Rf(y))
        return e / (abs(x) + abs(y)) ** 3

    gx = lambda x, y: mp.diff(lambda a: F(a, y), x)
    gy = lambda x, y: mp.diff(lambda b: F(x, b), y)
    x1, y1 = mp.findroot([gx, gy], (x0, y0))
    print(name, "cstar", fmt(abs(F(x1, y1))), fmt(x1), fmt(y1))

    # M4 = max |GELU''''| on [0, 3/8] (GELU'''' is even)
    m4, at = mp.mpf(0), mp.mpf(0)
    for i in range(0, 3001):
        t = mp.mpf(3) / 8 * i / 3000
        v = abs(G4[0](t))
        if v > m4:
            m4, at = v, t
    if at not in (0, mp.mpf(3) / 8):
        at = mp.findroot(G4[1], at, solver="newton", df=G4[2])
        m4 = abs(G4[0](at))
    print(name, "m4", fmt(m4), fmt(at))

    for t in ["0", "1/4", "1", "5/2", "6"]:
        tv = mp.mpf(sp.Rational(t))
        for k in range(6):
            print(name, "rjet", t, k, fmt(Rk[k](tv) / mp.factorial(k)))
    # grid points of the Go table (multiples of 1/64) and points between
    for t in ["1/2", "51/100", "1", "33/32", "4/3", "2", "11/5", "9/4", "71/10", "8"]:
        print(name, "rho", t, fmt(rhok[0](mp.mpf(sp.Rational(t)))))
    for t in ["1/8", "1/5", "1/4", "3/8", "1/2", "51/100", "1", "4/3", "2", "11/5", "9/4", "7", "71/10"]:
        print(name, "drho", t, fmt(rhok[1](mp.mpf(sp.Rational(t)))))
    for t in ["1/8", "1/4", "3/8"]:
        top = mp.mpf(sp.Rational(t))
        ts = [top * i / 3000 for i in range(3001)]
        c4 = [Rk[4](u) / 24 for u in ts]
        c45 = [(Rk[4](u) + u * Rk[5](u)) / 24 for u in ts]
        print(name, "c4min", t, fmt(min(c4)))
        print(name, "c4max", t, fmt(max(c4)))
        print(name, "c45min", t, fmt(min(c45)))
        print(name, "c45max", t, fmt(max(c45)))
    for x, y in [("1", "1"), ("1", "-1/2"), ("2", "-1"), ("-3", "1"), ("1/2", "-1/4"), ("5/2", "3/2"),
                 ("-1", "-2"), ("3", "-3"), ("6", "-1"), ("1/3", "1/10"), ("-7/10", "3/5"), ("0", "5")]:
        xv, yv = mp.mpf(sp.Rational(x)), mp.mpf(sp.Rational(y))
        e = mp.sqrt(mp.pi / 2) * (Rf(xv + yv) - Rf(xv) - Rf(yv))
        print(name, "midratio", x, y, fmt(e / (abs(xv) + abs(yv)) ** 3))
    for x, y in [("1/4", "1/8"), ("3/16", "3/16"), ("1/4", "-1/8"), ("1/100", "1/100"), ("-3/10", "1/20"),
                 ("7", "1"), ("4", "4"), ("4", "-4"), ("8", "8"), ("20", "-3"), ("100", "1"), ("-50", "50")]:
        xv, yv = mp.mpf(sp.Rational(x)), mp.mpf(sp.Rational(y))
        print(name, "mulratio", x, y, fmt(ratio(xv, yv)))
    for t in ["3/8", "1/4", "1/100", "-3/8", "8", "-8", "12", "100"]:
        tv = mp.mpf(sp.Rational(t))
        print(name, "taylorratio", t, fmt(abs(Rf(tv)) / abs(tv) ** 3))
