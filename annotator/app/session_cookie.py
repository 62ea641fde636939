"""The browser's session cookie: its names, the script that writes it, and which connection
may take up the session it carries (docs/security.md, "Login sessions")."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from annotator.auth import SESSION_LIFETIME

COOKIE = "qrels_session"
# The cookie is written by a script (Streamlit sets no cookie of its own), so it cannot be
# HttpOnly; SameSite=Strict keeps other sites from sending it. Over TLS it is named
# "__Host-qrels_session": the browser then insists on Secure, Path=/ and no Domain, so no
# other host (a sibling sub-domain) or plain-HTTP page can set or overwrite it; the plain
# name, which such a page could plant, is cleared there (docs/security.md).
HOST_COOKIE = "__Host-" + COOKIE
_COOKIE_SCRIPT = """<script>
const page = window.parent;
const tls = page.location.protocol === "https:";
const attributes = "; Path=/; SameSite=Strict" + (tls ? "; Secure" : "");
const name = tls ? "%(host)s" : "%(plain)s";
page.document.cookie = name + "=%(value)s; Max-Age=%(age)d" + attributes;
if (tls) page.document.cookie = "%(plain)s=; Max-Age=0; Path=/; SameSite=Strict";
</script>"""


def cookie_script(session_id: str | None) -> str:
    """The script that writes ``session_id`` into the session cookie (``__Host-`` over
    TLS), or clears it (None)."""
    lifetime = 0 if session_id is None else int(SESSION_LIFETIME.total_seconds())
    return _COOKIE_SCRIPT % {
        "host": HOST_COOKIE,
        "plain": COOKIE,
        "value": session_id or "",
        "age": lifetime,
    }


# The cookie that sends a lead's connections to the leads' app process (``qrels serve``'s
# front, or deploy/nginx's map): "lead" for a lead, absent otherwise. It only chooses a
# process, both serving the same app; every page checks the account and its role on the
# server, so forging it gains nothing (docs/security.md).
ROUTE_COOKIE, LEADS = "qrels_process", "lead"  # annotator.cli.front's too
_ROUTE_SCRIPT = r"""<script>
{  // a block: the session cookie's script before it has its own "page"
const page = window.parent;
const tls = page.location.protocol === "https:";
const want = "%(route)s";
page.document.cookie = "%(name)s=" + want + "; Max-Age=" + (want ? %(age)d : 0)
    + "; Path=/; SameSite=Strict" + (tls ? "; Secure" : "");
const now = page.document.cookie.split("; ").find((c) => c.startsWith("%(name)s="));
// Reload once, into the process the cookie now names; never when the browser kept no
// cookie (the page would reload for ever). This frame may not navigate the page (its
// sandbox), so the page's own script does it. The login form's address is left for the
// app's own, where the logged-in person's first page is.
if ((now ? now.slice(%(skip)d) : "") === want) {
  const reload = page.document.createElement("script");
  reload.textContent = 'location.replace(location.pathname.replace(/\\/login\\/?$/, "/")'
      + ' + location.search);';
  page.document.head.appendChild(reload);
}
}
</script>"""


def route_script(session_id: str | None, lead: bool) -> str:
    """The session cookie written (or cleared, None) and the route cookie set for a lead
    (cleared otherwise), then the page reloaded once so that its connection goes to the
    process the cookie names."""
    route = _ROUTE_SCRIPT % {
        "name": ROUTE_COOKIE,
        "route": LEADS if lead else "",
        "age": int(SESSION_LIFETIME.total_seconds()),
        "skip": len(ROUTE_COOKIE) + 1,
    }
    return cookie_script(session_id) + route


def other_port(headers: Mapping[str, str]) -> bool:
    """Whether the page that opened this connection is another port of the app's own host
    (its ``Origin`` against the ``Host`` it asked): Streamlit accepts a WebSocket from any
    port of localhost and of the host's addresses, and a cookie, port-blind, goes along, so
    another app on the same host could act with the session. Such a page is not given the
    session; a proxy that rewrites ``Host`` to another name is left to Streamlit's check."""
    origin, host = headers.get("Origin"), headers.get("Host")
    if not origin or not host:
        return False
    page, asked = urlsplit(origin), urlsplit(f"//{host}")
    try:
        if page.hostname != asked.hostname:
            return False
        default = 443 if page.scheme == "https" else 80
        return (page.port or default) != (asked.port or default)
    except ValueError:  # a port that is not a number
        return True


def cookie_session_id(cookies: Mapping[str, object]) -> str | None:
    """The login session's id the browser's cookies carry: the ``__Host-`` cookie's, else
    (served over plain HTTP) the plain one's."""
    for name in (HOST_COOKIE, COOKIE):
        value = cookies.get(name)
        if isinstance(value, str) and value:
            return value
    return None
