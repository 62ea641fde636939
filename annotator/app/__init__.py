"""The Streamlit app: its shell, pages and charts, and the plain modules they call."""

from annotator.app import page_messages  # noqa: F401  (registers the app's messages)
