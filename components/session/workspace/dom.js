/* Small helpers shared by the workspace's parts. Every text from the trace reaches the DOM
 * through textContent (``el``), never as HTML. */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) { node.className = className; }
  if (text !== undefined && text !== null) { node.textContent = String(text); }
  return node;
}

function clear(node) {
  while (node.firstChild) { node.removeChild(node.firstChild); }
}

function formatMs(value) {
  if (value === null || value === undefined) { return "—"; }
  if (value < 1000) { return Math.round(value).toLocaleString("en") + " ms"; }
  const seconds = value / 1000;
  if (seconds < 120) { return seconds.toFixed(seconds < 10 ? 2 : 1) + " s"; }
  const minutes = Math.floor(seconds / 60);
  return minutes + " min " + Math.round(seconds - 60 * minutes) + " s";
}

function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const power = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
  for (const m of [1, 2, 2.5, 5, 10]) { if (m * power >= raw) { return m * power; } }
  return 10 * power;
}

/* A light fill of a kind's colour (#rrggbb), mixed with white. */
function tint(hex, keep) {
  const n = parseInt(String(hex || "#94a3b8").slice(1), 16);
  const mix = (c) => Math.round(c * keep + 255 * (1 - keep));
  const r = mix((n >> 16) & 255), g = mix((n >> 8) & 255), b = mix(n & 255);
  return "#" + ((1 << 24) + (r << 16) + (g << 8) + b).toString(16).slice(1);
}

/* How many characters of a text the workspace writes before "Show all": a long single line
 * (a 200 KB tg:action) cost seconds of layout on every step change when written whole. */
const CLIP = {line: 300, prose: 3000, cell: 300, tip: 300};

/* ``text`` cut to ``limit`` characters with an ellipsis (never inside a surrogate pair). */
function clipped(text, limit) {
  const value = String(text);
  if (value.length <= limit) { return value; }
  let end = limit - 1;
  if (/[\uD800-\uDBFF]/.test(value.charAt(end - 1))) { end -= 1; }
  return value.slice(0, end) + "…";
}

/* Write ``text`` into ``node`` as ``markedText`` does (or as ``write(node, shown)`` does, given),
 * its first ``limit`` characters only, then a "Show all N characters" button that writes the
 * whole text in their place. */
function clippedText(node, text, needle, limit, write) {
  const value = String(text);
  const put = write || ((into, shown) => markedText(into, shown, needle));
  if (value.length <= limit) { put(node, value); return; }
  put(node, clipped(value, limit));
  const count = /[\uD800-\uDFFF]/.test(value) ? Array.from(value).length : value.length;  // characters, not UTF-16 units
  const more = el("button", "te-clip-more", "Show all " + count.toLocaleString("en") + " characters");
  more.type = "button";
  more.addEventListener("click", (event) => {
    event.stopPropagation();
    clear(node);
    node.classList.add("te-clip-whole");
    put(node, value);
  });
  node.appendChild(document.createTextNode(" "));
  node.appendChild(more);
}

/* Write ``text`` into ``node`` with every match of ``needle`` (lower case) in a <mark>. */
function markedText(node, text, needle) {
  const value = String(text);
  if (!needle) { node.textContent = value; return; }
  const lower = value.toLowerCase();
  let at = 0;
  while (at <= value.length) {
    const hit = lower.indexOf(needle, at);
    if (hit < 0) { node.appendChild(document.createTextNode(value.slice(at))); break; }
    if (hit > at) { node.appendChild(document.createTextNode(value.slice(at, hit))); }
    node.appendChild(el("mark", "te-ws-hit", value.slice(hit, hit + needle.length)));
    at = hit + needle.length;
  }
}

function typing(event) {
  const target = event.composedPath ? event.composedPath()[0] : event.target;
  if (!target || !target.tagName) { return false; }
  const tag = target.tagName.toUpperCase();
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable;
}

/* The element that scrolls the page around ``node`` (Streamlit's main section), across the
 * component's shadow root; the document's scrolling element when none does. */
function scroller(node) {
  let n = node.parentNode;
  while (n) {
    if (n.nodeType === 1) {
      const y = getComputedStyle(n).overflowY;
      if ((y === "auto" || y === "scroll") && n.scrollHeight > n.clientHeight) { return n; }
    }
    n = n.parentNode || (n instanceof ShadowRoot ? n.host : null);
  }
  return document.scrollingElement || document.documentElement;
}
