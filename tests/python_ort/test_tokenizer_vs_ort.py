"""com.microsoft Tokenizer, and the text pipelines skl2onnx builds with it (StringNormalizer ->
Tokenizer -> TfIdfVectorizer), on onnxruntime 1.30 and on onyx in one process.

Each table case states what Tokenizer should give, written out by hand from the operator's
documented reading (separators applied one after another, leftmost-longest matches, tokens
under 'mincharnum' code points dropped, "\\x02"/"\\x03" marks, padding), and both runtimes must
give exactly that. The converted pipelines are compared with scikit-learn's own results and
with ORT's."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxruntime
import onyx

BASE = dict(mark=0, mincharnum=1, pad_value="#")
S, E = "\x02", "\x03"  # the start and end marks


def tokenizer_model(**attrs):
    node = helper.make_node("Tokenizer", ["x"], ["y"], domain="com.microsoft", **attrs)
    graph = helper.make_graph([node], "tokenizer", [helper.make_tensor_value_info("x", TensorProto.STRING, None)],
                              [helper.make_tensor_value_info("y", TensorProto.STRING, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8  # ORT 1.30 reads IR versions up to 11
    return model.SerializeToString()


def tokenize(rt, x, **attrs):
    session = rt.InferenceSession(tokenizer_model(**attrs), providers=["CPUExecutionProvider"])
    y = session.run(None, {"x": np.array(x, dtype=object)})[0]
    return y.shape, y.tolist()


# (input, attributes beyond BASE, expected shape, expected tokens)
CASES = {
    "space": (["Hello World", "I love computer science !"], dict(separators=[" "]),
              (2, 5), [["Hello", "World", "#", "#", "#"], ["I", "love", "computer", "science", "!"]]),
    "runs_of_separators_leave_no_empty_token": (["  a  b ", "c"], dict(separators=[" "]), (2, 2), [["a", "b"], ["c", "#"]]),
    "two_separators": (["a,b;;c", "d"], dict(separators=[",", ";"]), (2, 3), [["a", "b", "c"], ["d", "#", "#"]]),
    "multi_char_separator": (["abab", "xaby"], dict(separators=["ab"]), (2, 2), [["#", "#"], ["x", "y"]]),
    # "b" splits first, so "ab" never sees "xab": separators apply one after another
    "separators_in_order": (["xabx"], dict(separators=["b", "ab"]), (1, 2), [["xa", "x"]]),
    "longest_separator_match": (["xabx"], dict(separators=["a|ab"]), (1, 2), [["x", "x"]]),
    "regex_separator": (["a1b22c"], dict(separators=["[0-9]"]), (1, 3), [["a", "b", "c"]]),
    "whitespace_class": (["a  b"], dict(separators=["\\s"]), (1, 2), [["a", "b"]]),
    "anchor_sees_the_whole_piece": (["a b"], dict(separators=["^a"]), (1, 1), [[" b"]]),
    "dot_separates_everything": (["a.b"], dict(separators=["."]), (1, 0), [[]]),
    # an empty separator match cuts and drops the code point after it
    "empty_match_at_end": (["ab"], dict(separators=["$"]), (1, 1), [["ab"]]),
    "word_boundaries": (["ab cd"], dict(separators=["\\b"]), (1, 2), [["b", "d"]]),
    "alternative_with_end": (["ab cd"], dict(separators=["c|$"]), (1, 2), [["ab ", "d"]]),
    "star_separator": (["aab", "xaax"], dict(separators=["a*"]), (2, 0), [[], []]),
    "code_points": (["abc", "dé"], dict(separators=[""]), (2, 3), [["a", "b", "c"], ["d", "é", "#"]]),
    "code_points_cjk": (["日本 語"], dict(separators=[""]), (1, 4), [["日", "本", " ", "語"]]),
    "code_points_marked": (["ab", "c"], dict(separators=[""], mark=1), (2, 4), [[S, "a", "b", E], [S, "c", E, "#"]]),
    "tokenexp": (["hello world foo", "a bb ccc"], dict(tokenexp="[a-z]+"),
                 (2, 3), [["hello", "world", "foo"], ["a", "bb", "ccc"]]),
    "tokenexp_mincharnum": (["hello world foo", "a bb ccc"], dict(tokenexp="[a-z]+", mincharnum=2),
                            (2, 3), [["hello", "world", "foo"], ["bb", "ccc", "#"]]),
    "tokenexp_longest": (["ab"], dict(tokenexp="a|ab"), (1, 1), [["ab"]]),
    "tokenexp_lazy_made_longest": (["aab"], dict(tokenexp="a+?"), (1, 1), [["aa"]]),
    "tokenexp_groups_ignored": (["abcab"], dict(tokenexp="(a)(b)"), (1, 2), [["ab", "ab"]]),
    "tokenexp_empty_matches_skipped": (["ba", "b a"], dict(tokenexp="a*"), (2, 1), [["a"], ["a"]]),
    "tokenexp_ascii_word": (["日本語 text"], dict(tokenexp="\\w+"), (1, 1), [["text"]]),
    "separators_win_over_tokenexp": (["a b"], dict(separators=[" "], tokenexp="a"), (1, 2), [["a", "b"]]),
    "marks": (["hello world", "a"], dict(tokenexp="[a-z]+", mark=1),
              (2, 4), [[S, "hello", "world", E], [S, "a", E, "#"]]),
    "marks_kept_in_text": (["a\x02b"], dict(separators=[" "], mark=1), (1, 3), [[S, "a\x02b", E]]),
    "no_token_anywhere_no_marks": (["!!!", "??"], dict(tokenexp="[a-z]+", mark=1), (2, 0), [[], []]),
    "empty_strings_marked": (["", ""], dict(separators=[" "], mark=1), (2, 0), [[], []]),
    "mincharnum_counts_code_points": (["aé é"], dict(separators=[" "], mincharnum=2), (1, 1), [["aé"]]),
    "everything_too_short": (["ab", "c"], dict(separators=[" "], mincharnum=3), (2, 0), [[], []]),
    "rank_2": ([["a b", "c"], ["d e f", ""]], dict(separators=[" "]),
               (2, 2, 3), [[["a", "b", "#"], ["c", "#", "#"]], [["d", "e", "f"], ["#", "#", "#"]]]),
    "rank_2_marked": ([["a b", "c"], ["d e f", ""]], dict(tokenexp="\\w+", mark=1),
                      (2, 2, 5), [[[S, "a", "b", E, "#"], [S, "c", E, "#", "#"]], [[S, "d", "e", "f", E], [S, E, "#", "#", "#"]]]),
    "empty_pad_value": (["aXbYc", "d"], dict(separators=["X", "Y"], pad_value=""), (2, 3), [["a", "b", "c"], ["d", "", ""]]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_tokenizer_case(rt, name):
    x, attrs, shape, tokens = CASES[name]
    assert tokenize(rt, x, **dict(BASE, **attrs)) == (shape, tokens)


@pytest.mark.parametrize("shape,expected", [((0,), (0,)), ((2, 0), (2, 0)), ((0, 3), (0, 0))])
def test_empty_input(rt, shape, expected):
    # [C] gives [0] and [N, C] gives [N, 0]: no axis of tokens is added
    assert tokenize(rt, np.empty(shape, dtype=object), **dict(BASE, separators=[" "]))[0] == expected


BAD_ATTRIBUTES = {
    "no_separators_nor_tokenexp": dict(BASE),
    "no_mark": dict(pad_value="#", mincharnum=1, separators=[" "]),
    "no_pad_value": dict(mark=0, mincharnum=1, separators=[" "]),
    "no_mincharnum": dict(mark=0, pad_value="#", separators=[" "]),
    "mincharnum_zero": dict(BASE, separators=[" "], mincharnum=0),
    "code_points_with_mincharnum_2": dict(BASE, separators=[""], mincharnum=2),
    "bad_separator": dict(BASE, separators=["("]),
    "bad_tokenexp": dict(BASE, tokenexp="[a-"),
    "python_only_flag": dict(BASE, tokenexp="(?u)\\b\\w\\w+\\b"),  # RE2 has no (?u)
}


@pytest.mark.parametrize("name", sorted(BAD_ATTRIBUTES))
def test_bad_attributes_refused_at_session_creation(rt, name):
    with pytest.raises(Exception):
        rt.InferenceSession(tokenizer_model(**BAD_ATTRIBUTES[name]), providers=["CPUExecutionProvider"])


def test_rank_3_refused(rt):
    session = rt.InferenceSession(tokenizer_model(**dict(BASE, separators=[" "])), providers=["CPUExecutionProvider"])
    with pytest.raises(Exception, match=r"\[N, ?C\]|\[N\]\[C\]"):
        session.run(None, {"x": np.array([[["a"]]], dtype=object)})


def test_onyx_names_the_pattern_it_cannot_read():
    with pytest.raises(Exception, match=r"tokenexp .*\[a-.* not a valid RE2 regex"):
        onyx.InferenceSession(tokenizer_model(**BAD_ATTRIBUTES["bad_tokenexp"]), providers=["CPUExecutionProvider"])


# -- skl2onnx's text pipelines --------------------------------------------------------------
sklearn = pytest.importorskip("sklearn")
skl2onnx = pytest.importorskip("skl2onnx")
from skl2onnx import to_onnx  # noqa: E402
from skl2onnx.common.data_types import StringTensorType  # noqa: E402
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

CORPUS = [
    "The quick brown fox jumps over the lazy dog", "A lazy dog sleeps all day long",
    "Quick thinking saves the day", "Brown bears and brown foxes", "Dogs and foxes are not friends",
    "The day is long and the night is longer", "Jumps, leaps and bounds!", "over and over again",
    "Foxes are quick; dogs are lazy.", "A day without sun is a long day", "night falls over the brown hills",
    "THE QUICK DOG", "bears sleep through the long night", "friends jump over lazy hills",
]
LABELS = [0, 1, 0, 2, 1, 2, 0, 2, 1, 1, 2, 0, 2, 0]
# Words and bigrams the fitted vocabulary knows and does not, and an empty document.
QUERIES = ["the quick brown dog", "lazy foxes and dogs", "", "unknown words only",
           "over over over the night", "Quick, quick!"]

# skl2onnx writes the default token_pattern as tokenexp "[a-zA-Z0-9_]+" and copies any other
# into tokenexp as it is; RE2 has no "(?u)" (Python's default prefix), so the pipelines below
# spell their pattern without it (\w is ASCII in both here).
PATTERN = r"\b\w\w+\b"
VECTORIZERS = {
    "count_default": lambda: CountVectorizer(),
    "tfidf_default": lambda: TfidfVectorizer(),
    "count_words": lambda: CountVectorizer(token_pattern=PATTERN),
    "count_bigrams": lambda: CountVectorizer(token_pattern=PATTERN, ngram_range=(1, 2)),
    "tfidf_words": lambda: TfidfVectorizer(token_pattern=PATTERN),
    "tfidf_bigrams_l1": lambda: TfidfVectorizer(token_pattern=PATTERN, ngram_range=(1, 2), norm="l1"),
    "tfidf_binary_no_idf": lambda: TfidfVectorizer(token_pattern=PATTERN, binary=True, use_idf=False),
    "tfidf_stop_words": lambda: TfidfVectorizer(token_pattern=PATTERN, stop_words=["the", "and", "a"]),
}


def convert(pipeline, mincharnum=None):
    """The ONNX bytes of a fitted pipeline; mincharnum, when given, replaces the Tokenizer's."""
    final = pipeline.steps[-1][1] if hasattr(pipeline, "steps") else pipeline
    options = {id(final): {"zipmap": False}} if hasattr(final, "predict_proba") else {}
    model = to_onnx(pipeline, initial_types=[("text", StringTensorType([None, 1]))],
                    target_opset={"": 17, "ai.onnx.ml": 3}, options=options)
    tokenizers = [n for n in model.graph.node if n.op_type == "Tokenizer" and n.domain == "com.microsoft"]
    assert len(tokenizers) == 1
    if mincharnum is not None:
        next(a for a in tokenizers[0].attribute if a.name == "mincharnum").i = mincharnum
    return model.SerializeToString()


def run_both(model, feed):
    results = {}
    for rt in (onnxruntime, onyx):
        session = rt.InferenceSession(model, providers=["CPUExecutionProvider"])
        results[rt.__name__] = session.run(None, {"text": feed})
    return results["onyx"], results["onnxruntime"]


@pytest.mark.parametrize("name", sorted(VECTORIZERS))
def test_vectorizer_as_scikit_learn(name):
    vectorizer = VECTORIZERS[name]().fit(CORPUS)
    model = convert(vectorizer)
    batches = [[text] for text in QUERIES] + [QUERIES + CORPUS]  # one document a run, and many
    for texts in batches:
        ours, ort = run_both(model, np.array([[t] for t in texts], dtype=object))
        expected = vectorizer.transform(texts).toarray().astype(np.float32)
        np.testing.assert_allclose(ours[0], ort[0], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(ours[0], expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pattern", [None, PATTERN])
def test_text_classifier_as_scikit_learn(pattern):
    options = {} if pattern is None else {"token_pattern": pattern}
    pipeline = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), **options), LogisticRegression(max_iter=1000))
    pipeline.fit(CORPUS, LABELS)
    texts = QUERIES + CORPUS
    feed = np.array([[t] for t in texts], dtype=object)
    # skl2onnx writes the default pattern as "[a-zA-Z0-9_]+" with mincharnum 1, where
    # scikit-learn's default keeps tokens of 2 characters or more: the one-letter words ("a")
    # miss the vocabulary, but bigrams across them differ ("is a" for "is long"). With
    # mincharnum 2, what the pattern means, both runtimes agree with scikit-learn.
    if pattern is None:
        ours, ort = run_both(convert(pipeline), feed)
        np.testing.assert_allclose(ours[1], ort[1], rtol=1e-5, atol=1e-6)
    ours, ort = run_both(convert(pipeline, mincharnum=2 if pattern is None else None), feed)
    assert ours[0].tolist() == ort[0].tolist() == pipeline.predict(texts).tolist()
    np.testing.assert_allclose(ours[1], ort[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[1], pipeline.predict_proba(texts), rtol=1e-4, atol=1e-5)
