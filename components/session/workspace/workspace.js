/* The session workspace (components/workspace/__init__.py): the waterfall, the provenance graph
 * and the step inspector of one session, on the data of views/workspace.py (SHAPE.md), sent
 * once. Selecting (a click, j / k, the arrows), hovering, zooming, folding, the Evidence
 * switch, the search and the quick filters all run here, with no trip to the server. Each key
 * press moves the selection at once (a press is never lost: the next one starts from it); the
 * graph's highlight and the URL's ``step=`` follow on the next frame.
 *
 * Triggers back to Python (only for what needs the server):
 *   "texts" = step IRI   its texts are still in a TrustGraph librarian: fetch them;
 *   "open"  = {page: "session" | "documents", id}   go to another session or a document;
 *   "review" = step IRI   open the review dialog of that step (reviews.js);
 *   "review" = {step, field, quote, start, end}   of the words selected in one of its texts.
 * vis-network is not sent with the page: graph_library.py sends it when the graph is first shown.
 */
let current = null;      // the workspace on screen (the key handler works on it)
let keysBound = false;

class Workspace {
  constructor(host, trigger) {
    this.host = host;
    this.trigger = trigger;
    this.selected = 0;
    this.needle = "";
    this.filters = {errors: false, slow: "", kind: "", tool: ""};
    this.showCritical = false;
    this.view = "timeline";
    this.matching = null;
    this.inspector = host.querySelector(".te-ins");
    this.waterfall = new Waterfall(host.querySelector(".te-wf"), this);
    this.graph = null;  // made when the graph is first shown (vis-network needs a visible canvas)
    this.bindTools();
    host.__teWorkspace = this;
  }

  /* Draw ``data``; ``newest``: the step IRI that arrived last while the session is followed.
   * The same session again (it grew) keeps the selection, the filters, the search, the
   * timeline's zoom and folded bands and the graph's view and opened folds; with "Follow the newest step" on, the
   * newest step is selected instead. */
  load(data, selectedId, newest) {
    const same = this.data && this.data.session.id === data.session.id;
    const keep = same && this.steps[this.selected] ? this.steps[this.selected].id : null;
    this.data = data;
    this.steps = data.steps;
    this.index = new Map(this.steps.map((s, i) => [s.id, i]));
    this.critical = new Set(data.critical);
    this.supporting = new Set();  // the steps backing the answer's chosen sentence (markSupporting)
    this.support = {};  // step IRI -> its texts' words matching that sentence (markMatching)
    this.supportKey = "{}";
    this.kindColours = data.palette || {};
    this.searchText = null;
    this.newest = newest && this.index.has(newest) ? this.index.get(newest) : -1;
    this.host.setAttribute("data-newest", newest || "");
    const following = same && this.newest >= 0 && this.followsNewest();
    const wanted = following ? newest : keep !== null && this.index.has(keep) ? keep : selectedId;
    this.selected = this.index.has(wanted) ? this.index.get(wanted) : 0;
    this.fillChoices();
    this.host.querySelector(".te-ws-evidence").hidden = !data.evidence;
    this.waterfall.load(this.steps, data.axis, data.idle_gaps || [], data.axis_pieces || [], same);
    if (this.graph) { this.graph.load(data.graph, data.evidence, same); }
    this.applyFilters();
    this.select(this.selected, "load");
    this.host.setAttribute("data-te-workspace", "drawn");
  }

  /* -- the parts ask ------------------------------------------------------------------------ */
  colour(s) { return this.data.kinds[s.kind].colour; }
  kindName(s) { return this.data.kinds[s.kind].name; }
  kindColour(kind, fallback) {
    if (Object.prototype.hasOwnProperty.call(this.kindColours, kind)) { return this.kindColours[kind]; }
    return fallback === undefined ? (this.data.other_colour || "#94a3b8") : fallback;
  }
  dimmed(i) { return this.matching !== null && !this.matching.has(i); }
  /* The graph node of the newest step (null when none is marked). */
  newestNode() { return this.newest >= 0 ? this.steps[this.newest].node : null; }
  /* A step the person chose (a click, a key, a search, a link, a sentence of the answer) turns
   * "Follow the newest step" off, as scrolling up stops a log's live tail: the step they chose
   * stays selected as steps arrive and when the answer lands. Ticking it again follows again. */
  stopFollowing() {
    if (this.followsNewest()) { this.host.querySelector(".te-ws-follow input").checked = false; }
  }

  /* Whether "Follow the newest step" is shown and on. */
  followsNewest() {
    const follow = this.host.querySelector(".te-ws-follow");
    return !follow.hidden && follow.querySelector("input").checked;
  }

  /* -- selection ---------------------------------------------------------------------------- */
  select(i, from) {
    if (i === undefined || i === null || !this.steps[i]) { return; }
    if (from !== "load") { this.stopFollowing(); }
    this.selected = i;
    const s = this.steps[i];
    this.host.setAttribute("data-selected", s.id);
    this.waterfall.host.setAttribute("data-selected", s.id);
    this.waterfall.rowsEl.querySelectorAll(".te-selected").forEach((r) => r.classList.remove("te-selected"));
    const row = this.waterfall.rowsEl.querySelector('[data-row="' + i + '"]');
    if (row) { row.classList.add("te-selected"); }
    renderInspector(this.inspector, this, i);
    this.placeInspector();
    // in view above the inspector as it now stands; a page opened at its first step stays at its top
    if (from !== "timeline") { this.waterfall.reveal(i, from !== "load" || i !== 0); }
    this.updateCount();
    if (s.pending) { this.trigger("texts", s.id); }
    this.later(from);
  }

  /* On the timeline, the inspector opens under the selected row (Waterfall.holdDetail); on the
   * graph, it follows the pane. */
  placeInspector() {
    if (this.view === "timeline") {
      this.waterfall.holdDetail(this.inspector);
    } else {
      this.waterfall.holdDetail(null);
      this.host.querySelector(".te-ws-pane").after(this.inspector);
    }
  }

  /* The graph's highlight and the URL, once per frame however fast the keys come. */
  later(from) {
    this.lastFrom = from;
    if (this.pendingFrame) { return; }
    this.pendingFrame = requestAnimationFrame(() => {
      this.pendingFrame = 0;
      const s = this.steps[this.selected];
      if (this.graph && this.view === "graph") { this.graph.selectStep(s, this.lastFrom !== "graph"); }
      writeUrl(this.selected === 0 ? null : s.id);
    });
  }

  move(by) {
    const next = this.waterfall.neighbour(this.selected, by);
    if (next !== undefined && next !== this.selected) { this.select(next, "key"); }
  }

  /* The graph's selection back on the selected step (after a click that selects nothing). */
  graphFollows() {
    if (this.graph) { this.graph.select(this.graph.nodeOf(this.steps[this.selected]), false); }
  }

  clickNode(id) {
    const drawn = this.graph.drawnNode(id);
    if (!drawn) { return; }
    if (drawn.role === "folded") {
      this.graph.openFold(id);
      this.graphFollows();
    } else if (drawn.role === "evidence") {
      if (drawn.kind === "Document") { this.open("documents", id); }
    } else if (id === this.data.session.parent_session) {
      this.open("session", id);
    } else if (drawn.step && this.index.has(drawn.step)) {
      this.select(this.index.get(drawn.step), "graph");
      this.graph.select(id, false);
    } else {
      this.graphFollows();
    }
  }

  open(page, id) { this.trigger("open", {page: page, id: id}); }

  /* -- the tools: view switch, search, filters, critical path, Evidence --------------------- */
  bindTools() {
    const h = this.host;
    h.querySelectorAll("[data-view]").forEach((b) => b.addEventListener("click", () => this.showView(b.getAttribute("data-view"))));
    const search = h.querySelector(".te-ws-search");
    search.addEventListener("input", () => { this.needle = search.value.trim().toLowerCase(); this.applyFilters(); this.firstMatch(); });
    search.addEventListener("keydown", (event) => {
      if (event.key === "Enter") { event.preventDefault(); this.nextMatch(event.shiftKey ? -1 : 1); }
      if (event.key === "Escape") { search.blur(); }
    });
    h.querySelector('[data-match="next"]').addEventListener("click", () => this.nextMatch(1));
    h.querySelector('[data-match="prev"]').addEventListener("click", () => this.nextMatch(-1));
    h.querySelector(".te-ws-errors").addEventListener("change", (e) => { this.filters.errors = e.target.checked; this.applyFilters(); });
    for (const name of ["slow", "kind", "tool"]) {
      h.querySelector(".te-ws-" + name).addEventListener("change", (e) => { this.filters[name] = e.target.value; this.applyFilters(); });
    }
    h.querySelector(".te-ws-critical").addEventListener("change", (e) => {
      this.showCritical = e.target.checked;
      this.host.setAttribute("data-critical", this.showCritical ? "on" : "off");
      this.applyFilters();
    });
    h.querySelector(".te-ws-evidence input").addEventListener("change", (e) => {
      this.evidenceOn = e.target.checked;
      if (this.evidenceOn && this.view !== "graph") { this.showView("graph"); }
      if (this.graph) { this.graph.setEvidence(this.evidenceOn); }
    });
  }

  showView(view) {
    this.view = view;
    this.host.setAttribute("data-view", view);
    this.host.querySelectorAll("[data-view]").forEach((b) => b.setAttribute("aria-pressed", String(b.getAttribute("data-view") === view)));
    this.placeInspector();
    if (view === "graph") {
      if (!this.graph && !globalThis.vis) { this.askForVis(); return; }
      if (!this.graph) {
        this.graph = new Graph(this.host.querySelector(".te-dag"), this);
        this.graph.evidenceOn = !!this.evidenceOn;
        this.graph.load(this.data.graph, this.data.evidence);
      }
      this.graph.selectStep(this.steps[this.selected], true);
    } else {
      this.waterfall.schedule();
    }
  }

  /* vis-network is sent only when the graph is first shown (a first view shows the timeline):
   * ask for it once (graph_library.py), and draw the graph when its script has run, if the graph
   * is still the view shown. */
  askForVis() {
    this.host.querySelector(".te-dag").setAttribute("data-te-dag", "loading");
    if (this.visAsked) { return; }
    this.visAsked = true;
    window.addEventListener("te-vis-network", () => { if (this.view === "graph" && !this.graph) { this.showView("graph"); } });
    globalThis.__teWantVis = true;
    window.dispatchEvent(new Event("te-want-vis"));
  }

  fillChoices() {
    const fill = (select, values, first) => {
      const before = select.value;
      clear(select);
      const none = el("option", "", first);
      none.value = "";
      select.appendChild(none);
      values.forEach(([value, text]) => { const o = el("option", "", text); o.value = value; select.appendChild(o); });
      select.value = values.some(([v]) => v === before) ? before : "";
    };
    const kinds = [...new Set(this.steps.filter((s) => !s.header).map((s) => this.kindName(s)))];
    fill(this.host.querySelector(".te-ws-kind"), kinds.map((k) => [k, k]), "Any kind");
    const tools = [...new Set(this.steps.map((s) => s.tool).filter((t) => t))].sort();
    const toolBox = this.host.querySelector(".te-ws-tool");
    fill(toolBox, tools.map((t) => [t, clipped(t, 80)]), "Any tool");
    toolBox.hidden = !tools.length;
    const slow = [];
    if (this.data.slow_ms !== null && this.data.slow_ms !== undefined) { slow.push(["p90", "Slow: ≥ " + formatMs(this.data.slow_ms) + " (slowest 10%)"]); }
    if (this.data.axis === "ms") { slow.push(["top5", "Slow: the 5 slowest"], ["top10", "Slow: the 10 slowest"]); }
    const slowBox = this.host.querySelector(".te-ws-slow");
    fill(slowBox, slow, "Any duration");
    slowBox.hidden = !slow.length;
    this.host.querySelector(".te-ws-critical").parentNode.hidden = !this.data.critical.length;
  }

  /* Lower-case text of every step, for the search (made on the first search). */
  texts() {
    if (this.searchText) { return this.searchText; }
    this.searchText = this.steps.map((s) => {
      const parts = [s.label, s.id];
      for (const x of s.sections) {
        if (x.text) { parts.push(x.text); }
        if (x.items && x.t === "list") { parts.push(x.items.join("\n")); }
        if (x.rows && x.t === "table") { x.rows.forEach((r) => parts.push(r.filter((c) => typeof c === "string").join(" "))); }
      }
      return parts.join("\n").toLowerCase();
    });
    return this.searchText;
  }

  applyFilters() {
    const f = this.filters;
    const active = this.needle || f.errors || f.slow || f.kind || f.tool;
    let slowSet = null;
    if (f.slow === "p90") {
      slowSet = new Set(this.steps.map((s, i) => (s.duration !== null && s.duration >= this.data.slow_ms ? i : -1)).filter((i) => i >= 0));
    } else if (f.slow) {
      const n = f.slow === "top5" ? 5 : 10;
      const timed = this.steps.map((s, i) => [s.duration, i]).filter(([d]) => d !== null).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
      slowSet = new Set(timed.slice(0, n).map(([, i]) => i));
    }
    const texts = this.needle ? this.texts() : null;
    let matching = null;
    if (active) {
      matching = new Set();
      this.steps.forEach((s, i) => {
        if (f.errors && !s.error) { return; }
        if (slowSet && !slowSet.has(i)) { return; }
        if (f.kind && (s.header || this.kindName(s) !== f.kind)) { return; }
        if (f.tool && s.tool !== f.tool) { return; }
        if (texts && texts[i].indexOf(this.needle) < 0) { return; }
        matching.add(i);
      });
    }
    this.matching = matching;
    this.matchList = matching ? [...matching].sort((a, b) => a - b) : [];
    this.host.setAttribute("data-matches", matching ? String(matching.size) : "");
    this.waterfall.schedule();
    this.applyGraphFilter();
    this.updateCount();
    if (this.steps[this.selected]) { renderInspector(this.inspector, this, this.selected); }
  }

  /* Mark, in the inspector, the words of the supporting steps' texts that match the answer's
   * chosen sentence (step IRI -> [{text, spans}]); drawn again only when they change. */
  markMatching(matching) { this.inspectorShows("support", matching); }

  /* The steps' reviews (step IRI -> [{label, score, comment, by, at}]), listed in the inspector. */
  showReviews(reviews) { this.inspectorShows("reviews", reviews); }

  /* Keep ``value`` as this[field] for the inspector, which is drawn again only when it changes. */
  inspectorShows(field, value) {
    const key = JSON.stringify(value);
    if (key === this[field + "Key"]) { return; }
    this[field + "Key"] = key;
    this[field] = value;
    if (this.steps[this.selected]) { renderInspector(this.inspector, this, this.selected); }
  }

  /* Mark the steps that back the answer's chosen sentence (step IRIs), in the timeline and the graph. */
  markSupporting(ids) {
    const next = new Set(ids.filter((id) => this.index.has(id)).map((id) => this.index.get(id)));
    if (next.size === this.supporting.size && [...next].every((i) => this.supporting.has(i))) { return; }
    this.supporting = next;
    this.host.setAttribute("data-supporting", String(next.size));
    this.waterfall.schedule();
    this.applyGraphFilter();
  }

  applyGraphFilter() {
    if (!this.graph || !this.graph.graph) { return; }
    let nodes = null;
    if (this.matching) {
      nodes = new Set();
      const all = new Set(this.steps.map((s) => this.graph.nodeOf(s)));
      this.matching.forEach((i) => nodes.add(this.graph.nodeOf(this.steps[i])));
      this.graph.nodes.forEach((n) => { if (!all.has(n.id)) { nodes.add(n.id); } });  // nodes of no step stay
    }
    let critical = null;
    if (this.showCritical) { critical = new Set([...this.critical].map((i) => this.graph.nodeOf(this.steps[i]))); }
    this.graph.shade(nodes, critical, new Set([...this.supporting].map((i) => this.graph.nodeOf(this.steps[i]))));
  }

  updateCount() {
    const count = this.host.querySelector(".te-ws-count");
    if (!this.matching) { count.textContent = ""; return; }
    const n = this.matching.size;
    const at = this.matchList.indexOf(this.selected);
    count.textContent = n === 0 ? "no step matches" : (at >= 0 ? (at + 1) + " of " : "") + n + (n === 1 ? " step" : " steps");
  }

  firstMatch() {
    if (this.matchList && this.matchList.length && !this.matching.has(this.selected)) { this.nextMatch(1); }
  }

  nextMatch(by) {
    const list = this.matchList || [];
    if (!list.length) { return; }
    let next;
    if (by > 0) { next = list.find((i) => i > this.selected); if (next === undefined) { next = list[0]; } }
    else { next = [...list].reverse().find((i) => i < this.selected); if (next === undefined) { next = list[list.length - 1]; } }
    this.select(next, "search");
  }
}

function writeUrl(step) {
  const win = window;
  try {
    const url = new URL(win.location.href);
    if (url.searchParams.get("step") === step || (step === null && !url.searchParams.has("step"))) { return; }
    if (step === null) { url.searchParams.delete("step"); } else { url.searchParams.set("step", step); }
    win.history.replaceState(win.history.state, "", url.toString());
  } catch (error) { /* a sandboxed page: the URL stays */ }
}

function inWorkspace(event) {
  const path = event.composedPath ? event.composedPath() : [];
  return path.some((node) => node && node.getAttribute && node.getAttribute("data-te-steps"));
}

function onKey(event) {
  if (!current || !current.host.isConnected || event.altKey || event.ctrlKey || event.metaKey) { return; }
  if (typing(event)) { return; }
  const key = event.key;
  if (key === "/") { event.preventDefault(); current.host.querySelector(".te-ws-search").focus(); return; }
  let by = 0;
  if (key === "j") { by = 1; } else if (key === "k") { by = -1; }
  else if (inWorkspace(event) && (key === "ArrowDown" || key === "ArrowRight")) { by = 1; }
  else if (inWorkspace(event) && (key === "ArrowUp" || key === "ArrowLeft")) { by = -1; }
  if (!by) { return; }
  event.preventDefault();
  current.move(by);
}

/* The component's data: UTF-8 JSON bytes (an object in tests that pass one). */
function decoded(raw) {
  if (!raw) { return null; }
  if (raw instanceof ArrayBuffer || ArrayBuffer.isView(raw)) {
    const bytes = raw instanceof ArrayBuffer ? new Uint8Array(raw) : new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
    return JSON.parse(new TextDecoder().decode(bytes));
  }
  return typeof raw === "string" ? JSON.parse(raw) : raw;
}

export default function (component) {
  const { parentElement, setTriggerValue } = component;
  const host = parentElement.querySelector(".te-ws");
  if (!host) { return; }
  if (host.__teRaw !== component.data) {  // the same bytes again: nothing new to read
    host.__teRaw = component.data;
    host.__teData = decoded(component.data);
  }
  const data = host.__teData;
  if (!data || !data.shape) { return; }
  let ws = host.__teWorkspace;
  const trigger = (name, value) => setTriggerValue(name, value);
  if (!ws) { ws = new Workspace(host, trigger); }
  ws.trigger = trigger;
  host.querySelector(".te-ws-follow").hidden = !data.live;
  if (ws.key !== data.key) {
    ws.key = data.key;
    ws.load(data.shape, data.selected, data.newest);
  } else if ((data.selected !== ws.sentSelected || (data.ask || 0) !== ws.sentAsk) && ws.index.has(data.selected)) {
    // the page was opened at another step (a link), or the server was asked to select one (a
    // sentence of the answer), perhaps the same it sent before the person moved on
    ws.select(ws.index.get(data.selected), "link");
  }
  ws.sentSelected = data.selected;
  ws.sentAsk = data.ask || 0;
  ws.markSupporting(data.supporting || []);
  ws.markMatching(data.matching || {});
  ws.reviewing = !!data.reviewing;
  ws.showReviews(data.reviews || {});
  current = ws;
  if (!keysBound) { document.addEventListener("keydown", onKey); keysBound = true; }
  return () => { if (current === ws) { current = null; } };
}
