"""The ner_recall_metric app: compare the scoring modes on one sentence (typed or marked by
selecting text), score whole files and see where the errors are, compare two golds, read a
language model's raw output onto its text, measure annotators' agreement,
estimate stratified recall.

``python app.py`` serves it on http://127.0.0.1:7860 (``GRADIO_SERVER_PORT`` changes the port);
it never reaches the internet. The app lives in the package ``ner_recall/app/`` (one module per tab);
this file launches it (the Hub Space's ``app_file``). Every number shown comes from the metric
object, loaded as Hub users load it with ``evaluate.load``, on first use. ``app.demo`` builds the
page without launching it.
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the package beside this file, whatever the working directory
    sys.path.insert(0, str(HERE))

from ner_recall.app.common import CSS, THEME
from ner_recall.app.layout import build_demo

_built: dict[str, object] = {}


def __getattr__(name: str) -> object:
    """``app.demo``: the page, built on first use (importing this file loads nothing)."""
    if name == "demo":
        if "demo" not in _built:
            _built["demo"] = build_demo()
        return _built["demo"]
    raise AttributeError(f"module 'app' has no attribute {name!r}")


def main() -> None:
    """Serve the app on 127.0.0.1 (``GRADIO_SERVER_NAME`` and ``GRADIO_SERVER_PORT`` change it)."""
    build_demo().queue().launch(share=False, css=CSS, theme=THEME)


if __name__ == "__main__":
    main()
