"""The qrels-studio app: ``qrels serve`` runs it. A logged-out visitor sees only the login
form; annotators see labeling and their own progress; leads see everything."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from annotator.app import ui
from annotator.auth import login, start_session

FOLDER = Path(__file__).parent / "pages"
# The pages: file, title's message key, address, and whether only leads see it.
PAGES = [
    ("label_page.py", "page_label", "label", False),
    ("my_progress_page.py", "page_my_progress", "mine", False),
    ("team_progress_page.py", "page_team_progress", "team", True),
    ("data_page.py", "page_data", "data", True),
    ("pools_page.py", "page_pools", "pools", True),
    ("adjudication_page.py", "page_adjudication", "adjudication", True),
    ("agreement_page.py", "page_agreement", "agreement", True),
    ("releases_page.py", "page_releases", "releases", True),
    ("evaluate_page.py", "page_evaluate", "evaluate", True),
    ("judge_page.py", "page_judge", "judge", True),
    ("accounts_page.py", "page_accounts", "accounts", True),
]
st.set_page_config(page_title="qrels-studio", layout="wide")
ui.freeze_libraries()


def login_form() -> None:
    st.title(ui.t("app_title"))
    ui.session_cookie(None)  # whatever cookie brought no live session here is dropped
    with st.form("login"):
        name = st.text_input(ui.t("login_name"), key="login_name")
        password = st.text_input(ui.t("login_password"), type="password", key="login_password")
        submitted = st.form_submit_button(ui.t("login_button"))
    if submitted:
        user = login(ui.engine(), name, password)
        if user is None:
            st.error(ui.t("login_failed"))
        else:
            ui.logged_in(user, start_session(ui.engine(), user))
            st.rerun()


# Where each role lands: an annotator to grade, a lead to see how the team stands.
LANDING = {"annotator": "label", "lead": "team"}

user = ui.current_user()
ui.to_own_process(user)  # a lead's pages in the leads' process: a reload, at most once
if user is None:
    pages = [st.Page(login_form, title=ui.t("login_title"), url_path="login")]
else:
    pages = [
        st.Page(
            FOLDER / file,
            title=ui.t(title),
            url_path=address,
            default=address == LANDING.get(user.role, "label"),
        )
        for file, title, address, leads_only in PAGES
        if user.role == "lead" or not leads_only
    ]
ui.guarded(st.navigation(pages).run)()
