// The app's own keys (annotator/app/page_keys.py says what they do and why). A components.v2
// module has no iframe: it runs in the page's own window and is evaluated once per window,
// so the listener below lives exactly as long as the page does. No redraw, language switch
// or page change can leave it behind in a discarded frame; a reload or a new tab is a new
// window that evaluates the module, and installs the listener, afresh. It holds no words:
// what it says comes with each mount, in the page's language.

const ITEM_KEYS = ["0", "1", "2", "3", "u", "s"];
const STALE = '[class*="st-key-grade_"] [data-stale="true"], .st-key-passage [data-stale="true"]';
// While the page has lost its connection to the server, Streamlit disables every widget (the
// app never disables a grade button itself): a key would reach a disabled button and do
// nothing, without a word.
const DISCONNECTED = '[class*="st-key-grade_"] button:disabled';

// What the mounted component asked for: {labeling, notice, seenMs, language, pool}; null
// while no page of the app has mounted it (between pages, say), when no key is touched.
let mounted = null;
let chosen = null;  // the language and the pool the page last showed

// The item on the screen: its buttons' key (assignment and revision), query and passage.
const onScreen = () => {
  const button = document.querySelector('[class*="st-key-grade_0_"]');
  const key = button
    ? [...button.classList].find((name) => name.startsWith("st-key-grade_0_")) : "";
  const text = (selector) => document.querySelector(selector)?.textContent ?? "";
  return [key, text(".st-key-query"), text(".st-key-passage")].join("\n");
};
let shown = onScreen();
let since = performance.now();
const look = () => {
  const now = onScreen();
  if (now !== shown) {
    shown = now;
    since = performance.now();
  }
};
new MutationObserver(look).observe(
  document.body, {childList: true, subtree: true, characterData: true});

const say = (text) => {
  let notice = document.getElementById("qrels-key-notice");
  if (!notice) {
    notice = document.createElement("div");
    notice.id = "qrels-key-notice";
    notice.setAttribute("role", "status");
    notice.style.cssText = "position:fixed;bottom:1.5rem;right:1.5rem;z-index:100000;"
      + "padding:.6rem 1rem;border-radius:.5rem;background:#31333f;color:#fff;"
      + "max-width:28rem;font:14px sans-serif";
    document.body.appendChild(notice);
  }
  notice.textContent = text;  // text, never markup
  clearTimeout(notice.__hide);
  notice.__hide = setTimeout(() => { notice.remove(); }, 1500);
};

const typingIn = (target) => target && (target.tagName === "INPUT"
  || target.tagName === "TEXTAREA" || target.isContentEditable);

window.addEventListener("keydown", (event) => {
  if (!mounted?.labeling || event.ctrlKey || event.metaKey || event.altKey) { return; }
  const target = event.target;
  if (typingIn(target)) {
    if (event.key === "Escape") { target.blur(); }  // out of the field: the keys work again
    return;
  }
  if (event.key === "n") {
    const note = document.querySelector(".st-key-note textarea");
    if (note) { event.preventDefault(); note.focus(); }
    return;
  }
  if (!ITEM_KEYS.includes(event.key.toLowerCase())) { return; }
  look();
  if (performance.now() - since < mounted.seenMs || document.querySelector(STALE)
    || document.querySelector(DISCONNECTED)) {
    event.preventDefault();
    event.stopImmediatePropagation();
    say(mounted.notice);
  }
}, true);

// A click on the language radio leaves the focus on it, where every key is taken for the
// radio's (Streamlit's shortcuts ignore them, arrows switch the language again), and a
// choice in the pool box leaves it in the box's search, where a grade key is typed: once
// the page shows the new language or pool, the focus goes back to the page.
const returnFocus = () => {
  const active = document.activeElement;
  if (active && active !== document.body && active.closest('[data-testid="stSidebar"]')) {
    active.blur();
  }
};

export default function (component) {
  const asked = component.data;
  mounted = asked;
  const now = `${asked.language}\n${asked.pool}`;
  if (chosen !== null && now !== chosen) { returnFocus(); }
  chosen = now;
  // Streamlit calls this on unmount; a later mount may have replaced this one already.
  return () => { if (mounted === asked) { mounted = null; } };
}
