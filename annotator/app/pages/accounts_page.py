"""Leads: the login accounts. Add one, disable or re-enable one, give one a new password;
a password is shown once, here, and only its hash is kept. Every action is checked on the
server (``annotator.account_admin``); ``qrels user`` does the same from the command line."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotator import account_admin
from annotator.app import ui

user = ui.require("lead")
ui.sidebar(user)


def act(action, *args) -> tuple[bool, object]:
    """``action(engine, *args, by=the lead)`` (``ui.act``)."""
    return ui.act(action, ui.engine(), *args, by=user.id)


with st.form("account_add", clear_on_submit=True):
    st.subheader(ui.t("accounts_add_title"))
    name = st.text_input(ui.t("accounts_name"), key="account_name")
    role = st.radio(
        ui.t("accounts_role"),
        ["annotator", "lead"],
        format_func=lambda r: ui.t(f"role_{r}"),
        horizontal=True,
        key="account_role",
    )
    if st.form_submit_button(ui.t("accounts_add_button")):
        added, password = act(account_admin.add_account, name, role)
        if added:
            ui.plain(ui.t("accounts_added", name=name.strip(), password=password), "success")

rows = account_admin.account_rows(ui.engine())
st.subheader(ui.t("accounts_title"))
st.dataframe(
    pd.DataFrame(
        [(n, ui.t(f"role_{r}"), ui.t(f"accounts_state_{s}")) for n, r, s in rows],
        columns=[ui.t("accounts_name"), ui.t("accounts_role"), ui.t("accounts_state")],
    ),
    hide_index=True,
    key="accounts_table",
)
people = [n for n, _, state in rows if state != "no_login"]
if people:
    chosen = st.selectbox(ui.t("accounts_choose"), people, key="account_chosen")
    state = {n: s for n, _, s in rows}[chosen]
    left, middle = st.columns(2)
    # Disabled accounts are offered "enable again", the others "disable".
    label, key, action = {
        "active": ("accounts_disable", "account_disable", account_admin.disable_account),
        "disabled": ("accounts_enable", "account_enable", account_admin.enable_account),
    }[state]
    if left.button(ui.t(label), key=key) and act(action, chosen)[0]:
        st.rerun()
    if middle.button(ui.t("accounts_reset"), key="account_reset"):
        reset, password = act(account_admin.reset_password, chosen)
        if reset:
            ui.plain(ui.t("accounts_password_set", name=chosen, password=password), "success")
