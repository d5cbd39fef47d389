"""The ner_recall_metric app, one module per tab: ``compare`` (one sentence, typed or marked),
``files`` (whole test sets, with the error browser of ``errors``), ``agreement`` (annotators),
``stratified`` (stratified recall) and ``about``; the charts in ``charts``, the CSS and the
rendering helpers every tab shares in ``common``, reading uploads in ``uploads``, the examples in
``examples``. ``layout.build_demo`` puts the tabs together; ``app.py`` launches it.

Every number shown comes from the metric object that ``evaluate.load`` returns, loaded on first
use (``common.metric``), never at import.
"""
