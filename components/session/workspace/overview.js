/* The graph's overview map, as Jaeger's trace minimap: the whole session's shape drawn small in
 * a corner of the graph (a dot per node in its kind's colour, a line per edge) with the part in
 * view framed. A click or a drag on it moves the view there, at the same scale, so the labels
 * stay readable while the whole shape is in sight. Shown only while the graph is larger than
 * the view. Redrawn whenever vis-network draws (``afterDrawing``). */
const OVERVIEW_W = 220;   // px, the overview's box (at most; a flat graph gets a lower one)
const OVERVIEW_H = 96;
const OVERVIEW_PAD = 60;  // canvas px around the outermost nodes

class Overview {
  constructor(graph) {
    this.graph = graph;
    this.box = document.createElement("canvas");
    this.box.className = "te-dag-overview";
    this.box.title = "The whole graph: click or drag to move the view there";
    this.box.hidden = true;
    graph.canvas.appendChild(this.box);
    graph.network.on("afterDrawing", () => this.draw());
    let dragging = false;
    this.box.addEventListener("mousedown", (event) => {
      dragging = true;
      this.moveTo(event);
      event.preventDefault();
      event.stopPropagation();
    });
    const page = {signal: graph.ws.outside ? graph.ws.outside.signal : undefined};
    window.addEventListener("mousemove", (event) => { if (dragging) { this.moveTo(event); } }, page);
    window.addEventListener("mouseup", () => { dragging = false; }, page);
  }

  /* The outermost nodes' box in canvas px, with OVERVIEW_PAD around it, or null. */
  bounds(places) {
    const ids = Object.keys(places);
    if (!ids.length) { return null; }
    let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    ids.forEach((k) => { const p = places[k]; minX = Math.min(minX, p.x); maxX = Math.max(maxX, p.x);
                         minY = Math.min(minY, p.y); maxY = Math.max(maxY, p.y); });
    return {x: minX - OVERVIEW_PAD, y: minY - OVERVIEW_PAD, w: maxX - minX + 2 * OVERVIEW_PAD,
            h: maxY - minY + 2 * OVERVIEW_PAD};
  }

  /* The part of the graph in view, in canvas px. */
  inView() {
    const net = this.graph.network, c = this.graph.canvas;
    const a = net.DOMtoCanvas({x: 0, y: 0}), b = net.DOMtoCanvas({x: c.clientWidth, y: c.clientHeight});
    return {x: a.x, y: a.y, w: b.x - a.x, h: b.y - a.y};
  }

  draw() {
    const places = this.graph.network.getPositions();
    const all = this.bounds(places);
    const view = this.inView();
    const whole = !all || (view.x <= all.x && view.y <= all.y && view.x + view.w >= all.x + all.w
                           && view.y + view.h >= all.y + all.h);
    this.box.hidden = whole;
    this.graph.host.setAttribute("data-overview", whole ? "hidden" : "shown");
    if (whole) { return; }
    const k = Math.min(OVERVIEW_W / all.w, OVERVIEW_H / all.h);
    const w = Math.max(40, Math.ceil(all.w * k)), h = Math.max(24, Math.ceil(all.h * k));
    const ratio = window.devicePixelRatio || 1;
    if (this.box.width !== w * ratio || this.box.height !== h * ratio) {
      this.box.width = w * ratio;
      this.box.height = h * ratio;
      this.box.style.width = w + "px";
      this.box.style.height = h + "px";
    }
    this.map = {x: all.x, y: all.y, k: k, all: all};
    const at = (p) => [(p.x - all.x) * k, (p.y - all.y) * k];
    const ctx = this.box.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.fillStyle = "rgba(255, 255, 255, 0.94)";
    ctx.fillRect(0, 0, w, h);
    ctx.strokeStyle = "#cbd5e1";
    ctx.lineWidth = 1;
    this.graph.edges.get().forEach((e) => {
      if (!places[e.from] || !places[e.to]) { return; }
      const [x1, y1] = at(places[e.from]), [x2, y2] = at(places[e.to]);
      ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke();
    });
    let drawn = 0;
    this.graph.nodes.get().forEach((n) => {
      if (!places[n.id]) { return; }
      const [x, y] = at(places[n.id]);
      ctx.fillStyle = (n.color && (n.color.border || n.color.background)) || "#64748b";
      ctx.beginPath(); ctx.arc(x, y, n.id === this.graph.selected ? 4 : 2.5, 0, 2 * Math.PI); ctx.fill();
      drawn += 1;
    });
    this.box.setAttribute("data-nodes", String(drawn));
    const [vx, vy] = at(view);
    ctx.strokeStyle = "#2563eb";
    ctx.lineWidth = 1.5;
    ctx.strokeRect(vx, vy, view.w * k, view.h * k);
  }

  /* Centre the view on the overview's point under ``event``, at the same scale, kept where it
   * shows as much of the graph as it can (never an empty half beyond the graph's edges). */
  moveTo(event) {
    if (!this.map) { return; }
    const box = this.box.getBoundingClientRect();
    const all = this.map.all, view = this.inView();
    const keep = (v, lo, size, span) => (span >= size ? lo + size / 2 : Math.max(lo + span / 2, Math.min(lo + size - span / 2, v)));
    const x = keep(this.map.x + (event.clientX - box.left) / this.map.k, all.x, all.w, view.w);
    const y = keep(this.map.y + (event.clientY - box.top) / this.map.k, all.y, all.h, view.h);
    this.graph.network.moveTo({position: {x: x, y: y}, scale: this.graph.network.getScale(), animation: false});
  }
}
