#!/usr/bin/env python3
"""Extract the section titles and labels of the Transformer Cookbook.

Usage: python3 gen_labels.py ../../../shared/transformer-cookbook.tex > labels.txt

Each output line is "label<TAB>title" for every \\section, \\subsection and
\\subsubsection, with the \\label that follows it (on the same line or the
next), or "-" for the few headings the paper leaves unlabelled (Special
Symbols, Sinusoidal Positional Encoding, ...). The registry test checks
every recipe's Section and Label against this file, so that a recipe cannot
cite a section the paper does not have.
"""
import re
import sys

src = open(sys.argv[1], encoding="utf-8").read().split("\n")
head = re.compile(r"\\(?:sub)*section\*?\{(.*)\}")
lab = re.compile(r"\\label\{([^}]*)\}")
for k, line in enumerate(src):
    if line.lstrip().startswith("%"):
        continue
    m = head.search(line)
    if not m:
        continue
    # The title may contain braces; take up to the brace matching the first.
    start = m.start(1)
    depth, end = 1, start
    while end < len(line) and depth:
        depth += {"{": 1, "}": -1}.get(line[end], 0)
        end += 1
    title = line[start:end - 1]
    title = title.replace("~", " ").replace("\\", "")
    rest = line[end:] + (src[k + 1] if k + 1 < len(src) else "")
    l = lab.search(rest)
    if l and not head.search(rest[: l.start()]):
        print(f"{l.group(1)}\t{title}")
    else:
        print(f"-\t{title}")
