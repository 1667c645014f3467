/* The waterfall, as Jaeger draws a trace: one labelled row per stop of the step walk, each
 * sub-session a band that folds (▾), bars at their real start with the duration beside them, a
 * step without a duration a diamond. The rows take the height they need, in the page's one
 * scroll, but only those in the window are in the DOM (a 4,002-step run scrolls like 20). The
 * selected step's inspector opens right under its row, at the timeline's full width, as Jaeger
 * opens a span's details (``holdDetail``): the rows below move down by its height, so its words
 * are read in the same page scroll as the rows. The time axis zooms (+ / −, Ctrl + wheel) and
 * pans (drag the bars). Long idle stretches (``idle_gaps``: a supervisor's sub-agents an hour
 * apart) are drawn compressed (the pieces of ``views.waterfall.compressed_axis``), marked "⋯"
 * on the axis and named in its label: the view and its ticks run on that drawn time
 * (``drawn``), and the ticks and the tooltips say the real time (``real``). */
const ROW = 26;          // px per row
const EDGE = 64;         // px at the top of the window that Streamlit's header covers
const INDENT = 14;       // px per level of a sub-session

class Waterfall {
  constructor(host, ws) {
    this.host = host;
    this.ws = ws;
    this.ticks = host.querySelector(".te-wf-ticks");
    this.axisName = host.querySelector(".te-wf-axis-label");
    this.body = host.querySelector(".te-wf-body");
    this.spacer = host.querySelector(".te-wf-spacer");
    this.tip = host.querySelector(".te-wf-tip");
    this.rowsEl = el("div", "te-wf-rows");
    this.body.appendChild(this.rowsEl);
    this.collapsed = new Set();
    this.frame = 0;
    this.detail = null;        // the inspector held under the selected row, and its height
    this.detailHeight = 0;
    this.sizes = new ResizeObserver(() => this.measureDetail());
    host.__teWaterfall = this;
    // the page scrolls, not the waterfall: any scroll (Streamlit's main section) redraws the rows.
    // The page's listeners go with the waterfall once it has left the page (another session opened).
    this.outside = new AbortController();
    const page = {signal: this.outside.signal};
    document.addEventListener("scroll", () => this.schedule(), Object.assign({capture: true, passive: true}, page));
    window.addEventListener("resize", () => this.schedule(), page);
    host.querySelectorAll("[data-zoom]").forEach((b) => b.addEventListener("click", () => this.zoom(b.getAttribute("data-zoom"))));
    this.body.addEventListener("wheel", (event) => {
      if (!(event.ctrlKey || event.metaKey)) { return; }
      event.preventDefault();
      this.zoomAround(this.timeAt(event.clientX), event.deltaY > 0 ? 1.25 : 0.8);
    }, {passive: false});
    this.bindPointer();
    this.rowsEl.addEventListener("mousemove", (event) => this.hover(event));
    this.rowsEl.addEventListener("mouseleave", () => { this.tip.style.display = "none"; });
    new ResizeObserver(() => this.schedule()).observe(this.body);
  }

  /* ``grown``: the same session with more steps: the zoomed window and the folded bands stay
   * (a view of the whole run takes in the new steps). */
  load(steps, axis, gaps = [], pieces = [], grown = false) {
    const before = grown && this.steps ? {view: this.view, whole: this.view[0] === this.full[0] && this.view[1] === this.full[1],
                                          folded: [...this.collapsed].map((i) => this.steps[i] && this.steps[i].id)} : null;
    this.steps = steps;
    this.axis = axis;
    let end = 0;
    steps.forEach((s) => { end = Math.max(end, s.end); });
    this.gaps = gaps.map((g) => ({from: g[0], to: g[1]}));
    this.pieces = pieces.length ? pieces : [[0, 0, 1]];  // [drawn start, real start, real ms per drawn ms]
    this.full = axis === "order" ? [-0.5, Math.max(steps.length - 0.5, 0.5)] : [0, Math.max(this.drawn(end), 1)];
    this.view = before && !before.whole ? before.view : this.full.slice();
    if (before) {
      const at = new Map(steps.map((s, i) => [s.id, i]));
      this.collapsed = new Set(before.folded.filter((id) => at.has(id)).map((id) => at.get(id)));
    }
    this.axisName.textContent = axis === "order" ? "Step (no durations recorded: in order)"
      : this.gaps.length ? "Step · ⋯ idle time compressed" : "Step";
    this.axisName.title = this.gaps.length ? "Idle, drawn compressed: "
      + this.gaps.map((g) => formatMs(g.to - g.from)).join(", ") : "";
    this.refresh();
  }

  /* A real time (ms) on the drawn axis (the last piece that starts at or before it). */
  drawn(t) {
    let d = t;
    for (const [at, real, rate] of this.pieces || []) { if (t >= real) { d = at + (t - real) / rate; } }
    return d;
  }

  /* The real time (ms) at a point ``d`` of the drawn axis. */
  real(d) {
    let t = d;
    for (const [at, real, rate] of this.pieces || []) { if (d >= at) { t = real + (d - at) * rate; } }
    return t;
  }

  /* The rows shown (those in no folded band), in order. */
  refresh() {
    const shown = [];
    const place = new Map();
    this.steps.forEach((s, i) => {
      let band = s.band;
      while (band >= 0) { if (this.collapsed.has(band)) { return; } band = this.steps[band].band; }
      place.set(i, shown.length);
      shown.push(i);
    });
    this.shown = shown;
    this.place = place;
    this.host.setAttribute("data-rows-shown", String(shown.length));
    this.layoutDetail();
  }

  /* Hold ``element`` (the inspector) under the selected row, or let it go (null). */
  holdDetail(element) {
    if (element !== this.detail) {
      if (this.detail) { this.sizes.unobserve(this.detail); this.detail.classList.remove("te-ins-inline"); }
      this.detail = element;
      if (element) {
        element.classList.add("te-ins-inline");
        this.body.appendChild(element);
        this.sizes.observe(element);
      }
    }
    this.detailHeight = element ? element.offsetHeight + 10 : 0;
    this.layoutDetail();  // the selection moved: the rows under it move with it
  }

  /* The inspector's words changed (a text arrived, details opened): the rows under it follow. */
  measureDetail() {
    const height = this.detail ? this.detail.offsetHeight + 10 : 0;
    if (height !== this.detailHeight) { this.detailHeight = height; this.layoutDetail(); }
  }

  /* The place (among the rows shown) under which the inspector is held: the selected row's,
   * or its folded band's header's. */
  detailPlace() {
    let i = this.ws.selected;
    while (i >= 0 && this.place.get(i) === undefined) { i = this.steps[i] ? this.steps[i].band : -1; }
    return i >= 0 ? this.place.get(i) : -1;
  }

  /* A row's top (px) at place ``p``: the rows under the held inspector move down by its height. */
  rowTop(p) {
    return p * ROW + (this.detail && p > this.detailAt ? this.detailHeight : 0);
  }

  layoutDetail() {
    this.detailAt = this.detail ? this.detailPlace() : -1;
    const extra = this.detail ? this.detailHeight : 0;
    if (this.detail) { this.detail.style.top = ((this.detailAt + 1) * ROW + 4) + "px"; }
    this.spacer.style.height = this.shown.length * ROW + extra + "px";
    this.body.style.height = this.shown.length * ROW + extra + "px";
    this.schedule();
  }

  toggle(row) {
    if (this.collapsed.has(row)) { this.collapsed.delete(row); } else { this.collapsed.add(row); }
    // the selected step folded out of sight: its band's header takes the selection
    let band = this.steps[this.ws.selected] ? this.steps[this.ws.selected].band : -1;
    while (band >= 0 && band !== row) { band = this.steps[band].band; }
    if (band === row) { this.ws.select(row, "timeline"); }
    this.refresh();
  }

  schedule() {
    if (!this.host.isConnected) { this.outside.abort(); return; }
    if (this.frame) { return; }
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.draw(); });
  }

  /* Where step ``s`` is on the drawn axis: its start (``at`` 0), its end (1) or between. */
  place_(s, at) {
    const real = s.start + (s.end - s.start) * at;
    return this.axis === "order" ? real : this.drawn(real);
  }

  /* A point of the drawn axis as a percentage of the lane; ``x`` takes a real time. */
  xAt(d) { return (d - this.view[0]) / Math.max(1e-9, this.view[1] - this.view[0]) * 100; }

  x(value) { return this.xAt(this.axis === "order" ? value : this.drawn(value)); }

  draw() {
    if (!this.body.isConnected) { return; }
    const box = this.body.getBoundingClientRect();
    const top = Math.max(0, -box.top);  // px of the rows above the window
    const height = window.innerHeight || 800;
    const place = (y) => {  // the place of the row at ``y`` px, the held inspector counted
      const under = this.detail ? (this.detailAt + 1) * ROW : Infinity;
      return y < under ? y / ROW : Math.max(this.detailAt + 1, (y - this.detailHeight) / ROW);
    };
    const first = Math.max(0, Math.floor(place(top)) - 6);
    const last = Math.min(this.shown.length, Math.ceil(place(top + height)) + 6);
    const frag = document.createDocumentFragment();
    for (let p = first; p < last; p++) { frag.appendChild(this.row(this.shown[p], p)); }
    clear(this.rowsEl);
    this.rowsEl.appendChild(frag);
    this.drawAxis();
  }

  row(i, p) {
    const s = this.steps[i];
    const ws = this.ws;
    const row = el("div", "te-wf-row" + (s.header ? " te-wf-header" : ""));
    row.style.top = this.rowTop(p) + "px";
    row.setAttribute("data-row", String(i));
    row.setAttribute("data-step", s.id);
    if (i === ws.selected) { row.classList.add("te-selected"); }
    if (ws.dimmed(i)) { row.classList.add("te-dim"); }
    if (ws.showCritical && ws.critical.has(i)) { row.classList.add("te-critical"); }
    if (ws.supporting.has(i)) { row.classList.add("te-supporting"); }
    if (i === ws.newest) { row.classList.add("te-newest"); row.setAttribute("data-newest", "true"); }
    const label = el("div", "te-wf-label");
    label.style.paddingLeft = (6 + s.depth * INDENT) + "px";
    label.title = s.label;
    if (s.header) {
      const t = el("button", "te-wf-toggle", this.collapsed.has(i) ? "▸" : "▾");
      t.type = "button";
      t.setAttribute("data-toggle", String(i));
      t.title = this.collapsed.has(i) ? "Unfold this sub-session" : "Fold this sub-session";
      label.appendChild(t);
    }
    const sw = el("span", "te-wf-sw" + (s.header ? " te-wf-sw-band" : ""));
    sw.style.background = ws.colour(s);
    label.appendChild(sw);
    label.appendChild(el("span", "te-wf-n", String(i + 1)));
    label.appendChild(el("span", "te-wf-text" + (s.error ? " te-wf-error-text" : ""), s.label));
    row.appendChild(label);
    const track = el("div", "te-wf-track");
    const lane = el("div", "te-wf-lane");
    track.appendChild(lane);
    const left = this.x(s.start), right = this.x(s.end);
    if (s.header) {
      const band = el("div", "te-wf-band");
      band.style.left = left + "%";
      band.style.width = Math.max(0.3, right - left) + "%";
      lane.appendChild(band);
    } else if (s.duration === null || this.axis === "order") {
      const m = el("div", "te-wf-marker" + (s.error ? " te-wf-err" : ""));
      m.style.left = left + "%";
      m.style.background = ws.colour(s);
      lane.appendChild(m);
    } else {
      const bar = el("div", "te-wf-span" + (s.error ? " te-wf-err" : ""));
      bar.style.left = left + "%";
      bar.style.width = Math.max(0.25, right - left) + "%";
      bar.style.background = ws.colour(s);
      lane.appendChild(bar);
      const d = el("span", "te-wf-dur", formatMs(s.duration));
      if (right > 82) { d.style.right = (100 - left) + "%"; d.classList.add("te-wf-dur-before"); }
      else { d.style.left = right + "%"; }
      lane.appendChild(d);
    }
    row.appendChild(track);
    return row;
  }

  drawAxis() {
    clear(this.ticks);
    const span = this.view[1] - this.view[0];
    const width = this.ticks.clientWidth || 600;
    const count = Math.max(2, Math.floor(width / 70));
    let step = niceStep(span, count);
    if (this.axis === "order") { step = Math.max(1, Math.round(step)); }
    const start = Math.ceil(this.view[0] / step) * step;
    const inGap = (v) => this.axis !== "order" && this.gaps.some((g) => {
      const a = this.drawn(g.from), b = this.drawn(g.to), room = (b - a) * 0.4;
      return v > a - room && v < b + room;  // the "⋯" mark's place, and room around it
    });
    for (let v = start; v <= this.view[1] + 1e-9; v += step) {
      if (inGap(v)) { continue; }
      const t = el("span", "te-wf-tick", this.axis === "order" ? String(Math.round(v) + 1) : this.timeText(this.real(v), step));
      const at = this.xAt(v);
      t.style.left = at + "%";
      if (at < 4) { t.style.transform = "none"; }  // the first label starts at the axis, whole
      this.ticks.appendChild(t);
    }
    for (const g of this.axis === "order" ? [] : this.gaps) {  // each compressed stretch marked
      const at = this.x((g.from + g.to) / 2);
      if (at < 0 || at > 100) { continue; }
      const mark = el("span", "te-wf-tick te-wf-gap", "⋯");
      mark.style.left = at + "%";
      mark.title = formatMs(g.to - g.from) + " idle, drawn compressed";
      this.ticks.appendChild(mark);
    }
  }

  timeText(v, step) {
    const seconds = v / 1000;
    if (seconds >= 120 && step >= 1000) {
      const m = Math.floor(seconds / 60), s = Math.round(seconds - 60 * m);
      return m + " min" + (s ? " " + s + " s" : "");
    }
    const digits = step >= 1000 ? 0 : step >= 100 ? 1 : step >= 10 ? 2 : 3;
    return seconds.toFixed(digits) + " s";
  }

  timeAt(clientX) {
    const lane = this.ticks.getBoundingClientRect();
    return this.view[0] + (clientX - lane.left) / Math.max(1, lane.width) * (this.view[1] - this.view[0]);
  }

  setView(view) {
    const full = this.full;
    let [a, b] = view;
    const span = Math.min(full[1] - full[0], Math.max(b - a, (full[1] - full[0]) / 5000));
    a = Math.max(full[0], Math.min(a, full[1] - span));
    this.view = [a, a + span];
    this.host.setAttribute("data-zoomed", this.view[1] - this.view[0] < full[1] - full[0] - 1e-9 ? "1" : "0");
    this.schedule();
  }

  zoomAround(at, factor) {
    const [a, b] = this.view;
    this.setView([at - (at - a) * factor, at + (b - at) * factor]);
  }

  zoom(how) {
    if (how === "reset") { this.setView(this.full.slice()); return; }
    const s = this.steps[this.ws.selected];
    const at = s ? this.place_(s, 0.5) : (this.view[0] + this.view[1]) / 2;
    this.zoomAround(at, how === "in" ? 0.5 : 2);
  }

  bindPointer() {
    let drag = null;
    this.rowsEl.addEventListener("mousedown", (event) => {
      if (event.button !== 0 || !event.target.closest(".te-wf-track")) { return; }
      drag = {x: event.clientX, view: this.view.slice(), moved: false};
    });
    const page = {signal: this.outside.signal};
    window.addEventListener("mousemove", (event) => {
      if (!drag) { return; }
      const dx = event.clientX - drag.x;
      if (Math.abs(dx) > 4) { drag.moved = true; }
      if (!drag.moved) { return; }
      const width = Math.max(1, this.ticks.getBoundingClientRect().width);
      const shift = -dx / width * (drag.view[1] - drag.view[0]);
      this.setView([drag.view[0] + shift, drag.view[1] + shift]);
    }, page);
    window.addEventListener("mouseup", () => { setTimeout(() => { drag = null; }, 0); }, page);
    this.rowsEl.addEventListener("click", (event) => {
      if (drag && drag.moved) { return; }
      const toggle = event.target.closest("[data-toggle]");
      if (toggle) { this.toggle(Number(toggle.getAttribute("data-toggle"))); return; }
      const row = event.target.closest("[data-row]");
      if (row) { this.ws.select(Number(row.getAttribute("data-row")), "timeline"); }
    });
  }

  /* Bring row ``i`` into view (unfolding the bands that hold it; scrolling the page unless
   * ``scroll`` is false) and its time into the axis. */
  reveal(i, scroll = true) {
    let band = this.steps[i].band, unfolded = false;
    while (band >= 0) { if (this.collapsed.delete(band)) { unfolded = true; } band = this.steps[band].band; }
    if (unfolded) { this.refresh(); }
    const p = this.place.get(i);
    if (scroll && p !== undefined && this.body.offsetParent !== null) { this.scrollToRow(p); }
    const s = this.steps[i];
    if (this.place_(s, 1) < this.view[0] || this.place_(s, 0) > this.view[1]) {
      const half = (this.view[1] - this.view[0]) / 2;
      this.setView([this.place_(s, 0) - half, this.place_(s, 0) + half]);
    }
    this.schedule();
  }

  /* Scroll the page (not the waterfall) so the row at place ``p`` is in the window, below
   * Streamlit's header and above the bottom, with a row to spare when it moves. */
  scrollToRow(p) {
    const box = this.body.getBoundingClientRect();
    const top = box.top + this.rowTop(p);
    // the row and, as far as the window holds it, the inspector under it: a row that moves
    // out at the bottom comes back near the top, its words under it
    const under = p === this.detailAt ? Math.min(this.detailHeight, window.innerHeight / 2) : 0;
    let by = 0;
    if (top < EDGE + ROW) { by = top - EDGE - ROW; }
    else if (top + ROW + under + ROW > window.innerHeight) { by = top - EDGE - ROW; }
    if (by) { scroller(this.body).scrollTop += by; }
  }

  /* The row after (``by`` > 0) or before the selected one among the rows shown. */
  neighbour(i, by) {
    let p = this.place.get(i);
    if (p === undefined) {  // inside a folded band: from its header
      let band = this.steps[i] ? this.steps[i].band : -1;
      while (band >= 0 && this.place.get(band) === undefined) { band = this.steps[band].band; }
      p = band >= 0 ? this.place.get(band) : 0;
    }
    return this.shown[Math.min(this.shown.length - 1, Math.max(0, p + by))];
  }

  hover(event) {
    const row = event.target.closest("[data-row]");
    if (!row) { this.tip.style.display = "none"; return; }
    const s = this.steps[Number(row.getAttribute("data-row"))];
    const lines = [s.label, this.ws.kindName(s)];
    if (s.header) {
      lines.push("sub-session band: " + formatMs(s.start) + " – " + formatMs(s.end));
    } else if (this.axis === "ms") {
      lines.push("duration: " + (s.duration === null ? "not recorded" : formatMs(s.duration)));
      lines.push("starts at: " + formatMs(s.start));
    }
    if (s.error) { lines.push("tool call failed ✗"); }
    lines.push(s.id);
    this.tip.textContent = lines.map((line) => clipped(line, CLIP.tip)).join("\n");
    this.tip.style.display = "block";
    const box = this.host.getBoundingClientRect();
    this.tip.style.left = Math.max(0, Math.min(event.clientX - box.left + 14, box.width - this.tip.offsetWidth - 4)) + "px";
    this.tip.style.top = (event.clientY - box.top + 16) + "px";
  }
}
