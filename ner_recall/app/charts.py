"""The app's charts, drawn as inline SVG (and the type confusion as a shaded table): stratified
recall per subgroup, F1 per type and mode, strict F1 per entity bucket, the precision-recall curve
and reliability diagram of scored predictions. Every name drawn goes through ``common.esc``."""

from __future__ import annotations

from typing import NamedTuple

from ner_recall.app.common import PALETTE, VOCAB, attrs, esc


class _Frame(NamedTuple):
    """Geometry of the recall plot: recall 0..1 maps to x in [left, width - right]."""

    width: int = 760
    left: int = 190
    right: int = 70
    row: int = 40
    top: int = 26

    def x(self, value: float) -> float:
        return round(self.left + value * (self.width - self.left - self.right), 1)

    def y(self, i: int) -> float:
        return self.top + self.row * i + self.row / 2


ESTIMATE_COLOUR, STRATUM_COLOUR = "#e15759", "#4e79a7"


def recall_svg(result: dict) -> str:
    """Per-subgroup recall with its interval, dot area ~ weight, and the weighted estimate below."""
    frame = _Frame()
    strata = list(result["strata"].items())
    height = frame.top + frame.row * (len(strata) + 1) + 34
    parts = [
        f'<svg viewBox="0 0 {frame.width} {height}" width="100%" role="img" class="recall-plot" '
        f'font-family="system-ui, sans-serif" font-size="13" fill="currentColor">',
        _svg_guides(frame, result, height),
    ]
    parts += [_svg_stratum(frame, frame.y(i), name, s, result["n"]) for i, (name, s) in enumerate(strata)]
    parts += [_svg_estimate(frame, frame.y(len(strata)), result), "</svg>"]
    caption = (
        f'<p class="plot-caption">Dots: each subgroup\'s recall, area ~ its weight (its share of '
        f"the population; n and its share of the sample beside it); bars: its "
        f"{result['confidence_level']:.0%} interval taken alone. Red: the weighted estimate and its "
        "interval; dotted: plain recall.</p>"
    )
    return "".join(parts) + caption


def _svg_guides(frame, result, height):
    """Grid lines with percentages, the estimate's interval band and line, the plain recall line."""
    x, top, bottom = frame.x, frame.top - 8, height - 26
    plain = result["correct"] / result["n"]
    parts = [
        f'<line x1="{x(t)}" x2="{x(t)}" y1="{top}" y2="{bottom}" stroke="currentColor" stroke-opacity=".15"/>'
        f'<text x="{x(t)}" y="{height - 8}" text-anchor="middle" opacity=".7">{t:.0%}</text>'
        for t in (0, 0.2, 0.4, 0.6, 0.8, 1)
    ]
    low, high, estimate = x(result["ci_low"]), x(result["ci_high"]), x(result["recall"])
    parts.append(
        f'<rect x="{low}" y="{top}" width="{high - low}" height="{bottom - top}" '
        f'fill="{ESTIMATE_COLOUR}" opacity=".10"/>'
        f'<line x1="{estimate}" x2="{estimate}" y1="{top}" y2="{bottom}" stroke="{ESTIMATE_COLOUR}" '
        'stroke-dasharray="5 4"/>'
        f'<line x1="{x(plain)}" x2="{x(plain)}" y1="{top}" y2="{bottom}" stroke="currentColor" '
        'stroke-opacity=".45" stroke-dasharray="1 3"/>'
        f'<text x="{x(plain)}" y="{top - 4}" text-anchor="middle" font-size="11" opacity=".6">'
        f"plain {plain:.1%}</text>"
    )
    return "".join(parts)


def _svg_stratum(frame, y, name, stratum, n_total):
    """One subgroup: its name, n and weight, its interval and a dot of area ~ weight."""
    radius = 3 + 9 * stratum["weight"] ** 0.5
    return (
        f'<text x="{frame.left - 12}" y="{y - 2}" text-anchor="end" font-weight="600">{esc(name)}</text>'
        f'<text x="{frame.left - 12}" y="{y + 13}" text-anchor="end" font-size="11" opacity=".65">'
        f"n={stratum['n']} ({stratum['n'] / n_total:.0%}) · weight {stratum['weight']:.0%}</text>"
        + _svg_interval(frame, y, stratum, STRATUM_COLOUR, 2.5)
        + f'<circle cx="{frame.x(stratum["recall"])}" cy="{y}" r="{radius:.1f}" fill="{STRATUM_COLOUR}" '
        f'fill-opacity=".85"/><text x="{frame.width - frame.right + 8}" y="{y + 4}">{stratum["recall"]:.1%}</text>'
    )


def _svg_estimate(frame, y, result):
    """The weighted estimate: a diamond on its interval."""
    x, d = frame.x(result["recall"]), 8
    return (
        f'<text x="{frame.left - 12}" y="{y + 4}" text-anchor="end" font-weight="700" '
        f'fill="{ESTIMATE_COLOUR}">weighted estimate</text>'
        + _svg_interval(frame, y, result, ESTIMATE_COLOUR, 4)
        + f'<path d="M{x} {y - d} L{x + d} {y} L{x} {y + d} L{x - d} {y} Z" fill="{ESTIMATE_COLOUR}"/>'
        f'<text x="{frame.width - frame.right + 8}" y="{y + 4}" font-weight="700" '
        f'fill="{ESTIMATE_COLOUR}">{result["recall"]:.1%}</text>'
    )


def _svg_interval(frame, y, s, colour, stroke):
    low, high = frame.x(s["ci_low"]), frame.x(s["ci_high"])
    return (
        f'<line x1="{low}" x2="{high}" y1="{y}" y2="{y}" stroke="{colour}" stroke-width="{stroke}"/>'
        + "".join(
            f'<line x1="{e}" x2="{e}" y1="{y - 6}" y2="{y + 6}" stroke="{colour}" stroke-width="2"/>'
            for e in (low, high)
        )
    )


#: px per character of a 12 px label, generous (capitals and wide letters): labels never clip
CHAR_WIDTH = 9


def label_width(names: list[str], least: int = 60) -> int:
    """Room for the longest of ``names`` drawn at 12 px, right-aligned before a chart."""
    return max([least, *(CHAR_WIDTH * len(str(n)) + 16 for n in names)])


def type_f1_svg(results: dict) -> str:
    """Per type, one bar of F1 per MUC mode (grouped), with the value at its end; the left margin
    holds the longest type name (HAREM's category|type names are long)."""
    modes = VOCAB.MODES
    types = sorted(results["muc"]["strict"]["per_type"])
    bar, gap, width = 14, 12, 520
    left = label_width(types, 110)
    height = len(types) * (len(modes) * bar + gap) + 40
    parts = [
        f'<svg viewBox="0 0 {left + width + 60} {height}" width="100%" role="img" class="type-f1" '
        'font-family="system-ui, sans-serif" font-size="12" fill="currentColor">'
    ]
    parts += [
        f'<line x1="{left + width * t}" x2="{left + width * t}" y1="0" y2="{height - 24}" '
        f'stroke="currentColor" stroke-opacity=".15"/><text x="{left + width * t}" y="{height - 8}" '
        f'text-anchor="middle" opacity=".7">{t:.1f}</text>'
        for t in (0, 0.2, 0.4, 0.6, 0.8, 1)
    ]
    for i, name in enumerate(types):
        y0 = i * (len(modes) * bar + gap) + 4
        parts.append(
            f'<text x="{left - 10}" y="{y0 + 2 * bar + 4}" text-anchor="end" font-weight="600" '
            f'class="type-name">{esc(name)}</text>'
        )
        for k, mode in enumerate(modes):
            f1 = results["muc"][mode]["per_type"][name]["f1"]
            y = y0 + k * bar
            parts.append(
                f'<rect x="{left}" y="{y}" width="{width * f1:.1f}" height="{bar - 2}" fill="{PALETTE[k]}"'
                f'{attrs(data_type=name, data_mode=mode)} data-f1="{f1:.4f}"><title>{esc(mode)}: '
                f'{f1:.4f}</title></rect><text x="{left + width * f1 + 4:.1f}" y="{y + bar - 3}" '
                f'font-size="11" opacity=".8">{f1:.3f}</text>'
            )
    legend = "".join(
        f'<span><i style="background:{PALETTE[k]}"></i>{esc(mode)}</span>' for k, mode in enumerate(modes)
    )
    return "".join(parts) + f'</svg><div class="legend">F1 per type: {legend}</div>'


#: each bucket chart's title per unit of the offsets (tokens, or characters of a text): the
#: attribute and what it counts
BUCKET_TITLES = {
    "tokens": {
        "entity_length": "entity length (tokens)",
        "sentence_length": "sentence length (tokens)",
        "density": "density (entities per token of the sentence)",
    },
    "characters": {
        "entity_length": "entity length (characters)",
        "sentence_length": "text length (characters)",
        "density": "density (entities per 100 characters of the text)",
    },
}


def bucket_title(name: str, unit: str = "tokens") -> str:
    """A bucket chart's title, with its unit: ``entity length (characters)``."""
    return BUCKET_TITLES[unit].get(name, name.replace("_", " "))


def buckets_svg(results: dict, unit: str = "tokens") -> str:
    """Per entity attribute, strict F1 per bucket as bars (with the interval when computed) and the
    gold / predicted entities of each bucket; ``unit``: what an entity's offsets count (tokens, or
    the characters of a text)."""
    if not results.get("buckets"):
        return ""
    bar, gap, width = 16, 6, 460
    out = []
    for name, table in results["buckets"].items():
        labels = list(table)
        left = label_width(labels, 90)
        height = len(labels) * (bar + gap) + 30
        parts = [
            f'<svg viewBox="0 0 {left + width + 170} {height}" width="100%" role="img" class="bucket-f1"'
            f'{attrs(data_attribute=name)} font-family="system-ui, sans-serif" font-size="12" fill="currentColor">'
        ]
        for i, label in enumerate(labels):
            r, y = table[label], i * (bar + gap) + 4
            f1 = r["f1"]
            parts.append(
                f'<text x="{left - 8}" y="{y + bar - 4}" text-anchor="end">{esc(label)}</text>'
                f'<rect x="{left}" y="{y}" width="{width * f1:.1f}" height="{bar}" fill="{PALETTE[0]}"'
                f'{attrs(data_bucket=label)} data-f1="{f1:.4f}"><title>{esc(label)}: F1 {f1:.4f}</title></rect>'
            )
            if "intervals" in r:
                low, high = r["intervals"]["f1"]
                parts.append(
                    f'<line x1="{left + width * low:.1f}" x2="{left + width * high:.1f}" y1="{y + bar / 2}" '
                    f'y2="{y + bar / 2}" stroke="currentColor" stroke-width="2"/>'
                )
            parts.append(
                f'<text x="{left + width + 8}" y="{y + bar - 4}" font-size="11">{f1:.3f}  '
                f"({r['number']} gold, {r['predicted']} pred)</text>"
            )
        parts.append("</svg>")
        out.append(f"<h4>{esc(bucket_title(name, unit))}</h4>" + "".join(parts))
    return "".join(out)


def ranking_svg(results: dict) -> str:
    """Scored predictions: the precision-recall curve of each matching (the best-F1 threshold
    marked) and the reliability diagram (accuracy against mean score per bin, the diagonal)."""
    ranking = results.get("ranking")
    if not ranking:
        return ""
    size, pad = 260, 36
    colours = {"strict": PALETTE[0], "partial": PALETTE[2]}

    def frame(title, x_label, y_label):
        return [
            f'<rect x="{pad}" y="10" width="{size}" height="{size}" fill="none" stroke="currentColor" stroke-opacity=".3"/>',
            f'<text x="{pad + size / 2}" y="{size + 40}" text-anchor="middle">{x_label}</text>',
            f'<text x="10" y="{10 + size / 2}" transform="rotate(-90 10 {10 + size / 2})" text-anchor="middle">{y_label}</text>',
            *(
                f'<text x="{pad + size * t}" y="{size + 24}" text-anchor="middle" opacity=".7">{t:.1f}</text>'
                f'<text x="{pad - 4}" y="{10 + size * (1 - t) + 4}" text-anchor="end" opacity=".7">{t:.1f}</text>'
                for t in (0, 0.5, 1)
            ),
            f'<text x="{pad + size / 2}" y="8" text-anchor="middle" font-weight="600">{title}</text>',
        ]

    def xy(x, y):
        return f"{pad + size * x:.1f},{10 + size * (1 - y):.1f}"

    curve = frame("Precision-recall", "recall", "precision")
    for name, colour in colours.items():
        c = ranking[name]["curve"]
        points = " ".join(xy(r, p) for r, p in zip(c["recall"], c["precision"]))
        best = ranking[name]["best"]
        curve.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2" class="pr-curve" '
            f'data-matching="{name}" data-ap="{ranking[name]["average_precision"]:.4f}"/>'
        )
        if best["threshold"] is not None:
            curve.append(
                f'<circle cx="{xy(best["recall"], best["precision"]).split(",")[0]}" '
                f'cy="{xy(best["recall"], best["precision"]).split(",")[1]}" r="4" fill="{colour}">'
                f"<title>{name}: best F1 {best['f1']:.4f} at threshold {best['threshold']:.4f}</title></circle>"
            )
    reliability = frame("Reliability (strict)", "mean score", "accuracy")
    reliability.append(
        f'<line x1="{pad}" y1="{10 + size}" x2="{pad + size}" y2="10" stroke="currentColor" stroke-dasharray="4 3" opacity=".5"/>'
    )
    for row in ranking["strict"]["reliability"]:
        x0, x1 = pad + size * row["lower"], pad + size * row["upper"]
        h = size * row["accuracy"]
        reliability.append(
            f'<rect x="{x0 + 1:.1f}" y="{10 + size - h:.1f}" width="{x1 - x0 - 2:.1f}" height="{h:.1f}" fill="{PALETTE[0]}" '
            f'fill-opacity=".7" class="reliability-bin" data-count="{row["count"]}" data-accuracy="{row["accuracy"]:.4f}">'
            f"<title>{row['lower']:.1f}-{row['upper']:.1f}: {row['count']} predictions, accuracy {row['accuracy']:.3f}, "
            f"mean score {row['confidence']:.3f}</title></rect>"
        )
    legend = ", ".join(
        f'<span style="color:{colour}">{name}</span> AP {ranking[name]["average_precision"]:.4f}, '
        f"best F1 {ranking[name]['best']['f1']:.4f} at {ranking[name]['best']['threshold']}"
        for name, colour in colours.items()
    )
    svg = (
        f'<svg viewBox="0 0 {2 * (size + pad) + 60} {size + 50}" width="100%" role="img" class="ranking" '
        'font-family="system-ui, sans-serif" font-size="12" fill="currentColor">'
        + "".join(curve)
        + f'<g transform="translate({size + pad + 50},0)">'
        + "".join(reliability)
        + "</g></svg>"
    )
    return svg + f'<p class="ner-legend">{legend}; ECE {ranking["strict"]["ece"]:.4f} (strict).</p>'


def confusion_table(confusion: dict) -> tuple[list[str], dict]:
    """(gold types, predicted types, {(gold, pred): (same span, overlapping)}) with None for missed
    (no prediction) and spurious (no gold)."""
    cells: dict[tuple, list[int]] = {}
    for scenario, k in (("same_span", 0), ("overlap", 1)):
        for gold, row in confusion[scenario].items():
            for pred, n in row.items():
                counts = cells.setdefault((gold, pred), [0, 0])
                counts[k] += n
    cells.update({(t, None): [n, 0] for t, n in confusion["missed"].items()})
    cells.update({(None, t): [n, 0] for t, n in confusion["spurious"].items()})
    types = sorted({t for pair in cells for t in pair if t is not None})
    return types, cells


def heatmap_html(results: dict) -> str:
    """Gold type x predicted type over every matched pair, and missed / spurious, as a shaded
    table; the column heads written upwards so that every column, "missed" last, fits the page."""
    if "confusion" not in results:
        return '<p class="ner-legend">This version of the metric gives no type confusion.</p>'
    types, cells = confusion_table(results["confusion"])
    peak = max((sum(c) for c in cells.values()), default=1) or 1
    head = "".join(f'<th class="col"{attrs(data_pred=t)}>{esc(t)}</th>' for t in types)
    head += '<th class="col" data-pred="">missed</th>'
    rows = []
    for gold in [*types, None]:
        row = [f"<th{attrs(data_gold=gold or '')}>{esc(gold) if gold else 'spurious'}</th>"]
        for pred in [*types, None]:
            same, overlap = cells.get((gold, pred), (0, 0))
            n = same + overlap
            hue = "89,161,79" if gold == pred else "225,87,89"
            detail = f"{same} same span, {overlap} overlapping" if gold and pred else f"{n}"
            shade = f"background:rgba({hue},{0.12 + 0.75 * n / peak:.2f})" if n else None
            row.append(
                f"<td{attrs(style=shade, data_gold=gold or '', data_pred=pred or '', data_n=n, title=detail)}>{n or ''}</td>"
            )
        rows.append("<tr>" + "".join(row) + "</tr>")
    return (
        f'<div class="heatmap-scroll"><table class="heatmap"><thead><tr><th>gold \\ predicted</th>{head}</tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table></div>"
        '<p class="ner-legend">Every matched pair once (same span or overlapping, hover for which), a gold '
        'entity no prediction overlaps in "missed", a prediction no gold entity overlaps in "spurious". '
        "Green: the type agrees.</p>"
    )
