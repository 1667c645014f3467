/* A long session's folded graph, opened and folded again in the browser (no trip to the server).
 * The data (views/workspace.py, SHAPE.md): each fold node's "parts" (the nodes it stands for, in
 * reading order), "row" (its parts open left to right, else one under another) and "chain" (each
 * part derives from the one before it); the graph's "fold_edges" (every other edge that touches a
 * part), "open_window" and "max_open".
 *
 * A fold opens in windows of ``open_window`` parts: a click on a fold (or on what is left of one)
 * opens the next window of it, at most ``max_open`` windows stay opened by hand (the oldest folds
 * again), and one more window follows the selected step when it lies inside a fold. What is left
 * of a fold between windows stays one folded node when it holds more than two parts. The nodes
 * after an opened row move right (those under an opened column move down) by what it added, so
 * nothing overlaps; each edge is drawn between the nodes that now show its ends. When a followed
 * session grows, the new graph's folds start with the windows the old ones had opened (``keep``,
 * by their parts' ids), so what the person opened or folded again stays as it was. */
const FOLD_TOOLTIP_PARTS = 200;  // a fold's tooltip lists at most this many of its parts
const HOVER_SECTIONS = 4, HOVER_CHARS = 300;

class Folds {
  constructor(graph, ws) {
    this.ws = ws;
    this.graph = graph;
    this.byId = new Map();   // fold id -> its node
    this.place = new Map();  // part id -> [fold id, its place in the fold]
    graph.nodes.forEach((n) => {
      if (n.role !== "folded" || !n.parts) { return; }
      this.byId.set(n.id, n);
      n.parts.forEach((p, k) => this.place.set(p.id, [n.id, k]));
    });
    this.window = Math.max(1, graph.open_window || 12);
    this.maxOpen = Math.max(1, graph.max_open || 3);
    this.hand = [];      // windows opened by a click, oldest first: {fold, a, b} (parts a to b - 1)
    this.around = null;  // the window around the selected step
    this.drawnOf = new Map();  // part id -> the id of the node that shows it (last layout)
    this.shownParts = new Set();  // the parts drawn as themselves (a fold's id is its first part's)
  }

  opened() { return this.hand.length > 0 || this.around !== null; }

  /* Merged windows of one fold, in order: [[a, b], ...]. */
  windowsOf(id) {
    const list = this.hand.concat(this.around ? [this.around] : []).filter((w) => w.fold === id)
      .map((w) => [w.a, w.b]).sort((x, y) => x[0] - y[0]);
    const merged = [];
    list.forEach(([a, b]) => {
      const last = merged[merged.length - 1];
      if (last && a <= last[1]) { last[1] = Math.max(last[1], b); } else { merged.push([a, b]); }
    });
    return merged;
  }

  /* The node a click on ``id`` opens: a fold, or what is left of one (a gap). Returns true when
   * something opened. */
  openAt(id) {
    const gap = this.gaps && this.gaps.get(id);
    if (!gap) { return false; }
    const [fold, a, b] = gap;
    this.hand = this.hand.filter((w) => !(w.fold === fold && w.a === a));
    this.hand.push({fold: fold, a: a, b: Math.min(b, a + this.window)});
    if (this.hand.length > this.maxOpen) { this.hand.shift(); }
    return true;
  }

  /* A window centred on the part ``part`` (an id of a fold's part) when no node shows it yet;
   * returns true when the drawing changed. */
  openAround(part) {
    const at = this.place.get(part);
    if (!at || this.shownParts.has(part)) { return false; }
    const [fold, k] = at;
    const n = this.byId.get(fold).parts.length;
    const a = Math.max(0, Math.min(k - Math.floor(this.window / 2), n - this.window));
    this.around = {fold: fold, a: a, b: Math.min(n, a + this.window)};
    return true;
  }

  /* Carry over the windows ``old`` (the folds of this graph before the session grew) had
   * opened, by their parts' ids: a fold that grew, or was cut or named anew, keeps the same parts
   * open; a window none of whose parts is folded any more is dropped. */
  keep(old) {
    const moved = (w) => {
      const at = old.byId.get(w.fold).parts.slice(w.a, w.b).map((p) => this.place.get(p.id)).filter((x) => x);
      if (!at.length) { return null; }
      const fold = at[0][0], places = at.filter(([f]) => f === fold).map(([, k]) => k);
      return {fold: fold, a: Math.min(...places), b: Math.max(...places) + 1};
    };
    this.hand = old.hand.map(moved).filter((w) => w).slice(-this.maxOpen);
    this.around = old.around ? moved(old.around) : null;
  }

  foldAll() {
    const had = this.hand.length > 0 || this.around !== null;
    this.hand = [];
    this.around = null;
    return had;
  }

  /* The drawing as it stands: {nodes (each with its level and slot), edges}; ``drawnOf`` and
   * the gaps (id -> [fold, a, b]) are kept for clicks and the selection. */
  layout() {
    const g = this.graph;
    const drawnOf = new Map(), gaps = new Map(), items = new Map();
    this.byId.forEach((fold, id) => {
      const windows = this.windowsOf(id);
      if (!windows.length) {
        fold.parts.forEach((p) => drawnOf.set(p.id, id));
        gaps.set(id, [id, 0, fold.parts.length]);
        return;
      }
      const list = [];
      let at = 0;
      const leftOver = (a, b) => {
        if (b - a > 2) {
          const node = this.gapNode(fold, a, b);
          list.push(node);
          gaps.set(node.id, [id, a, b]);
          for (let k = a; k < b; k++) { drawnOf.set(fold.parts[k].id, node.id); }
        } else {
          for (let k = a; k < b; k++) { list.push(this.partNode(fold.parts[k])); drawnOf.set(fold.parts[k].id, fold.parts[k].id); }
        }
      };
      windows.forEach(([a, b]) => {
        leftOver(at, a);
        for (let k = a; k < b; k++) { list.push(this.partNode(fold.parts[k])); drawnOf.set(fold.parts[k].id, fold.parts[k].id); }
        at = b;
      });
      leftOver(at, fold.parts.length);
      items.set(id, list);
    });
    const rows = [], columns = [];
    items.forEach((list, id) => {
      const fold = this.byId.get(id);
      (fold.row ? rows : columns).push({level: fold.level, slot: fold.slot, extra: list.length - 1});
    });
    const levelShift = (level) => rows.reduce((sum, r) => sum + (r.level < level ? r.extra : 0), 0);
    const slotShift = (level, slot) => columns.reduce((sum, c) => sum + (c.level === level && c.slot < slot ? c.extra : 0), 0);
    const nodes = [];
    g.nodes.forEach((n) => {
      const level = n.level + levelShift(n.level), slot = n.slot + slotShift(n.level, n.slot);
      const list = items.get(n.id);
      if (!list) { nodes.push(Object.assign({}, n, {level: level, slot: slot})); return; }
      const row = this.byId.get(n.id).row;
      list.forEach((item, k) => nodes.push(Object.assign(item, row ? {level: level + k, slot: slot} : {level: level, slot: slot + k})));
    });
    const shown = (id) => drawnOf.get(id) || id;
    const seen = new Set(), edges = [];
    const add = (from, to, relation) => {
      from = shown(from);
      to = shown(to);
      const key = from + "\n" + to;
      if (from === to || seen.has(key)) { return; }
      seen.add(key);
      edges.push({from: from, to: to, relation: relation});
    };
    g.edges.forEach((e) => { if (!items.has(e.from) && !items.has(e.to)) { add(e.from, e.to, e.relation); } });
    items.forEach((list, id) => {
      const fold = this.byId.get(id);
      if (!fold.chain) { return; }
      for (let k = 1; k < fold.parts.length; k++) { add(fold.parts[k].id, fold.parts[k - 1].id, "wasDerivedFrom"); }
    });
    (g.fold_edges || []).forEach((e) => add(e.from, e.to, e.relation));
    this.drawnOf = drawnOf;
    this.shownParts = new Set(nodes.filter((n) => n.role !== "folded" && this.place.has(n.id)).map((n) => n.id));
    this.gaps = gaps;
    return {nodes: nodes, edges: edges};
  }

  partNode(p) {
    return {id: p.id, label: p.label, kind: p.kind || "Iteration", shape: p.shape || "ellipse", role: p.role || "step",
            error: !!p.error, step: p.step === undefined ? p.id : p.step, members: 1, hover: this.hover(p)};
  }

  /* A part's tooltip (plain text): its label, then its step's texts as the inspector shows them, cut. */
  hover(p) {
    const lines = [p.label.split("\n").join(" · ")];
    const step = p.step === undefined ? p.id : p.step;
    const ws = this.ws;
    const s = step !== null && ws.index && ws.index.has(step) ? ws.steps[ws.index.get(step)] : null;
    if (s) {
      lines.push(p.id);
      s.sections.filter((x) => typeof x.text === "string" && x.text).slice(0, HOVER_SECTIONS).forEach((x) => {
        const text = x.text.length > HOVER_CHARS ? x.text.slice(0, HOVER_CHARS) + "…" : x.text;
        lines.push((x.title ? x.title + ": " : "") + text);
      });
    }
    return lines.join("\n");
  }

  /* What is left folded of ``fold`` from part a to part b - 1, as one node. */
  gapNode(fold, a, b) {
    const parts = fold.parts.slice(a, b);
    const kinds = new Set(parts.map((p) => p.kind || "Iteration"));
    const name = kinds.size === 1 && kinds.has("Iteration") ? "iterations"
      : kinds.size === 1 ? [...kinds][0] + " steps" : "steps";
    const tools = new Map();
    parts.forEach((p) => { const t = p.label.split("\n")[1] || p.kind || "Iteration"; tools.set(t, (tools.get(t) || 0) + 1); });
    const common = [...tools].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
    const errors = parts.filter((p) => p.error).length;
    const lines = ["⋯ " + parts.length + " " + name + " folded ⋯"];
    if (parts[0].tag && parts[parts.length - 1].tag) { lines.push(parts[0].tag + " – " + parts[parts.length - 1].tag); }
    lines.push(clip32(common.slice(0, 2).map(([t, n]) => t + " ×" + n).join(", ") + (common.length > 2 ? ", …" : "")));
    if (errors) { lines.push("✗ " + errors + " with a tool error"); }
    const listed = parts.slice(0, FOLD_TOOLTIP_PARTS).map((p) => (p.tag || p.id) + ": " + (p.label.split("\n").slice(1).join(" / ") || p.kind || "Iteration"));
    const more = parts.length > FOLD_TOOLTIP_PARTS ? ["… and " + (parts.length - FOLD_TOOLTIP_PARTS) + " more"] : [];
    return {id: a === 0 ? fold.id : fold.id + " ⋯" + a, label: lines.join("\n"), kind: "Folded", shape: "box",
            role: "folded", error: errors > 0, step: null, members: parts.length,
            hover: parts.length + " " + name + " folded:\n" + listed.concat(more).join("\n") + "\n\nClick to open this run."};
  }
}

function clip32(text) { return text.length > 32 ? text.slice(0, 31) + "…" : text; }
