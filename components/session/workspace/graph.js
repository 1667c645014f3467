/* The provenance graph, drawn by vis-network (globalThis.vis: sent when the graph is first shown, see workspace.js).
 * Layered: a node's level (views/dag/layout.py) is its column, left to right, its slot its row;
 * no wrapping, so no edge wraps around. Nodes are filled with a light tint of their kind's
 * colour and bordered in it; labels stay at least 12 px on screen (the view never zooms out
 * below LABEL_SCALE: a long chain pans instead, and the overview map in its corner (overview.js)
 * shows the whole shape and moves the view). The mouse wheel scrolls the page unless the graph
 * has the focus or Ctrl is held; Ctrl + wheel zooms out as far as the whole graph. Tooltips (vis-network shows a string title with
 * innerText: plain text) close when the mouse leaves. The Evidence branch hangs under the main
 * chain: the main nodes keep their places. A long session's folds open and fold again here
 * (folds.js). */
const COLUMN = 170;       // canvas px between levels, at least
const SLOT = 74;          // canvas px between slots of a level
const FONT_PX = 14;
const LABEL_SCALE = 12 / FONT_PX;  // labels at least 12 px on screen
const GRAPH_MIN = 260, GRAPH_MAX = 560;

class Graph {
  constructor(host, ws) {
    this.host = host;
    this.ws = ws;
    this.canvas = host.querySelector(".te-dag-canvas");
    this.legendBox = host.querySelector(".te-legend");
    this.nodes = new vis.DataSet([]);
    this.edges = new vis.DataSet([]);
    this.evidenceOn = false;
    this.selected = null;
    host.__teDag = this;
    this.network = new vis.Network(this.canvas, {nodes: this.nodes, edges: this.edges}, {
      layout: {hierarchical: {enabled: false}, improvedLayout: false, randomSeed: 7},
      physics: {enabled: false},
      interaction: {hover: true, tooltipDelay: 120, keyboard: false, zoomView: false, dragView: true,
                    dragNodes: false, multiselect: false, selectConnectedEdges: false, hoverConnectedEdges: false},
      edges: {smooth: {enabled: false}, color: {color: "#94a3b8", highlight: "#111827", hover: "#475569"},
              arrows: {to: {enabled: true, scaleFactor: 0.7}}, width: 1.3},
      nodes: {font: {size: FONT_PX, face: "Inter, 'Source Sans Pro', system-ui, sans-serif", color: "#111827"},
              margin: 9, borderWidth: 2, borderWidthSelected: 4, labelHighlightBold: false},
    });
    this.network.on("click", (params) => {
      if (params.nodes && params.nodes.length) { this.ws.clickNode(String(params.nodes[0])); }
    });
    this.network.on("hoverNode", () => { this.canvas.style.cursor = "pointer"; });
    this.network.on("blurNode", () => { this.canvas.style.cursor = "default"; });
    this.canvas.addEventListener("mouseleave", () => this.hideTip());
    // vis-network keeps the view's width in proportion when the canvas narrows: the labels
    // would shrink below 12 px
    const readable = () => {  // after a resize: labels of 12 px at least, and never blown up past 1:1
      const scale = this.network.getScale();
      if (!this.nodes.length) { return; }
      if (scale < LABEL_SCALE) { this.showAround(this.selected || this.nodes.getIds()[0]); }
      else if (scale > 1.05) { this.network.moveTo({scale: 1, animation: false}); }
    };
    this.network.on("resize", () => setTimeout(readable, 0));
    new ResizeObserver(() => setTimeout(readable, 30)).observe(this.canvas);
    this.canvas.addEventListener("wheel", (event) => this.wheel(event), {passive: false, capture: true});
    this.overview = new Overview(this);
    host.querySelector(".te-fit").addEventListener("click", () => this.fit());
    this.refold = host.querySelector(".te-refold");
    this.refold.addEventListener("click", () => {
      if (this.folds.foldAll()) { this.draw(); }
      this.ws.graphFollows();
    });
  }

  hideTip() {
    const tip = this.canvas.querySelector("div.vis-tooltip");
    if (tip) { tip.style.visibility = "hidden"; }
  }

  wheel(event) {
    const focused = this.host.contains(this.host.getRootNode().activeElement);
    if (!(event.ctrlKey || event.metaKey || focused)) {
      event.stopImmediatePropagation();  // vis-network never sees it: the page scrolls
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation();
    const scale = this.network.getScale() * (event.deltaY > 0 ? 0.9 : 1.1);
    const box = this.canvas.getBoundingClientRect();
    const at = this.network.DOMtoCanvas({x: event.clientX - box.left, y: event.clientY - box.top});
    // out to the scale that shows the whole graph (labels under 12 px then: the shape, to read
    // it the overview in the corner moves the view at a readable scale), never further
    const next = Math.max(Math.min(LABEL_SCALE, this.wholeScale()), Math.min(2.5, scale));
    const view = this.network.getViewPosition();
    const k = 1 - this.network.getScale() / next;
    this.network.moveTo({scale: next, position: {x: view.x + (at.x - view.x) * k, y: view.y + (at.y - view.y) * k},
                         animation: false});
  }

  /* Draw ``graph`` (the workspace shape's "graph") and, when on, ``evidence``; ``grown``: the
   * same session with more steps, drawn with the view and the opened folds it had. */
  load(graph, evidence, grown) {
    const before = grown && this.network ? {scale: this.network.getScale(), position: this.network.getViewPosition()} : null;
    const opened = grown ? this.folds : null;
    this.graph = graph;
    this.evidence = evidence;
    this.folds = new Folds(graph, this.ws);
    if (opened) { this.folds.keep(opened); }  // the folds the person opened stay open as it grows
    this.draw(!!before);
    if (before) { this.network.moveTo({scale: before.scale, position: before.position, animation: false}); }
  }

  /* The drawn node (or Evidence node) with this id, as drawn now. */
  drawnNode(id) {
    return this.shown.find((n) => n.id === id);
  }

  /* The id of the node that shows step ``s`` now (its part when a fold is open there). */
  nodeOf(s) {
    return s.unit && this.folds.drawnOf.has(s.unit) ? this.folds.drawnOf.get(s.unit) : s.node;
  }

  /* Open a fold, or what is left of one, in place: its next window of parts is drawn. */
  openFold(id) {
    if (!this.folds.openAt(id)) { return; }
    const scale = this.network.getScale(), view = this.network.getViewPosition();
    this.draw(true);  // what comes before the fold keeps its place: its first part is where it was
    this.network.moveTo({scale: scale, position: view, animation: false});
  }

  /* Select the node of step ``s``; ``reveal``: open the fold that holds it and bring it into view. */
  selectStep(s, reveal) {
    if (reveal && s.unit && this.folds.openAround(s.unit)) { this.draw(true); }
    this.select(this.nodeOf(s), reveal);
  }

  /* The Evidence branch on or off; the main chain stays where it is on screen. */
  setEvidence(on) {
    this.evidenceOn = !!on && !!this.evidence;
    const anchor = this.graph.nodes.length ? this.graph.nodes[0].id : null;
    const before = anchor ? this.pointIn(anchor) : null;
    const scale = this.network.getScale();
    this.draw(true);
    if (!before) { return; }
    this.network.moveTo({scale: scale, animation: false});
    const after = this.pointIn(anchor);
    const view = this.network.getViewPosition();
    this.network.moveTo({position: {x: view.x + (after.x - before.x) / scale, y: view.y + (after.y - before.y) / scale},
                         scale: scale, animation: false});
  }

  look(n) {
    const colour = this.ws.kindColour(n.kind);
    const border = n.error ? "#dc2626" : colour;
    const fill = n.role === "folded" ? "#f8fafc" : n.role === "session" ? "#f1f5f9" : tint(colour, 0.28);
    const label = n.error && n.label.indexOf("✗") < 0 ? n.label + " ✗" : n.label;
    const newest = n.id === this.ws.newestNode();
    return {
      id: n.id, label: label, title: n.hover, kind: n.kind, borderWidth: newest ? 4 : 1,
      shape: n.shape === "image" ? "box" : n.shape === "box" ? "box" : "ellipse",
      color: {background: fill, border: border, highlight: {background: fill, border: "#111827"},
              hover: {background: fill, border: border}},
      shapeProperties: {borderDashes: n.role === "folded" || n.role === "session" ? [5, 4] : false},
    };
  }

  /* Draw the graph as its folds now stand; ``keepView``: leave the view where it is (else fit). */
  draw(keepView) {
    const now = this.folds.layout();
    const nodes = now.nodes;
    let edges = now.edges;
    let lowest = 0;
    nodes.forEach((n) => { lowest = Math.max(lowest, n.slot); });
    const extra = [];
    if (this.evidenceOn && this.evidence) {
      let top = Infinity;
      this.evidence.nodes.forEach((n) => { top = Math.min(top, n.slot); });
      this.evidence.nodes.forEach((n) => extra.push(Object.assign({}, n, {slot: lowest + 1 + (n.slot - top)})));
      edges = edges.concat(this.evidence.edges);
    }
    const all = nodes.concat(extra);
    this.shown = all;
    const column = this.columnWidth(all);
    const drawn = all.map((n) => Object.assign(this.look(n), {x: n.level * column, y: n.slot * SLOT}));
    this.nodes.clear();
    this.edges.clear();
    this.nodes.add(drawn);
    this.edges.add(edges.map((e, i) => ({id: "e" + i, from: e.from, to: e.to, title: e.relation,
                                         dashes: e.relation !== "wasDerivedFrom" && e.relation !== "wasGeneratedBy"})));
    let slots = 0;
    all.forEach((n) => { slots = Math.max(slots, n.slot); });
    const height = Math.max(GRAPH_MIN, Math.min(GRAPH_MAX, (slots + 1) * SLOT + 90));
    this.canvas.style.height = height + "px";
    this.network.setSize("100%", height + "px");
    this.drawLegend();
    this.host.setAttribute("data-node-count", String(all.length));
    this.host.setAttribute("data-evidence", this.evidenceOn ? "on" : "off");
    this.host.setAttribute("data-te-dag", "drawn");
    this.refold.hidden = !this.folds.opened();
    if (!keepView) { this.fit(); }
    this.select(this.selected, false);
    this.ws.applyGraphFilter();
  }

  /* The distance between levels that keeps the widest labels of neighbouring levels apart. */
  columnWidth(nodes) {
    const ctx = document.createElement("canvas").getContext("2d");
    ctx.font = FONT_PX + "px Inter, 'Source Sans Pro', system-ui, sans-serif";
    const widest = [];
    nodes.forEach((n) => {
      let w = 0;
      String(n.label || "").split("\n").forEach((line) => { w = Math.max(w, ctx.measureText(line).width); });
      widest[n.level] = Math.max(widest[n.level] || 0, w + 30);
    });
    let column = COLUMN;
    for (let l = 1; l < widest.length; l++) { column = Math.max(column, ((widest[l - 1] || 0) + (widest[l] || 0)) / 2 + 40); }
    return Math.min(360, Math.ceil(column));
  }

  /* The whole graph when it fits at a readable scale; else that scale, the selection in view
   * and as much of the graph around it as the canvas holds (no empty half beyond its ends). */
  fit() {
    this.network.fit({animation: false});
    const scale = this.network.getScale();
    if (scale > 1) { this.network.moveTo({scale: 1, animation: false}); }
    else if (scale < LABEL_SCALE) { this.showAround(this.selected || this.nodes.getIds()[0]); }
  }

  /* The scale at which the whole graph fits the canvas. */
  wholeScale() {
    const all = this.overview.bounds(this.network.getPositions());
    if (!all) { return 1; }
    return Math.min(this.canvas.clientWidth / all.w, this.canvas.clientHeight / all.h);
  }

  showAround(id) {
    const places = this.network.getPositions();
    const ids = Object.keys(places);
    if (!ids.length || !places[id]) { return; }
    const scale = LABEL_SCALE + 0.02;
    const halfW = this.canvas.clientWidth / scale / 2, halfH = this.canvas.clientHeight / scale / 2;
    let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    ids.forEach((k) => { const p = places[k]; minX = Math.min(minX, p.x); maxX = Math.max(maxX, p.x);
                         minY = Math.min(minY, p.y); maxY = Math.max(maxY, p.y); });
    const clamp = (v, lo, hi) => (lo > hi ? (lo + hi) / 2 : Math.max(lo, Math.min(hi, v)));
    const x = clamp(places[id].x, minX - 90 + halfW, maxX + 90 - halfW);
    const y = clamp(places[id].y, minY - 50 + halfH, maxY + 50 - halfH);
    this.network.moveTo({position: {x: x, y: y}, scale: scale, animation: false});
  }

  select(id, reveal) {
    this.selected = id && this.nodes.get(id) ? id : null;
    if (this.selected) {
      this.network.selectNodes([this.selected], false);
      this.host.setAttribute("data-selected", this.selected);
      if (reveal && !this.visible(this.selected)) { this.showAround(this.selected); }
    } else {
      this.network.unselectAll();
      this.host.removeAttribute("data-selected");
    }
  }

  /* Dim the nodes that hold no matching step; thicken the critical path's edges and the border
     of the nodes that back the answer's chosen sentence (``supporting``: node ids). */
  shade(matching, critical, supporting) {
    const updates = [];
    this.nodes.forEach((n) => {
      const backs = supporting !== undefined && supporting.has(n.id);
      updates.push({id: n.id, opacity: matching === null || matching.has(n.id) ? 1 : 0.25, borderWidth: backs ? 5 : 2,
                    shapeProperties: {borderDashes: n.shapeProperties ? n.shapeProperties.borderDashes : false}});
    });
    this.nodes.update(updates);
    const edgeUpdates = [];
    this.edges.forEach((e) => {
      const on = critical !== null && critical.has(e.from) && critical.has(e.to) && e.from !== e.to;
      edgeUpdates.push({id: e.id, width: on ? 4 : 1.3, color: on ? {color: "#ea580c", highlight: "#ea580c"} : undefined});
    });
    this.edges.update(edgeUpdates);
    this.host.setAttribute("data-dimmed", String(updates.filter((u) => u.opacity < 1).length));
    this.host.setAttribute("data-supporting", String(updates.filter((u) => u.borderWidth > 2).length));
  }

  visible(id) {
    const p = this.pointIn(id);
    return p && p.x > 20 && p.y > 20 && p.x < this.canvas.clientWidth - 20 && p.y < this.canvas.clientHeight - 20;
  }

  pointIn(id) {
    const pos = this.network.getPositions([id])[id];
    return pos ? this.network.canvasToDOM(pos) : null;
  }

  /* A node's centre in the page's pixels (for tests and benchmarks). */
  pointOf(id) {
    const p = this.pointIn(id);
    if (!p) { return null; }
    const box = this.canvas.getBoundingClientRect();
    return {x: box.left + p.x, y: box.top + p.y};
  }

  /* The legend of what is drawn. With an Evidence branch it always lists the branch's entries
   * too (faded while the switch is off), so switching it never rewraps the legend and moves the
   * graph down the page. */
  drawLegend() {
    clear(this.legendBox);
    const main = new Set((this.graph.legend || []).map((e) => e.label));
    const entries = this.evidence ? this.evidence.legend : this.graph.legend;
    (entries || []).forEach((e) => {
      const off = !this.evidenceOn && !main.has(e.label);
      const item = el("span", "te-legend-item" + (off ? " te-legend-off" : ""));
      if (off) { item.title = "Drawn with Evidence on"; }
      const sw = el("span", "te-sw te-sw-" + String(e.swatch).replace(/[^a-z]/g, ""));
      const kind = e.kind ? this.ws.kindColour(e.kind, null) : null;
      sw.style.background = e.swatch === "arrow" ? "transparent" : kind ? tint(kind, 0.28) : e.fill;
      sw.style.borderColor = e.border;
      if (e.dashed) { sw.style.borderStyle = "dashed"; }
      item.appendChild(sw);
      item.appendChild(el("span", "", e.label));
      this.legendBox.appendChild(item);
    });
  }
}
