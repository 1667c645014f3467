/* The session's waterfall (components/timeline.py): one labelled row per stop of the step walk,
 * sub-sessions as nested bands that collapse, a time axis that zooms, and a minimap of the whole
 * run. Only the rows in view are in the DOM, so 100,000 rows scroll like 20.
 *
 * data = {rows: views.waterfall.waterfall_data(...), key, selected}
 * Triggers: "select" (a step IRI) on a click on a row or the keys j / k (anywhere but a text
 * field) and the arrows (when the timeline or the graph has the focus).
 * Every text from the trace goes into the DOM with textContent.
 */
const ROW = 24;             // px per row
const MAX_BODY = 520;       // px: taller runs scroll
const MINI = 46;            // px: the minimap's height
const INDENT = 14;          // px per level of a sub-session
const collapsedBands = new Map();  // rows key -> Set of header row indices folded away
let current = null;         // the waterfall on screen (the key handler works on it)
let keysBound = false;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) { node.className = className; }
  if (text !== undefined) { node.textContent = text; }
  return node;
}

function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 2.5, 5, 10]) { if (m * power >= raw) { return m * power; } }
  return 10 * power;
}

function formatTime(value, step, axis) {
  if (axis === "order") { return "step " + (Math.round(value) + 1); }
  const seconds = value / 1000;
  if (Math.abs(seconds) >= 120 && step >= 1000) {
    const m = Math.floor(seconds / 60), s = Math.round(seconds - 60 * m);
    return m + " min" + (s ? " " + s + " s" : "");
  }
  const digits = step >= 1000 ? 0 : step >= 100 ? 1 : step >= 10 ? 2 : 3;
  return seconds.toFixed(digits) + " s";
}

function formatMs(value) {
  if (value === null || value === undefined) { return "not recorded"; }
  return value >= 1000 ? (value / 1000).toFixed(value >= 10000 ? 1 : 2) + " s" : Math.round(value) + " ms";
}

class Waterfall {
  constructor(host, trigger) {
    this.host = host;
    this.trigger = trigger;
    this.parts = {
      legend: host.querySelector(".te-wf-legend"),
      note: host.querySelector(".te-wf-note"),
      mini: host.querySelector(".te-wf-mini"),
      ticks: host.querySelector(".te-wf-ticks"),
      body: host.querySelector(".te-wf-body"),
      spacer: host.querySelector(".te-wf-spacer"),
      tip: host.querySelector(".te-wf-tip"),
    };
    this.rowsEl = el("div", "te-wf-rows");
    this.parts.body.appendChild(this.rowsEl);
    this.selected = null;
    this.frame = 0;
    this.parts.body.addEventListener("scroll", () => this.schedule());
    host.querySelectorAll("[data-zoom]").forEach((button) => {
      button.addEventListener("click", () => this.zoomBy(button.getAttribute("data-zoom")));
    });
    this.parts.body.addEventListener("wheel", (event) => {
      if (!(event.ctrlKey || event.metaKey)) { return; }
      event.preventDefault();
      const track = this.trackBox();
      const at = this.view[0] + (event.clientX - track.left) / Math.max(1, track.width) * (this.view[1] - this.view[0]);
      this.zoomAround(at, event.deltaY > 0 ? 1.25 : 0.8);
    }, {passive: false});
    this.rowsEl.addEventListener("click", (event) => this.clicked(event));
    this.rowsEl.addEventListener("mousemove", (event) => this.hover(event));
    this.rowsEl.addEventListener("mouseleave", () => { this.parts.tip.style.display = "none"; });
    this.bindMinimap();
    this.bindResize();
    if (typeof ResizeObserver === "function") {
      this.observer = new ResizeObserver(() => this.schedule());
      this.observer.observe(host);
    }
  }

  /* New rows (a new session or collection): index them and draw from the top. */
  load(rows, key) {
    // the step IRIs come front-coded (views/waterfall.py, front_coded)
    const ids = [];
    for (let i = 0; i < rows.id_rest.length; i++) {
      ids.push((i ? ids[i - 1].slice(0, rows.id_shared[i]) : "") + rows.id_rest[i]);
    }
    rows.ids = ids;
    this.rows = rows;
    this.key = key;
    this.count = rows.ids.length;
    this.index = new Map(rows.ids.map((id, i) => [id, i]));
    let lo = Infinity, hi = -Infinity;
    for (let i = 0; i < this.count; i++) { lo = Math.min(lo, rows.starts[i]); hi = Math.max(hi, rows.ends[i]); }
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    if (hi <= lo) { hi = lo + 1; }
    const pad = (hi - lo) * 0.01;
    this.full = [lo - pad, hi + pad];
    this.view = this.full.slice();
    if (!collapsedBands.has(key)) { collapsedBands.set(key, new Set()); }
    this.collapsed = collapsedBands.get(key);
    this.legend();
    this.parts.note.textContent = rows.axis === "order"
      ? "No durations recorded: steps are drawn in order."
      : "Steps laid end to end from their session's start, each sub-session from its own start time; ◆ = no duration recorded.";
    this.refresh();
  }

  legend() {
    const box = this.parts.legend;
    while (box.firstChild) { box.removeChild(box.firstChild); }
    const used = new Set(this.rows.kinds);
    this.rows.kind_names.forEach((name, i) => {
      if (!used.has(i)) { return; }
      const item = el("span", "te-wf-key");
      const sw = el("span", name === "Sub-session" ? "te-wf-sw te-wf-sw-band" : "te-wf-sw");
      sw.style.background = this.rows.colours[i];
      item.appendChild(sw);
      item.appendChild(el("span", "", name === "Sub-session" ? "sub-session (▾ folds)" : name));
      box.appendChild(item);
    });
    if (this.rows.markers.some((m) => m)) { box.appendChild(el("span", "te-wf-key", "◆ no duration")); }
    if (this.rows.errors.some((e) => e)) {
      const item = el("span", "te-wf-key");
      const sw = el("span", "te-wf-sw te-wf-sw-error");
      item.appendChild(sw);
      item.appendChild(el("span", "", "tool error ✗"));
      box.appendChild(item);
    }
  }

  /* The rows shown (those inside a folded band are not), recomputed when a band folds. */
  refresh() {
    const shown = [];
    const hiddenBands = new Set();
    for (let i = 0; i < this.count; i++) {
      const band = this.rows.bands[i];
      const hidden = band >= 0 && (hiddenBands.has(band) || this.collapsed.has(band));
      if (hidden) { if (this.rows.headers[i]) { hiddenBands.add(i); } continue; }
      shown.push(i);
    }
    this.shown = shown;
    this.place = new Map(shown.map((row, i) => [row, i]));
    const height = Math.min(MAX_BODY, Math.max(ROW * 3, shown.length * ROW + 2));
    this.parts.body.style.height = height + "px";
    this.parts.spacer.style.height = (shown.length * ROW) + "px";
    this.host.setAttribute("data-rows-shown", String(shown.length));
    this.schedule();
  }

  schedule() {
    if (this.frame) { return; }
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.render(); });
  }

  trackBox() {
    const box = this.parts.ticks.getBoundingClientRect();
    return {left: box.left, width: box.width};
  }

  x(value) { return (value - this.view[0]) / (this.view[1] - this.view[0]) * 100; }

  render() {
    if (!this.rows) { return; }
    const body = this.parts.body;
    const first = Math.max(0, Math.floor(body.scrollTop / ROW) - 6);
    const last = Math.min(this.shown.length, Math.ceil((body.scrollTop + body.clientHeight) / ROW) + 6);
    const rows = this.rows;
    const frag = document.createDocumentFragment();
    for (let p = first; p < last; p++) {
      const i = this.shown[p];
      const row = el("div", "te-wf-row" + (rows.ids[i] === this.selected ? " te-selected" : "")
                     + (rows.headers[i] ? " te-wf-header" : ""));
      row.style.top = (p * ROW) + "px";
      row.setAttribute("data-row", String(i));
      row.setAttribute("data-step", rows.ids[i]);
      const label = el("div", "te-wf-label");
      label.style.paddingLeft = (6 + rows.depths[i] * INDENT) + "px";
      if (rows.headers[i]) {
        const toggle = el("button", "te-wf-toggle", this.collapsed.has(i) ? "▸" : "▾");
        toggle.type = "button";
        toggle.setAttribute("data-toggle", String(i));
        toggle.setAttribute("aria-expanded", this.collapsed.has(i) ? "false" : "true");
        toggle.title = this.collapsed.has(i) ? "Show this sub-session's steps" : "Fold this sub-session";
        label.appendChild(toggle);
      }
      const sw = el("span", "te-wf-sw");
      sw.style.background = rows.colours[rows.kinds[i]];
      label.appendChild(sw);
      label.appendChild(el("span", "te-wf-text" + (rows.errors[i] ? " te-wf-error-text" : ""), rows.labels[i]));
      label.title = rows.labels[i];  // the whole label on hover, where the column cuts it (a text property: no markup)
      row.appendChild(label);
      const track = el("div", "te-wf-track");
      const lane = el("div", "te-wf-lane");  // inset, so a diamond at either end is drawn whole
      track.appendChild(lane);
      const colour = rows.colours[rows.kinds[i]];
      if (rows.markers[i]) {
        const mark = el("div", "te-wf-marker" + (rows.errors[i] ? " te-wf-err" : ""));
        mark.style.left = this.x(rows.starts[i]) + "%";
        mark.style.background = colour;
        lane.appendChild(mark);
      } else {
        const span = el("div", (rows.headers[i] ? "te-wf-band" : "te-wf-span") + (rows.errors[i] ? " te-wf-err" : ""));
        const left = this.x(rows.starts[i]), right = this.x(rows.ends[i]);
        span.style.left = left + "%";
        span.style.width = "max(2px, " + (right - left) + "%)";
        span.style.background = rows.headers[i] ? "transparent" : colour;
        if (rows.headers[i]) { span.style.borderColor = colour; }
        lane.appendChild(span);
      }
      row.appendChild(track);
      frag.appendChild(row);
    }
    this.rowsEl.replaceChildren(frag);
    this.ticks();
    this.minimap(first, last);
    this.host.setAttribute("data-te-waterfall", "drawn");
  }

  ticks() {
    const box = this.parts.ticks;
    const width = box.clientWidth || 400;
    const span = this.view[1] - this.view[0];
    let step = niceStep(span, Math.max(2, Math.floor(width / 90)));
    if (this.rows.axis === "order") { step = Math.max(1, Math.round(step)); }
    const frag = document.createDocumentFragment();
    // on the order axis a tick names a step: none before the first or after the last
    const last = this.rows.axis === "order" ? Math.min(this.view[1], this.count - 1) : this.view[1];
    const first = this.rows.axis === "order" ? Math.max(this.view[0], 0) : this.view[0];
    for (let v = Math.ceil(first / step) * step; v <= last; v += step) {
      const at = this.x(v);
      const tick = el("span", "te-wf-tick", formatTime(v, step, this.rows.axis));
      tick.style.left = at + "%";
      // the first and last labels stay inside the axis
      tick.style.transform = at > 94 ? "translateX(-100%)" : at < 4 ? "translateX(0)" : "translateX(-50%)";
      frag.appendChild(tick);
    }
    box.replaceChildren(frag);
  }

  minimap(first, last) {
    const canvas = this.parts.mini;
    const width = canvas.clientWidth || 400;
    const ratio = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(width * ratio)) { canvas.width = Math.round(width * ratio); canvas.height = Math.round(MINI * ratio); }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, MINI);
    if (!this.minimapImage || this.minimapKey !== this.key + ":" + width) {
      this.minimapKey = this.key + ":" + width;
      const off = document.createElement("canvas");
      off.width = Math.round(width * ratio);
      off.height = Math.round(MINI * ratio);
      const c = off.getContext("2d");
      c.setTransform(ratio, 0, 0, ratio, 0, 0);
      const rows = this.rows, n = Math.max(1, this.count);
      const fx = (v) => (v - this.full[0]) / (this.full[1] - this.full[0]) * width;
      const h = Math.max(1, (MINI - 4) / n);
      for (let i = 0; i < this.count; i++) {
        const y = 2 + i * (MINI - 4) / n;
        c.fillStyle = rows.errors[i] ? "#dc2626" : rows.colours[rows.kinds[i]];
        if (rows.headers[i]) { c.globalAlpha = 0.25; }
        const x0 = fx(rows.starts[i]);
        c.fillRect(x0, y, rows.markers[i] ? 1.5 : Math.max(1, fx(rows.ends[i]) - x0), h);
        c.globalAlpha = 1;
      }
      this.minimapImage = off;
    }
    ctx.drawImage(this.minimapImage, 0, 0, width, MINI);
    // the part in view: its time range across, its rows down
    const fx = (v) => (v - this.full[0]) / (this.full[1] - this.full[0]) * width;
    const n = Math.max(1, this.count);
    const top = this.shown.length ? this.shown[Math.min(this.shown.length - 1, Math.floor(this.parts.body.scrollTop / ROW))] : 0;
    const bottom = this.shown.length ? this.shown[Math.min(this.shown.length - 1, Math.max(0, Math.ceil((this.parts.body.scrollTop + this.parts.body.clientHeight) / ROW) - 1))] : 0;
    const y0 = 1 + top * (MINI - 4) / n, y1 = 3 + (bottom + 1) * (MINI - 4) / n;
    const x0 = fx(this.view[0]), x1 = fx(this.view[1]);
    ctx.fillStyle = "rgba(148, 163, 184, 0.28)";
    ctx.fillRect(0, 0, width, MINI);
    ctx.clearRect(x0, y0, x1 - x0, y1 - y0);
    ctx.drawImage(this.minimapImage, x0 * ratio, y0 * ratio, (x1 - x0) * ratio, (y1 - y0) * ratio, x0, y0, x1 - x0, y1 - y0);
    ctx.strokeStyle = "#334155";
    ctx.lineWidth = 1.5;
    ctx.strokeRect(x0 + 0.75, y0 + 0.75, Math.max(2, x1 - x0 - 1.5), Math.max(2, y1 - y0 - 1.5));
  }

  bindMinimap() {
    const canvas = this.parts.mini;
    let drag = null;
    const at = (event) => {
      const box = canvas.getBoundingClientRect();
      const fx = Math.min(1, Math.max(0, (event.clientX - box.left) / Math.max(1, box.width)));
      const fy = Math.min(1, Math.max(0, (event.clientY - box.top) / Math.max(1, box.height)));
      return {t: this.full[0] + fx * (this.full[1] - this.full[0]), row: Math.floor(fy * this.count), px: event.clientX};
    };
    canvas.addEventListener("mousedown", (event) => { drag = at(event); event.preventDefault(); });
    window.addEventListener("mouseup", (event) => {
      if (!drag || !this.rows) { drag = null; return; }
      const end = at(event);
      if (Math.abs(end.px - drag.px) > 4) {
        this.setView([Math.min(drag.t, end.t), Math.max(drag.t, end.t)]);
      } else {
        const half = (this.view[1] - this.view[0]) / 2;
        this.setView([end.t - half, end.t + half]);
      }
      this.scrollToRow(Math.min(this.count - 1, Math.min(drag.row, end.row)), true);
      drag = null;
    });
    canvas.addEventListener("dblclick", () => { this.setView(this.full.slice()); });
  }

  /* The label column's width: drag its edge in the axis header; a double click resets it. */
  bindResize() {
    const handle = this.host.querySelector(".te-wf-resize");
    if (!handle) { return; }
    let start = null;
    handle.addEventListener("mousedown", (event) => {
      const label = this.host.querySelector(".te-wf-axis-label").getBoundingClientRect();
      start = {x: event.clientX, width: label.width};
      event.preventDefault();
    });
    window.addEventListener("mousemove", (event) => {
      if (!start) { return; }
      const total = this.host.getBoundingClientRect().width;
      const width = Math.max(90, Math.min(total * 0.8, start.width + event.clientX - start.x));
      this.host.style.setProperty("--label", width + "px");
      this.schedule();
    });
    window.addEventListener("mouseup", () => { start = null; });
    handle.addEventListener("dblclick", () => { this.host.style.removeProperty("--label"); this.schedule(); });
  }

  setView(range) {
    const span = Math.max(range[1] - range[0], (this.full[1] - this.full[0]) / 5000);
    let lo = range[0], hi = lo + span;
    if (hi > this.full[1]) { hi = this.full[1]; lo = Math.max(this.full[0], hi - span); }
    if (lo < this.full[0]) { lo = this.full[0]; hi = Math.min(this.full[1], lo + span); }
    this.view = [lo, hi];
    this.host.setAttribute("data-view", lo.toFixed(1) + "," + hi.toFixed(1));
    this.schedule();
  }

  zoomAround(at, factor) {
    const lo = at - (at - this.view[0]) * factor, hi = at + (this.view[1] - at) * factor;
    this.setView([lo, hi]);
  }

  zoomBy(what) {
    if (what === "reset") { this.setView(this.full.slice()); return; }
    const i = this.selected !== null ? this.index.get(this.selected) : undefined;
    const centre = i !== undefined && this.rows.starts[i] >= this.view[0] && this.rows.starts[i] <= this.view[1]
      ? (this.rows.starts[i] + this.rows.ends[i]) / 2 : (this.view[0] + this.view[1]) / 2;
    this.zoomAround(centre, what === "in" ? 0.5 : 2);
  }

  scrollToRow(row, centre) {
    let place = this.place.get(row);
    if (place === undefined) { return; }
    const body = this.parts.body;
    const top = place * ROW;
    if (centre || top < body.scrollTop || top + ROW > body.scrollTop + body.clientHeight) {
      body.scrollTop = Math.max(0, top - (centre ? body.clientHeight / 2 : body.clientHeight / 3));
    }
    this.schedule();
  }

  /* Highlight a stop; unfold its band and bring it into view. */
  select(id, reveal) {
    this.selected = id;
    const row = this.index.get(id);
    if (row === undefined) { this.schedule(); return; }
    let band = this.rows.bands[row], opened = false;
    while (band >= 0) { if (this.collapsed.delete(band)) { opened = true; } band = this.rows.bands[band]; }
    if (opened) { this.refresh(); }
    if (reveal) {
      this.scrollToRow(row, false);
      const s = this.rows.starts[row], e = this.rows.ends[row];
      if (e < this.view[0] || s > this.view[1]) {
        const half = (this.view[1] - this.view[0]) / 2;
        this.setView([s - half, s + half]);
      }
    }
    this.host.setAttribute("data-selected", id || "");
    this.schedule();
  }

  clicked(event) {
    const toggle = event.target.closest("[data-toggle]");
    if (toggle) {
      const i = Number(toggle.getAttribute("data-toggle"));
      if (this.collapsed.has(i)) { this.collapsed.delete(i); } else { this.collapsed.add(i); }
      this.refresh();
      return;
    }
    const row = event.target.closest("[data-row]");
    if (!row) { return; }
    const id = this.rows.ids[Number(row.getAttribute("data-row"))];
    this.select(id, false);
    this.trigger(id);
  }

  /* The stop ``by`` rows after the selected one among the rows shown. */
  step(by) {
    if (!this.shown.length) { return; }
    const row = this.index.get(this.selected);
    let place = row === undefined ? -1 : this.place.get(row);
    if (place === undefined) {  // inside a folded band: start from its header
      let band = this.rows.bands[row];
      while (band >= 0 && this.place.get(band) === undefined) { band = this.rows.bands[band]; }
      place = band >= 0 ? this.place.get(band) : 0;
    }
    const next = Math.min(this.shown.length - 1, Math.max(0, place + by));
    const id = this.rows.ids[this.shown[next]];
    if (id === this.selected) { return; }
    this.select(id, true);
    this.trigger(id);
  }

  hover(event) {
    const row = event.target.closest("[data-row]");
    const tip = this.parts.tip;
    if (!row) { tip.style.display = "none"; return; }
    const i = Number(row.getAttribute("data-row"));
    const r = this.rows;
    const lines = [r.labels[i], r.kind_names[r.kinds[i]]];
    if (r.headers[i]) {
      lines.push("from " + formatTime(r.starts[i], 1, r.axis) + " to " + formatTime(r.ends[i], 1, r.axis));
    } else {
      lines.push("duration: " + (r.axis === "order" || r.markers[i] ? "not recorded" : formatMs(r.ends[i] - r.starts[i])));
      if (r.axis === "ms") { lines.push("starts at: " + formatMs(r.starts[i])); }
      if (r.tokens_in[i] !== null || r.tokens_out[i] !== null) {
        lines.push("tokens in / out: " + (r.tokens_in[i] ?? "—") + " / " + (r.tokens_out[i] ?? "—"));
      }
      if (r.models[i] >= 0) { lines.push("model: " + r.model_names[r.models[i]]); }
      if (r.errors[i]) { lines.push("tool call failed ✗"); }
    }
    lines.push(r.ids[i]);
    tip.textContent = lines.join("\n");
    tip.style.display = "block";
    const box = this.host.getBoundingClientRect();
    const left = Math.min(event.clientX - box.left + 14, box.width - tip.offsetWidth - 4);
    tip.style.left = Math.max(0, left) + "px";
    tip.style.top = (event.clientY - box.top + 16) + "px";
  }
}

function typing(event) {
  const target = event.composedPath ? event.composedPath()[0] : event.target;
  if (!target || !target.tagName) { return false; }
  const tag = target.tagName.toUpperCase();
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable;
}

function inViews(event) {
  const path = event.composedPath ? event.composedPath() : [];
  return path.some((node) => node && node.getAttribute && node.getAttribute("data-te-steps"));
}

function onKey(event) {
  if (!current || !current.host.isConnected || event.altKey || event.ctrlKey || event.metaKey || typing(event)) { return; }
  const key = event.key;
  let by = 0;
  if (key === "j") { by = 1; } else if (key === "k") { by = -1; }
  else if (inViews(event) && (key === "ArrowDown" || key === "ArrowRight")) { by = 1; }
  else if (inViews(event) && (key === "ArrowUp" || key === "ArrowLeft")) { by = -1; }
  if (!by) { return; }
  event.preventDefault();
  current.step(by);
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const host = parentElement.querySelector(".te-wf");
  if (!host || !data || !data.rows) { return; }
  let view = host.__teWaterfall;
  if (!view) { view = new Waterfall(host, (id) => setTriggerValue("select", id)); host.__teWaterfall = view; }
  view.trigger = (id) => setTriggerValue("select", id);
  const loaded = view.key !== data.key;
  if (loaded) { view.load(data.rows, data.key); }
  view.select(data.selected, loaded || view.selected !== data.selected);
  current = view;
  if (!keysBound) { document.addEventListener("keydown", onKey); keysBound = true; }
  return () => { if (current === view) { current = null; } };
}
