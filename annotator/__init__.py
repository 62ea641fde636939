"""qrels-studio's domain services, its command line and its app, in rooms named for what a
person looks for (``labeling``, ``pools``, ``quality``, ``evaluation``, ``releases``,
``judge``, ``app``, ``cli``); README.md's Layout has the map."""

from annotator import messages  # noqa: F401  (registers the messages of annotator)
