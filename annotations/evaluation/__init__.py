"""Which model should this lab use: per-model evaluation on the lab's runs and reviewed annotations.

``sets`` (what is evaluated), ``queue`` and ``batches`` (evaluation runs, a few at a time through the ordinary
run queue), ``scope`` and ``selectors`` (the runs a table covers, read as facts), ``table`` (the figures per
model configuration), ``columns`` (what each figure means), ``watch`` (the regression watch), ``chart`` and
``downloads``; ``views``, ``forms``, ``services``, ``urls`` for the page, ``command`` for ``manage.py evaluate``.
"""
