"""Hypothesis strategies for the property tests of the file tools: awkward files and texts
(CR, CRLF, a BOM, invalid UTF-8, multi-byte characters), and files made of lines."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.support.models import BOM

# Pieces that make files awkward: CR, CRLF, a BOM, invalid UTF-8, multi-byte characters.
EDGY_PIECES = [
    b"a",
    b"b",
    b"x",
    b"foo",
    b" ",
    b"\t",
    b"\n",
    b"\n",
    b"\r",
    b"\r\n",
    b"\r\n",
    BOM,
    b"\xff",
    b"\xc3",
    b"\x80",
    b"\xc3\xa9",
    b"\xe2\x82\xac",
    b"\xf0\x9f\x98\x80",
    b"\x1b[0m",
]


# Distinct words make a slice of a file likely to occur once in it.
WORDS = [w.encode() for w in ("alpha", "beta", "gamma", "delta", "omega", "0", "1", "2", "3")]


edgy_files = st.lists(st.sampled_from(EDGY_PIECES + WORDS), max_size=40).map(b"".join)


# Files that stay text for view (no control bytes a sniffer calls binary), with lines
# that sometimes pass the 2000-character cut.
text_files = st.lists(
    st.sampled_from([*EDGY_PIECES, b"y" * 1999, "é".encode() * 1500]), max_size=30
).map(b"".join)


texts = st.text(alphabet=st.sampled_from(["a", "b", "x", "é", "€", " ", "\t", "\n", "\r"]))


# Few distinct lines, so that hunks are sometimes ambiguous; trailing whitespace, an
# indented line, an empty one, multi-byte characters, one line that is not UTF-8.
LINES = [
    b"alpha",
    b"beta",
    b"gamma",
    b"",
    b"    indented",
    b"tail ",
    b"tail",
    "é".encode(),
    b"x\ty",
    b"caf\xe9",
]


@st.composite
def line_files(draw: st.DrawFn) -> bytes:
    texts = draw(st.lists(st.sampled_from(LINES), max_size=12))
    style = draw(st.sampled_from([b"\n", b"\r\n", None]))
    endings = [style or draw(st.sampled_from([b"\n", b"\r\n"])) for _ in texts]
    data = b"".join(text + ending for text, ending in zip(texts, endings, strict=True))
    if texts and not draw(st.booleans()):
        data = data.removesuffix(endings[-1])  # no final newline
    return (BOM if draw(st.booleans()) else b"") + data


#: Texts grep is checked on: CR, CRLF, a lone CR, a byte that is not UTF-8.
grep_texts = st.lists(
    st.sampled_from([b"ab", b"a", b"b", b"A", b"B", b" ", b"\n", b"\r\n", b"\r", b"\xff", b"x"]),
    max_size=40,
).map(b"".join)
