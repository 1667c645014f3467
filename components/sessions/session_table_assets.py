"""The session table's front end: CSS and JavaScript of an ``st.components.v2`` component (no
iframe, inline, nothing loaded from the network).

Every text of a row (question, answer, ids) is trace text: the script builds the table with
``textContent`` and ``title`` only, never ``innerHTML`` with data, so nothing in a trace becomes
markup. The only markup written from a string is the fixed SVG of the copy icon below.

What the script sends back (``components/sessions/session_table.py`` reads it):

- trigger ``open``: the IRI of the session a click on a row (or Enter on it, or a click on a
  parent's id) opens; a click with Ctrl, Shift or the middle button follows the row's link in a
  new tab instead;
- trigger ``sort``: ``{"key": the sort key of a header clicked, "shown": the order the table
  showed then}`` (``-steps``, as in the URL): the order asked for follows from both, so a click
  delivered twice sorts once;
- state ``selected``: the IRIs whose tick boxes are ticked (several sessions, e.g. to compare).

A row marked ``new`` (a session written while the list follows its source) has the class
``te-new`` and a "new" mark after its id; a status ``running`` has its own badge.
"""

CSS = """
:host { display: block; }
.te-wrap { container-type: inline-size; width: 100%; font-family: var(--st-font, sans-serif);
  font-size: 0.875rem; color: var(--st-text-color, #31333f); }
table { width: 100%; border-collapse: separate; border-spacing: 0; table-layout: fixed;
  border: 1px solid var(--st-dataframe-border-color, rgba(49, 51, 63, 0.1)); border-radius: 0.5rem; }
th, td { padding: 0.35rem 0.5rem; text-align: left; vertical-align: top; overflow: hidden;
  border-bottom: 1px solid var(--st-dataframe-border-color, rgba(49, 51, 63, 0.1)); }
tbody tr:last-child td { border-bottom: none; }
th { background: var(--st-dataframe-header-background-color, #f8f9fb); font-weight: 500;
  white-space: nowrap; position: sticky; top: 0; z-index: 1; }
th:first-child { border-top-left-radius: 0.5rem; } th:last-child { border-top-right-radius: 0.5rem; }
th.num, td.num { text-align: right; }
th button.te-sort { all: unset; cursor: pointer; display: inline-flex; gap: 0.2rem; align-items: center;
  max-width: 100%; }
th button.te-sort:focus-visible, tr:focus-visible, a:focus-visible, button:focus-visible {
  outline: 2px solid var(--st-primary-color, #ff4b4b); outline-offset: -2px; }
th .te-arrow { font-size: 0.7rem; opacity: 0.8; }
th[aria-sort="none"] .te-arrow { opacity: 0; }
th button.te-sort:hover .te-arrow { opacity: 0.5; }
th.te-fixed { cursor: default; }
tbody tr { cursor: pointer; }
tbody tr:hover td { background: var(--st-secondary-background-color, #f0f2f6); }
tbody tr.te-ticked td { background: color-mix(in srgb, var(--st-primary-color, #ff4b4b) 8%, transparent); }
.te-line { display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.te-muted { color: color-mix(in srgb, var(--st-text-color, #31333f) 60%, transparent); font-size: 0.8rem; }
.te-question { font-weight: 500; white-space: normal; overflow-wrap: anywhere; display: -webkit-box;
  -webkit-line-clamp: 2; -webkit-box-orient: vertical; }
.te-none { font-style: italic; }
.te-match mark { background: var(--st-yellow-background-color, rgba(255, 212, 0, 0.3)); color: inherit; padding: 0; }
.te-match-field { font-style: italic; }
.te-id { display: flex; align-items: center; gap: 0.15rem; white-space: nowrap; }
.te-id a, .te-parent a { font-family: var(--st-code-font, monospace); font-size: 0.8rem;
  color: var(--st-link-color, #0068c9); text-decoration: none; }
.te-id a:hover, .te-parent a:hover { text-decoration: underline; }
.te-sub { color: color-mix(in srgb, var(--st-text-color, #31333f) 55%, transparent); }
tr.te-subrow td.te-session { padding-left: 1.1rem; }
button.te-copy { all: unset; cursor: pointer; display: inline-flex; padding: 0.1rem; border-radius: 0.25rem;
  color: color-mix(in srgb, var(--st-text-color, #31333f) 55%, transparent); }
button.te-copy:hover { background: var(--st-secondary-background-color, #f0f2f6); color: inherit; }
button.te-copy svg { width: 0.85rem; height: 0.85rem; }
.te-copied { font-size: 0.7rem; color: var(--st-green-color, #21c354); }
.te-badge { display: inline-block; padding: 0 0.4rem; border-radius: 0.6rem; font-size: 0.75rem; white-space: nowrap; }
.te-answered { background: var(--st-green-background-color, rgba(33, 195, 84, 0.1)); color: var(--st-green-text-color, #177233); }
.te-unfinished { background: var(--st-orange-background-color, rgba(255, 164, 33, 0.1)); color: var(--st-orange-text-color, #9d5b00); }
.te-running { background: var(--st-blue-background-color, rgba(28, 131, 225, 0.1)); color: var(--st-blue-text-color, #0054a3); }
tbody tr.te-new td:first-child { box-shadow: inset 3px 0 0 var(--st-primary-color, #ff4b4b); }
.te-new-mark { font-size: 0.7rem; font-weight: 600; color: var(--st-primary-color, #ff4b4b); margin-left: 0.2rem; }
.te-errors { color: var(--st-red-text-color, #bd4043); font-weight: 600; }
input[type=checkbox] { margin: 0.15rem 0 0 0; cursor: pointer; accent-color: var(--st-primary-color, #ff4b4b); }
col.c-tick { width: 2rem; } col.c-session { width: 7.8rem; } col.c-type { width: 7.5rem; }
col.c-time { width: 6.2rem; } col.c-duration { width: 5rem; } col.c-tokens { width: 4.6rem; }
col.c-steps { width: 3.6rem; } col.c-errors { width: 3.9rem; } col.c-status { width: 6.4rem; }
col.c-parent { width: 7.4rem; } col.c-health { width: 6.2rem; } col.c-review { width: 8rem; }
.te-compact, .te-from { display: none; }
.te-from a { font-family: var(--st-code-font, monospace); color: var(--st-link-color, #0068c9); text-decoration: none; }
/* narrow (about 1000 px windows with the sidebar open): the figures move under the question */
@container (max-width: 860px) {
  col.c-duration, col.c-tokens, col.c-steps, col.c-errors { width: 0; }
  .c-duration, .c-tokens, .c-steps, .c-errors { display: none; }
  col.c-parent { width: 0; } .c-parent { display: none; }
  col.c-review { width: 0; } .c-review { display: none; }
  .te-compact { display: block; white-space: normal; }
  .te-from { display: block; }
  col.c-session { width: 7.3rem; } col.c-type { width: 7.7rem; } col.c-status { width: 5.7rem; }
  col.c-time { width: 5.8rem; }
  tr.te-subrow td.te-session { padding-left: 0.6rem; }
}
@container (max-width: 560px) {
  col.c-time { width: 0; } .c-time { display: none; }
}
"""

JS = r"""
const COPY_ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" d="M16 1H4a2 2 0 0 0-2 2v14h2V3h12V1zm3 4H8a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h11a2 2 0 0 0 2-2V7a2 2 0 0 0-2-2zm0 16H8V7h11v14z"/></svg>';

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// the Clipboard API where the page is a secure context (https, localhost), else a hidden textarea
function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    return navigator.clipboard.writeText(text).then(() => true, () => fallbackCopy(text));
  }
  return Promise.resolve(fallbackCopy(text));
}

function fallbackCopy(text) {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
  area.remove();
  return ok;
}

export default function (component) {
  const { data, parentElement, setStateValue, setTriggerValue } = component;
  const rows = (data && data.rows) || [];
  const columns = (data && data.columns) || [];
  const sort = (data && data.sort) || {};
  const selected = new Set((data && data.selected) || []);
  let wrap = parentElement.querySelector(".te-wrap");
  if (!wrap) {
    wrap = el("div", "te-wrap");
    parentElement.appendChild(wrap);
  }
  wrap.replaceChildren();
  const table = el("table");
  table.setAttribute("aria-label", data.label || "Sessions");
  table.setAttribute("data-rows", String(rows.length));
  const colgroup = el("colgroup");
  const head = el("tr");
  const open = (iri) => setTriggerValue("open", iri);
  const publish = () => setStateValue("selected", Array.from(selected));

  for (const column of columns) {
    colgroup.appendChild(el("col", "c-" + column.key));
    const th = el("th", "c-" + column.key + (column.numeric ? " num" : ""));
    if (column.key === "tick") {
      const all = el("input");
      all.type = "checkbox";
      all.setAttribute("aria-label", "Select every session of this page");
      all.checked = rows.length > 0 && rows.every((r) => selected.has(r.id));
      all.addEventListener("click", (event) => {
        event.stopPropagation();
        for (const r of rows) { if (all.checked) selected.add(r.id); else selected.delete(r.id); }
        for (const box of table.querySelectorAll("tbody input[type=checkbox]")) {
          box.checked = all.checked;
          box.closest("tr").classList.toggle("te-ticked", all.checked);
        }
        publish();
      });
      th.appendChild(all);
    } else if (column.sort) {
      const active = sort.key === column.sort;
      th.setAttribute("aria-sort", active ? (sort.descending ? "descending" : "ascending") : "none");
      const button = el("button", "te-sort");
      button.type = "button";
      button.title = column.help || "";
      button.dataset.sort = column.sort;
      button.appendChild(el("span", null, column.label));
      button.appendChild(el("span", "te-arrow", active && !sort.descending ? "▲" : "▼"));
      const shown = (sort.descending ? "-" : "") + (sort.key || "");
      button.addEventListener("click", () => setTriggerValue("sort", { key: column.sort, shown }));
      th.appendChild(button);
    } else {
      th.classList.add("te-fixed");
      th.title = column.help || "";
      th.textContent = column.label;
    }
    head.appendChild(th);
  }
  table.appendChild(colgroup);
  const thead = el("thead");
  thead.appendChild(head);
  table.appendChild(thead);

  const body = el("tbody");
  for (const row of rows) {
    const tr = el("tr", row.sub ? "te-row te-subrow" : "te-row");
    tr.tabIndex = 0;
    tr.dataset.session = row.id;
    if (selected.has(row.id)) tr.classList.add("te-ticked");
    if (row.new) tr.classList.add("te-new");
    tr.setAttribute("aria-label", (row.sub ? "Sub-session " : "Session ") + row.short + ": " + (row.question || ""));
    for (const column of columns) {
      const td = el("td", "c-" + column.key + (column.numeric ? " num" : ""));
      fill(td, column.key, row);
      tr.appendChild(td);
    }
    tr.addEventListener("click", (event) => {
      if (event.target.closest("input, button")) return;
      const link = event.target.closest("a");
      if (link && (event.ctrlKey || event.metaKey || event.shiftKey || event.button === 1)) return;
      event.preventDefault();
      open(link && link.dataset.open ? link.dataset.open : row.id);
    });
    tr.addEventListener("keydown", (event) => {
      if (event.target !== tr) return;
      if (event.key === "Enter") { event.preventDefault(); open(row.id); }
      else if (event.key === " ") {
        event.preventDefault();
        const box = tr.querySelector("input[type=checkbox]");
        if (box) box.click();
      }
    });
    body.appendChild(tr);
  }
  table.appendChild(body);
  wrap.appendChild(table);

  function parentLink(row) {
    const link = el("a", null, row.parent_short);
    link.href = row.parent_href;
    link.title = "Open the parent session " + row.parent_id;
    link.dataset.open = row.parent_id;
    return link;
  }

  function fill(td, key, row) {
    if (key === "tick") {
      const box = el("input");
      box.type = "checkbox";
      box.checked = selected.has(row.id);
      box.setAttribute("aria-label", "Select session " + row.short);
      box.addEventListener("click", (event) => {
        event.stopPropagation();
        if (box.checked) selected.add(row.id); else selected.delete(row.id);
        td.closest("tr").classList.toggle("te-ticked", box.checked);
        publish();
      });
      td.appendChild(box);
    } else if (key === "session") {
      td.classList.add("te-session");
      const line = el("span", "te-id");
      if (row.sub) line.appendChild(el("span", "te-sub", "↳"));
      const link = el("a", null, row.short);
      link.href = row.href;
      link.title = row.id;
      line.appendChild(link);
      const copy = el("button", "te-copy");
      copy.type = "button";
      copy.title = "Copy the session IRI: " + row.id;
      copy.setAttribute("aria-label", "Copy the IRI of session " + row.short);
      copy.innerHTML = COPY_ICON;  // a fixed icon, no data
      copy.addEventListener("click", (event) => {
        event.stopPropagation();
        copyText(row.id).then((ok) => {
          if (!ok) return;
          const mark = el("span", "te-copied", "copied");
          copy.after(mark);
          setTimeout(() => mark.remove(), 1200);
        });
      });
      line.appendChild(copy);
      if (row.new) line.appendChild(el("span", "te-new-mark", "new"));
      td.appendChild(line);
      if (row.children) td.appendChild(el("span", "te-line te-muted", row.children));
      if (row.parent_id) {  // where a narrow table shows the parent, its column hidden
        const from = el("span", "te-line te-muted te-from", "from ");
        from.appendChild(parentLink(row));
        td.appendChild(from);
      }
    } else if (key === "question") {
      const question = el("span", "te-line te-question" + (row.question ? "" : " te-none"), row.question || "(no question)");
      question.title = row.question_title || "";
      td.appendChild(question);
      const answer = el("span", "te-line te-muted" + (row.answer ? "" : " te-none"), row.answer || row.no_answer);
      answer.title = row.answer || "";
      td.appendChild(answer);
      if (row.match) {  // where the search found its words: trace text as text, the marks ours
        const found = el("span", "te-line te-muted te-match");
        found.appendChild(el("span", "te-match-field", row.match_field + ": "));
        for (const [text, hit] of row.match) found.appendChild(el(hit ? "mark" : "span", null, text));
        found.title = row.match.map((p) => p[0]).join("");
        td.appendChild(found);
      }
      td.appendChild(el("span", "te-line te-muted te-compact", row.figures));
    } else if (key === "type") {
      td.appendChild(el("span", "te-line", row.type));
      td.appendChild(el("span", "te-line te-muted", row.pattern || ""));
    } else if (key === "time") {
      td.appendChild(el("span", "te-line", row.date));
      td.appendChild(el("span", "te-line te-muted", row.clock));
    } else if (key === "status") {
      td.appendChild(el("span", "te-badge te-" + row.status, row.status));
    } else if (key === "errors") {
      td.appendChild(el("span", row.errors ? "te-errors" : "te-muted", row.errors ? row.errors : "0"));
    } else if (key === "parent") {
      if (row.parent_id) {
        const line = el("span", "te-line te-parent");
        line.appendChild(parentLink(row));
        td.appendChild(line);
      }
    } else {
      const value = el("span", "te-line", row[key]);
      if (row[key + "_title"]) value.title = row[key + "_title"];
      td.appendChild(value);
      if (row[key + "_own"]) {  // a total with sub-sessions: the session's own figure under it
        const own = el("span", "te-line te-muted", row[key + "_own"]);
        own.title = value.title;
        td.appendChild(own);
      }
    }
  }
}
"""
