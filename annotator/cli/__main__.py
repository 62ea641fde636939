"""``python -m annotator.cli``: the ``qrels`` command."""

from annotator.cli import main

main()
