#!/usr/bin/python3
"""Kernel cases for StringConcat, StringSplit, RegexFullMatch and com.microsoft Tokenizer.

The references are Python's own string operations: `+`, str.split(sep, maxsplit),
re.fullmatch, re.split and re.findall (on patterns where Python's re and RE2 agree, and where
the leftmost-longest match Tokenizer takes is also Python's leftmost-first one).

Usage: gen_strings.py OUT_DIR (see kcase.py for the layout)."""
import re

import numpy as np
from onnx import TensorProto as TP

from kcase import Writer

w = Writer()
S = lambda *a: np.array(a, dtype=object)

# ---- StringConcat ----------------------------------------------------------------------------
a = np.array([["ab", "", "ç"], ["x", "yz", "日本"]], dtype=object)
b = S("1", "", "語")
w.case("stringconcat_broadcast_utf8", "StringConcat", [("x", a), ("y", b)],
       [("z", np.array([[p + q for p, q in zip(row, b)] for row in a], dtype=object))], opset=20)
w.case("stringconcat_scalar", "StringConcat", [("x", np.array("pre-", dtype=object)), ("y", a)],
       [("z", np.array([["pre-" + v for v in row] for row in a], dtype=object))], opset=20)
w.case("stringconcat_empty", "StringConcat", [("x", np.zeros((0, 2), dtype=object)), ("y", S("a", "b"))],
       [("z", np.zeros((0, 2), dtype=object))], opset=20)
w.bad("stringconcat_shapes_clash", "StringConcat", [("x", S("a", "b")), ("y", S("a", "b", "c"))], [("z", TP.STRING)],
      "broadcast", opset=20)


# ---- StringSplit -----------------------------------------------------------------------------
def split_ref(x, delimiter, maxsplit):
    sep = delimiter or None
    parts = [s.split(sep, -1 if maxsplit is None else maxsplit) for s in x.reshape(-1)]
    widest = max((len(p) for p in parts), default=0)
    y = np.array([p + [""] * (widest - len(p)) for p in parts], dtype=object).reshape(x.shape + (widest,))
    z = np.array([len(p) for p in parts], np.int64).reshape(x.shape)
    return y, z


x_ws = S("  a b\tc  ", "", "   ", "one", "x\u00a0y\u3000z", "p\u2003 q\nr", "a\x1fb")
x_delim = S("a,b,,c,", ",", "", "no commas", ",,")
x_multi = S("a--b----c", "--", "-", "a-b")
for name, x, delimiter, maxsplit in [
        ("whitespace", x_ws, None, None), ("whitespace_empty_delim", x_ws, "", None),
        ("whitespace_maxsplit1", x_ws, None, 1), ("whitespace_maxsplit0", x_ws, None, 0),
        ("comma", x_delim, ",", None), ("comma_maxsplit2", x_delim, ",", 2), ("comma_maxsplit0", x_delim, ",", 0),
        ("multichar", x_multi, "--", None), ("utf8_delim", S("α語β語γ", "語", "x"), "語", None),
        ("2d", np.array([["a b", "c"], ["d e f", ""]], dtype=object), " ", None),
        ("negative_maxsplit", x_delim, ",", -1)]:
    attrs = {}
    if delimiter is not None:
        attrs["delimiter"] = delimiter
    if maxsplit is not None:
        attrs["maxsplit"] = maxsplit
    y, z = split_ref(x, delimiter, maxsplit)
    w.case(f"stringsplit_{name}", "StringSplit", [("x", x)], [("y", y), ("z", z)], opset=20, **attrs)
y, z = split_ref(np.zeros((0,), dtype=object), None, None)
w.case("stringsplit_empty_tensor", "StringSplit", [("x", np.zeros((0,), dtype=object))], [("y", y), ("z", z)], opset=20)
w.case("stringsplit_all_empty", "StringSplit", [("x", S("", " "))], [("y", np.zeros((2, 0), dtype=object)),
       ("z", np.zeros(2, np.int64))], opset=20)
w.bad("stringsplit_not_string", "StringSplit", [("x", np.ones(2, np.int32))], [("y", TP.STRING), ("z", TP.INT64)],
      "must be a string tensor", opset=20)


# ---- RegexFullMatch --------------------------------------------------------------------------
def match_ref(x, pattern):
    return np.array([re.fullmatch(pattern, s) is not None for s in x.reshape(-1)], bool).reshape(x.shape)


texts = np.array([["www.google.com", "www.facebook.com", "www.bbc.co.uk"],
                  ["user@example.org", "not an email", ""]], dtype=object)
for name, pattern in [("domain", r"www\.[\w.-]+\.\bcom\b"), ("email", r"[\w.+-]+@[\w-]+\.[a-z]{2,}"),
                      ("empty_pattern", ""), ("anything", ".*"), ("alternation", r"(www|user)\S*"),
                      ("partial_is_not_full", r"www"), ("char_class", r"[a-z .@]+")]:
    w.case(f"regexfullmatch_{name}", "RegexFullMatch", [("x", texts)], [("y", match_ref(texts, pattern))], opset=20,
           pattern=pattern)
utf8 = S("é", "日本", "ab", "")
w.case("regexfullmatch_utf8_codepoints", "RegexFullMatch", [("x", utf8)], [("y", match_ref(utf8, r"..?"))], opset=20,
       pattern="..?")
w.case("regexfullmatch_empty_tensor", "RegexFullMatch", [("x", np.zeros((0, 3), dtype=object))],
       [("y", np.zeros((0, 3), bool))], opset=20, pattern="a+")
w.bad("regexfullmatch_invalid_pattern", "RegexFullMatch", [("x", S("a"))], [("y", TP.BOOL)], "not a valid RE2 regex",
      opset=20, pattern="(ab")
# Backreferences are Python re syntax, not RE2: refused, never silently misread.
w.bad("regexfullmatch_backreference_refused", "RegexFullMatch", [("x", S("aa"))], [("y", TP.BOOL)], "not a valid RE2 regex",
      opset=20, pattern=r"(a)\1")
w.bad("regexfullmatch_not_string", "RegexFullMatch", [("x", np.ones(2, np.int32))], [("y", TP.BOOL)],
      "must be a string tensor", opset=20, pattern="a")

# ---- com.microsoft Tokenizer ------------------------------------------------------------------
def tokenize_ref(x, separators=None, tokenexp=None, mark=0, mincharnum=1, pad_value="#"):
    rows = []
    for text in x.reshape(-1):
        if separators is not None:
            pieces = [text]
            for sep in separators:  # each separator splits what the earlier ones left
                pieces = [p for piece in pieces for p in re.split(sep, piece) if p]
        else:
            pieces = re.findall(tokenexp, text)
        rows.append([p for p in pieces if len(p) >= mincharnum])
    widest = max((len(r) for r in rows), default=0)
    depth = widest + 2 * mark if widest else 0
    out = np.full((len(rows), depth), pad_value, dtype=object)
    for i, r in enumerate(rows):
        if depth:
            cells = (["\x02"] + r + ["\x03"]) if mark else r
            out[i, :len(cells)] = cells
    return out.reshape(x.shape + (depth,))


MS = dict(domain="com.microsoft", extra_opsets=[("com.microsoft", 1)])
texts = np.array([["the quick, brown fox", "jumps;over  the"], ["lazy dog", ""]], dtype=object)
for name, attrs in [("space_comma", dict(separators=[" ", ","])), ("semicolon_then_space", dict(separators=[";", " +"])),
                    ("words", dict(tokenexp="[a-z]+")), ("words_marked", dict(tokenexp="[a-z]+", mark=1)),
                    ("long_words", dict(tokenexp="[a-z]+", mincharnum=4))]:
    full = {**dict(mark=0, mincharnum=1, pad_value="#"), **attrs}
    ref = tokenize_ref(texts, full.get("separators"), full.get("tokenexp"), full["mark"], full["mincharnum"], "#")
    w.case(f"tokenizer_{name}", "Tokenizer", [("x", texts)], [("y", ref)], **MS, **full)
utf8 = S("日本 語", "ça va")
w.case("tokenizer_code_points", "Tokenizer", [("x", utf8)],
       [("y", np.array([["日", "本", " ", "語", "#"], ["ç", "a", " ", "v", "a"]], dtype=object))], **MS,
       mark=0, mincharnum=1, pad_value="#", separators=[""])
w.bad("tokenizer_bad_tokenexp", "Tokenizer", [("x", S("a"))], [("y", TP.STRING)], "not a valid RE2 regex", **MS,
      mark=0, mincharnum=1, pad_value="#", tokenexp="(ab")
w.bad("tokenizer_rank_3", "Tokenizer", [("x", np.array([[["a"]]], dtype=object))], [("y", TP.STRING)], "[N, C]", **MS,
      mark=0, mincharnum=1, pad_value="#", separators=[" "])

w.done()
