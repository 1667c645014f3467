/* The step inspector: the selected step's sections (views/step_sections.py) at the page's full
 * width, in the page's own scroll. Every text goes in with textContent (``el``, ``markedText``),
 * clipped (``clippedText``: CLIP characters, the whole a click on "Show all" away). */
function renderInspector(box, ws, i) {
  clear(box);
  const s = ws.steps[i];
  if (!s) { box.appendChild(el("p", "te-ins-note", "Pick a step on the timeline or the graph.")); return; }
  box.setAttribute("data-step", s.id);
  const head = el("div", "te-ins-head");
  head.appendChild(el("span", "te-ins-n", (i + 1) + " / " + ws.steps.length));
  head.appendChild(el("h4", "te-ins-title" + (s.error ? " te-ins-error" : ""), clipped(s.label, CLIP.line)));
  const kind = el("span", "te-ins-badge", ws.kindName(s));
  kind.style.borderColor = ws.colour(s);
  kind.style.background = tint(ws.colour(s), 0.18);
  head.appendChild(kind);
  if (ws.critical.has(i)) { head.appendChild(el("span", "te-ins-badge te-ins-crit", "critical path")); }
  if (s.duration !== null && ws.data.axis === "ms") {
    head.appendChild(el("span", "te-ins-time", formatMs(s.duration) + " · starts at " + formatMs(s.start)));
  }
  box.appendChild(head);
  const iri = el("div", "te-ins-iri");
  clippedText(iri, s.id, "", CLIP.line);
  box.appendChild(iri);
  if (s.pending) {
    box.appendChild(el("p", "te-ins-loading", "Fetching this step's texts from the librarian…"));
  }
  const needle = ws.needle;
  for (const section of s.sections) { box.appendChild(renderSection(section, ws, needle)); }
}

function renderSection(section, ws, needle) {
  const t = section.t;
  if (t === "metrics") {
    const row = el("div", "te-ins-metrics");
    section.items.forEach(([label, value]) => {
      const m = el("div", "te-ins-metric");
      m.appendChild(el("div", "te-ins-metric-label", label));
      const v = el("div", "te-ins-metric-value");
      clippedText(v, value, "", CLIP.cell);
      m.appendChild(v);
      row.appendChild(m);
    });
    return row;
  }
  if (t === "error" || t === "warning" || t === "note") {
    const p = el("div", "te-ins-" + t);
    clippedText(p, section.text, needle, CLIP.prose);
    return p;
  }
  const part = el("section", "te-ins-part te-ins-sec-" + t);
  if (section.title) { part.appendChild(el("div", "te-ins-caption", section.title)); }
  if (t === "line") {
    const v = el("div", "te-ins-line");
    clippedText(v, section.text, needle, CLIP.line);
    part.appendChild(v);
  } else if (t === "prose" || t === "code") {
    const v = el(t === "code" ? "pre" : "div", t === "code" ? "te-ins-code" : "te-ins-prose");
    clippedText(v, section.text, needle, CLIP.prose);
    part.appendChild(v);
  } else if (t === "list") {
    part.firstChild.textContent = section.title + " (" + section.items.length + ")";
    const list = el("ol", "te-ins-list");
    section.items.forEach((item) => { const li = el("li"); clippedText(li, item, needle, CLIP.line); list.appendChild(li); });
    part.appendChild(list);
  } else if (t === "table") {
    part.appendChild(renderTable(section.columns, section.rows, needle));
    if (section.note) { part.appendChild(el("div", "te-ins-note", section.note)); }
  } else if (t === "link") {
    const a = el("button", "te-ins-link", clipped(section.text + ": " + (section.label || section.session), CLIP.line));
    a.type = "button";
    a.title = section.session;
    a.setAttribute("data-session", section.session);
    a.addEventListener("click", () => ws.open("session", section.session));
    part.appendChild(a);
  } else if (t === "details") {
    const d = el("details", "te-ins-details");
    d.appendChild(el("summary", "", "Details (" + section.rows.length + " fields)"));
    d.appendChild(renderTable(["Field", "Value"], section.rows, needle));
    part.appendChild(d);
  }
  return part;
}

function renderTable(columns, rows, needle) {
  const wrap = el("div", "te-ins-table-wrap");
  const table = el("table", "te-ins-table");
  const head = el("tr");
  columns.forEach((c) => head.appendChild(el("th", "", c)));
  const thead = el("thead");
  thead.appendChild(head);
  table.appendChild(thead);
  const body = el("tbody");
  rows.forEach((row) => {
    const tr = el("tr");
    row.forEach((cell, c) => {
      const td = el("td", columns[c] === "Score" ? "te-ins-num" : "");
      if (cell === null || cell === undefined) { td.textContent = "not loaded"; td.classList.add("te-ins-missing"); }
      else if (typeof cell === "number") { td.textContent = cell.toFixed(2); }
      else { clippedText(td, cell, needle, CLIP.cell); }
      tr.appendChild(td);
    });
    body.appendChild(tr);
  });
  table.appendChild(body);
  wrap.appendChild(table);
  return wrap;
}
