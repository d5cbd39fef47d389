"""The tag grammar: what a tag string may be in each scheme, how it splits into a prefix and a type,
and the errors that name a bad tag and its place (``predictions[3][1]``).

>>> from ner_recall.core import tags as ner_tags
>>> ner_tags.parse_tag("B-PER", False, None), ner_tags.parse_tag("PER-B", True, None)
((1, 'PER'), (1, 'PER'))
>>> ner_tags.ALLOWED_PREFIXES["IOB2"]
'OBI'
"""

import unicodedata
from collections.abc import Collection, Sequence
from typing import Any

from ner_recall.core.vocabulary import InputError, literal

PREFIXES = "OBIESLU"  # a prefix's code is its index; O is 0
_O, _I = PREFIXES.index("O"), PREFIXES.index("I")
#: where a tag stands: (side, sentence, token), the sentence or token None where there is none
Place = tuple[str, int | None, int | None]
#: the type of untyped chunk tags (``B``, ``I``, ...), as seqeval names it
UNTYPED = "_"

#: prefixes each decoder accepts (None: lenient)
ALLOWED_PREFIXES = {
    None: "OBIES",
    "IO": "OI",
    "IOB1": "OBI",
    "IOB2": "OBI",
    "IOE1": "OIE",
    "IOE2": "OIE",
    "IOBES": "OIBES",
    "BILOU": "OBILU",
}


def _expected(scheme):
    return ", ".join("O" if p == "O" else f"{p}-*" for p in ALLOWED_PREFIXES[scheme])


def _invisible_end(text):
    """Whether ``text`` starts or ends with whitespace or an invisible format character."""
    return any(c.isspace() or unicodedata.category(c) == "Cf" for c in {text[0], text[-1]})


def _odd_characters(tag):
    """Why the characters of a tag (a str other than ``O``) cannot be a tag's, or None."""
    if not tag:
        return "is empty"
    if _invisible_end(tag):
        return "has whitespace or an invisible character at its start or end"
    control = next((c for c in tag if unicodedata.category(c) == "Cc"), None)
    return None if control is None else f"contains the control character {control!r}"


def _type_problem(label):
    """Why ``label`` (a non-empty entity type) cannot be one, or None."""
    if label.startswith("-") or label.endswith("-"):
        return (
            f"has the entity type {label!r}, which begins or ends with '-' (seqeval reads it "
            f"as {label!r} in its default mode and as {label.strip('-') or UNTYPED!r} in strict mode)"
        )
    if label == "O":
        return "has the entity type 'O', the name of the outside tag"
    if _invisible_end(label):
        return "has whitespace or an invisible character around its entity type"
    return None


def _split(tag, suffix):
    """(prefix, delimiter, type) of a tag read as PREFIX-TYPE, or TYPE-PREFIX with ``suffix``;
    a one-character tag is a prefix without a type."""
    if len(tag) == 1:
        return tag, "-", ""
    return (tag[-1], tag[-2], tag[:-2]) if suffix else (tag[0], tag[1], tag[2:])


def _is_prefix(prefix, delimiter):
    return delimiter == "-" and (prefix in PREFIXES or prefix in PREFIXES.lower())


def _bare(tag, scheme):
    """A tag with no prefix: a type of its own with ``scheme="IO"``, else invalid (None)."""
    return (_type_problem(tag) or (_I, tag)) if scheme == "IO" else None


def _hint(tag, suffix, scheme):
    """What an invalid tag may have meant."""
    if _is_prefix(*_split(tag, suffix)[:2]):
        prefix = tag[-1 if suffix else 0]
        return (
            "; for BILOU tags use mode='strict', scheme='BILOU'" if scheme is None and prefix in "LU" else ""
        )
    if _is_prefix(*_split(tag, not suffix)[:2]):
        return f"; as {'PREFIX-TYPE' if suffix else 'TYPE-PREFIX'} it needs suffix={not suffix}"
    if isinstance(_bare(tag, "IO"), tuple):
        return "; tags that are a bare type, such as 'PER', need mode='strict', scheme='IO'"
    return ""


def parse_tag(tag: Any, suffix: bool, scheme: str | None) -> tuple[int, str | None] | str | None:
    """(prefix code, type name) of a valid tag (type None for ``O``, "" for a tag with no type),
    else the reason it is not (a str), or None for a prefix the scheme does not take."""
    if not isinstance(tag, str):
        return "is not a string"
    if tag == "O":
        return _O, None
    odd = _odd_characters(tag)
    if odd:
        return odd
    prefix, delimiter, label = _split(tag, suffix)
    if not _is_prefix(prefix, delimiter):
        return _bare(tag, scheme)
    if prefix.islower():
        return f"has the lower-case prefix {prefix!r} (prefixes are upper case: {prefix.upper()!r})"
    if prefix == "O" or prefix not in ALLOWED_PREFIXES[scheme]:
        return None
    if len(tag) > 1 and not label:
        return "has an empty entity type"
    return (label and _type_problem(label)) or (PREFIXES.index(prefix), label)


def _tag_error(tag, where, suffix, scheme):
    reason = parse_tag(tag, suffix, scheme)
    if isinstance(reason, str):
        return f"tag {tag!r} at {where} {reason}"
    shape = "TYPE-PREFIX" if suffix else "PREFIX-TYPE"
    name, bare = (
        ("None (lenient)", "") if scheme is None else (scheme, ", or a bare type" if scheme == "IO" else "")
    )
    return (
        f"invalid tag {tag!r} at {where} (scheme {name} expects {_expected(scheme)} as {shape}{bare})"
        f"{_hint(tag, suffix, scheme)}"
    )


def _mixed_error(untyped, typed, sides):
    return (
        f"tag {untyped!r} at {_locate(untyped, sides)} has no entity type but tag {typed!r} at "
        f"{_locate(typed, sides)} has one: tag every entity with a type, or none "
        f"(tags with no type are read as one type, {UNTYPED!r})"
    )


def first_place(tags: Collection[str], sides: Sequence[tuple[str, Any]]) -> tuple[str, Place | None]:
    """(tag, place) of the first occurrence of any of ``tags`` (a set); a place as ``_place``."""
    for name, sequences in sides:
        for i, sequence in enumerate(sequences):
            for j, value in enumerate(sequence):
                if value in tags:
                    return value, _place(name, i, j)
    tag = min(tags, key=repr)
    return tag, tag_place(tag, sides)


def _place(name, i, j):
    """(side, sentence, token) of ``name[i][j]``; ``("tags", j, None)`` for a name with fields
    (``"tags[{j}]"``: one sequence)."""
    return (name.split("[")[0], j, None) if "{" in name else (name, i, j)


def tag_place(tag: str, sides: Sequence[tuple[str, Any]]) -> Place | None:
    """The first place where ``tag`` occurs (``_place``), or None."""
    for name, sequences in sides:
        for i, sequence in enumerate(sequences):
            for j, value in enumerate(sequence):
                if value is tag or (type(value) is type(tag) and value == tag):
                    return _place(name, i, j)
    return None


def _locate(tag, sides):
    """The first place where ``tag`` occurs: ``name[i][j]``, or ``tags[j]`` for a name with fields
    (``"tags[{j}]"``)."""
    place = tag_place(tag, sides)
    return "the input" if place is None else InputError.place_of(*place)


def tag_input_error(tag: str, place: Place | None, suffix: bool, scheme: str | None) -> ValueError:
    """``_tag_error`` as an :class:`InputError` at ``place`` (side, sentence, token)."""
    if place is None:
        return ValueError(_tag_error(tag, "the input", suffix, scheme))
    template = literal(_tag_error(tag, "\x00", suffix, scheme)).replace("\x00", "{place}")
    return InputError(template, *place, tag)


def mixed_input_error(untyped: str, typed: str, sides: Sequence[tuple[str, Any]]) -> ValueError:
    """``_mixed_error`` as an :class:`InputError` at the untyped tag's place."""
    place, other = tag_place(untyped, sides), tag_place(typed, sides)
    if place is None or other is None:
        return ValueError(_mixed_error(untyped, typed, sides))
    return InputError(
        f"tag {literal(repr(untyped))} at {{place}} has no entity type but tag {literal(repr(typed))} at "
        f"{{other}} has one: tag every entity with a type, or none "
        f"(tags with no type are read as one type, {UNTYPED!r})",
        *place,
        untyped,
        other=other,
    )
