"""The model judge (``qrels judge``, the Judge page): a language model grades a pool's
candidates through any OpenAI-compatible chat endpoint, blind, quoting its evidence, with
document text treated as data, its cost and failures counted, and calibrated against the
people's grades. No Streamlit in here.

``prompt`` (what the model is sent: built from the rubric, versioned, hashed), ``answer``
(what counts as a grade), ``injection`` (passages and queries that read like instructions),
``chat_client`` (the HTTP endpoint: timeouts, retries, a rate limit), ``runner`` (which
candidates still need an answer; runs them, writing each answer as it arrives) and
``judge_report`` (tokens, seconds, failures, calibration, what people must see).
``calibration`` is how far any automatic judge (this one, imported model grades, grades
carried across a chunking change) agrees with people's grades, for ``qrels calibrate`` and
the report alike.
"""
