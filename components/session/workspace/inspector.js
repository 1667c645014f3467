/* The step inspector: the selected step's sections (views/step_sections.py) at the page's full
 * width, in the page's own scroll. Every text goes in with textContent (``el``, ``markedText``),
 * clipped (``clippedText``: CLIP characters, the whole a click on "Show all" away). Each text
 * (``supportMarked``) keeps its whole value, so that words selected in it can be reviewed. */
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
  renderStepReviews(box, ws, s);
  bindSelectionReview(box, ws);
  const iri = el("div", "te-ins-iri");
  clippedText(iri, s.id, "", CLIP.line);
  box.appendChild(iri);
  if (s.pending) {
    box.appendChild(el("p", "te-ins-loading", "Fetching this step's texts from the librarian…"));
  }
  const needle = ws.needle;
  const matches = (ws.support && ws.support[s.id]) || [];  // its texts' words matching the chosen sentence
  box.setAttribute("data-support-marks", String(matches.length));
  for (const section of s.sections) { box.appendChild(renderSection(section, ws, needle, matches)); }
}

/* ``text`` into ``node``: the words that match the answer's chosen sentence (``matches``: the
 * step's backing texts with their spans, character offsets) in <mark class="te-ins-support">,
 * else the search's hits (``markedText``). A text that holds a backing text gets its spans; a
 * cell of a table row whose cells, joined by spaces, hold it (an edge's labels, shown in columns
 * of their own) gets its matching words (``wordsToo``, set by ``renderTable``). */
function supportMarked(node, text, matches, needle, limit) {
  const value = String(text);
  const ranges = supportRanges(value, matches);
  node.classList.add("te-ins-text");  // its words can be selected and reviewed (reviews.js)
  node.__teFull = value;  // the whole text: a selection's offsets count in it, never in the clipped one
  clippedText(node, value, needle, limit, (into, shown) => {
    into.__teShown = shown.length === value.length ? value.length : shown.length - 1;  // less the "…"
    if (!ranges.length) { markedText(into, shown, needle); return; }
    writeRanges(into, shown, ranges.filter(([a]) => a < shown.length).map(([a, b]) => [a, Math.min(b, shown.length)]));
  });
}

/* ``value`` into ``node``, the support's matching ``ranges`` (sorted, apart) each in a <mark>. */
function writeRanges(node, value, ranges) {
  let at = 0;
  for (const [a, b] of ranges) {
    if (a > at) { node.appendChild(document.createTextNode(value.slice(at, a))); }
    node.appendChild(el("mark", "te-ins-support", value.slice(a, b)));
    at = b;
  }
  if (at < value.length) { node.appendChild(document.createTextNode(value.slice(at))); }
}

/* ``spans`` of ``text`` in code points (as Python counts) as UTF-16 offsets (as JavaScript does). */
function utf16Spans(text, spans) {
  if (!/[\uD800-\uDFFF]/.test(text)) { return spans; }
  const at = [0];
  let u = 0;
  for (const ch of text) { u += ch.length; at.push(u); }
  const end = at.length - 1;
  return spans.map(([a, b]) => [at[Math.min(a, end)], at[Math.min(b, end)]]);
}

function supportRanges(value, matches) {
  let ranges = [];
  for (const m of matches) {
    const k = m.text ? value.indexOf(m.text) : -1;
    if (k >= 0) { ranges = utf16Spans(m.text, m.spans).map(([a, b]) => [a + k, b + k]); break; }
  }
  if (!ranges.length && matches.length && matches[0].wordsToo) {
    const words = new Set();
    matches.forEach((m) => {
      const chars = Array.from(m.text);  // spans count code points
      m.spans.forEach(([a, b]) => {
        const w = chars.slice(a, b).join("");  // whole ("Lake Baikal age"), then word by word: an
        [w, ...w.split(/\s+/)].forEach((part) => { if (part.trim().length > 1) { words.add(part); } });
      });  // edge's labels are shown in columns of their own
    });
    words.forEach((w) => {
      for (let k = value.indexOf(w); k >= 0; k = value.indexOf(w, k + w.length)) { ranges.push([k, k + w.length]); }
    });
  }
  ranges.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  const out = [];
  for (const [a, b] of ranges) {
    if (a >= b || a < 0 || b > value.length) { continue; }
    if (out.length && a < out[out.length - 1][1]) { continue; }  // overlaps the last: the first kept
    out.push([a, b]);
  }
  return out;
}

function renderSection(section, ws, needle, matches) {
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
    supportMarked(p, section.text, matches, needle, CLIP.prose);
    return p;
  }
  const part = el("section", "te-ins-part te-ins-sec-" + t);
  if (section.iri) { part.setAttribute("data-iri", section.iri); }  // its text's own entity (a Thought)
  if (section.title) { part.appendChild(el("div", "te-ins-caption", section.title)); }
  if (t === "line") {
    const v = el("div", "te-ins-line");
    supportMarked(v, section.text, matches, needle, CLIP.line);
    part.appendChild(v);
  } else if (t === "prose" || t === "code") {
    const v = el(t === "code" ? "pre" : "div", t === "code" ? "te-ins-code" : "te-ins-prose");
    supportMarked(v, section.text, matches, needle, CLIP.prose);
    part.appendChild(v);
  } else if (t === "list") {
    part.firstChild.textContent = section.title + " (" + section.items.length + ")";
    const list = el("ol", "te-ins-list");
    section.items.forEach((item) => { const li = el("li"); supportMarked(li, item, matches, needle, CLIP.line); list.appendChild(li); });
    part.appendChild(list);
  } else if (t === "table") {
    part.appendChild(renderTable(section.columns, section.rows, needle, matches));
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
    d.appendChild(renderTable(["Field", "Value"], section.rows, needle, matches));
    part.appendChild(d);
  }
  return part;
}

function renderTable(columns, rows, needle, matches) {
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
    const joined = row.filter((c) => typeof c === "string").join(" ");
    const inRow = matches.filter((m) => m.text && joined.indexOf(m.text) >= 0)
      .map((m) => Object.assign({}, m, { wordsToo: true }));
    row.forEach((cell, c) => {
      const td = el("td", columns[c] === "Score" ? "te-ins-num" : "");
      if (cell === null || cell === undefined) { td.textContent = "not loaded"; td.classList.add("te-ins-missing"); }
      else if (typeof cell === "number") { td.textContent = cell.toFixed(2); }
      else { supportMarked(td, cell, inRow, needle, CLIP.cell); }
      tr.appendChild(td);
    });
    body.appendChild(tr);
  });
  table.appendChild(body);
  wrap.appendChild(table);
  return wrap;
}
