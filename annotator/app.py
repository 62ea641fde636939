"""The qrels-studio app: ``qrels serve`` runs it. A logged-out visitor sees only the login
form; annotators see labeling and their own progress; leads see everything."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from annotator import ui
from annotator.auth import authenticate
from storage.db import session_scope

PAGES = Path(__file__).parent / "pages"
st.set_page_config(page_title="qrels-studio", layout="wide")


def login() -> None:
    st.title(ui.t("app_title"))
    with st.form("login"):
        name = st.text_input(ui.t("login_name"), key="login_name")
        password = st.text_input(ui.t("login_password"), type="password", key="login_password")
        submitted = st.form_submit_button(ui.t("login_button"))
    if submitted:
        with session_scope(ui.engine()) as session:
            user = authenticate(name.strip(), password, session=session)
        if user is None:
            st.error(ui.t("login_failed"))
        else:
            st.session_state[ui.USER_KEY] = user.id
            st.rerun()


user = ui.current_user()
if user is None:
    pages = [st.Page(login, title=ui.t("login_title"), url_path="login")]
else:
    pages = [
        st.Page(PAGES / "label_page.py", title=ui.t("page_label"), url_path="label", default=True),
        st.Page(PAGES / "my_progress_page.py", title=ui.t("page_my_progress"), url_path="mine"),
    ]
    if user.role == "lead":
        pages += [
            st.Page(
                PAGES / "team_progress_page.py", title=ui.t("page_team_progress"), url_path="team"
            ),
            st.Page(PAGES / "pools_page.py", title=ui.t("page_pools"), url_path="pools"),
            st.Page(
                PAGES / "adjudication_page.py",
                title=ui.t("page_adjudication"),
                url_path="adjudication",
            ),
            st.Page(
                PAGES / "agreement_page.py", title=ui.t("page_agreement"), url_path="agreement"
            ),
            st.Page(PAGES / "releases_page.py", title=ui.t("page_releases"), url_path="releases"),
        ]
st.navigation(pages).run()
