/* Trace Explorer's DAG drawing, shared by the app's DAG component and the exported page.
 *
 * Needs vis-network (globalThis.vis, inlined from the pyvis package). Defines
 * globalThis.TraceExplorerDag with:
 *   draw(host, graph, hooks) -> view   the app: a legend, a canvas and a "Fit" button in host
 *   adopt(network, nodes, edges, host, graph, hooks) -> view   the exported page: pyvis's network
 * graph = {nodes, edges, options, legend, key} as views/dag.py builds it: every node has
 * level and slot (views/dag/layout.py), hover (plain text) and kind.
 * hooks = {click(nodeId)} is called when a node is clicked. The wheel scrolls the page; Ctrl +
 * wheel zooms the graph.
 * view.update(graph), view.select(nodeId, reveal), view.pointOf(nodeId), view.fit().
 *
 * Levels run left to right and wrap into rows as words do, the number per row chosen so that
 * the whole graph is drawn at the largest scale the canvas allows; a row is as tall as its
 * fullest level. Trace text reaches the DOM only through textContent (legend) and vis-network's
 * tooltip, which shows a string title with innerText.
 */
(function (root) {
  "use strict";
  var COLUMN = 150;   // canvas px between levels, at least (wider when the labels are)
  var ROW = 66;       // canvas px between slots of a level
  var GAP = 54;       // canvas px between rows
  var MAX_HEIGHT = 640;
  var MIN_HEIGHT = 240;
  var MIN_SCALE = 0.55;  // below this the view zooms in on the selection instead of fitting

  /* The distance between levels that keeps the widest nodes of any two neighbouring levels
   * apart (labels measured in their own font; a node is its label plus its margins). */
  function columnWidth(nodes) {
    var ctx = document.createElement("canvas").getContext("2d");
    var widest = [];
    nodes.forEach(function (n) {
      ctx.font = ((n.font && n.font.size) || 14) + "px " + ((n.font && n.font.face) || "sans-serif");
      var text = 0;
      String(n.label || "").split("\n").forEach(function (line) { text = Math.max(text, ctx.measureText(line).width); });
      widest[n.level] = Math.max(widest[n.level] || 0, text + 2 * ((n.margin || 9) + 3));
    });
    var column = COLUMN;
    for (var level = 1; level < widest.length; level++) {
      column = Math.max(column, ((widest[level - 1] || 0) + (widest[level] || 0)) / 2 + 36);
    }
    return Math.min(400, Math.ceil(column));
  }

  /* Positions for nodes (each with level and slot) wrapped into rows of perRow levels. */
  function placeRows(nodes, perRow, column) {
    var rows = [];
    nodes.forEach(function (n) {
      var row = Math.floor(n.level / perRow);
      rows[row] = Math.max(rows[row] || 0, n.slot + 1);
    });
    var tops = [], top = 0;
    for (var r = 0; r < rows.length; r++) { tops[r] = top; top += (rows[r] || 0) * ROW + ((rows[r] || 0) ? GAP : 0); }
    var places = {};
    nodes.forEach(function (n) {
      var row = Math.floor(n.level / perRow);
      places[n.id] = {x: (n.level % perRow) * column, y: tops[row] + n.slot * ROW, row: row};
    });
    var columns = Math.min(perRow, 1 + nodes.reduce(function (m, n) { return Math.max(m, n.level); }, 0));
    return {places: places, width: columns * column, height: Math.max(ROW, top - GAP)};
  }

  /* The wrap that draws the whole graph largest in a width x maxHeight canvas; of the wraps
   * nearly as large (within 8%, or at 0.8 and above), the one with the fewest rows. */
  function bestRows(nodes, width, maxHeight, column) {
    var levels = 1 + nodes.reduce(function (m, n) { return Math.max(m, n.level); }, 0);
    var tried = [];
    for (var per = 1; per <= levels; per++) {
      var rows = Math.ceil(levels / per);
      if (per > 1 && Math.ceil(levels / (per - 1)) === rows) { continue; }  // same rows, narrower
      var placed = placeRows(nodes, per, column);
      var scale = Math.min(1, (width - 40) / (placed.width + 10), (maxHeight - 40) / (placed.height + 60));
      tried.push({per: per, scale: scale, placed: placed});
    }
    var top = tried.reduce(function (m, t) { return Math.max(m, t.scale); }, 0);
    return tried.filter(function (t) { return t.scale >= Math.min(0.8, top * 0.92); })
                .reduce(function (a, b) { return b.per > a.per ? b : a; });
  }

  function arrange(nodeSet, edgeSet, width, maxHeight) {
    var nodes = nodeSet.get({fields: ["id", "level", "slot", "label", "font", "margin"]});
    var best = bestRows(nodes, width, maxHeight, columnWidth(nodes));
    var places = best.placed.places;
    nodeSet.update(nodes.map(function (n) { return {id: n.id, x: places[n.id].x, y: places[n.id].y}; }));
    // an edge that leaves a row for the next one bends down through the gap between the rows,
    // dashed; an edge down a level past other nodes bows aside so it does not run through them
    edgeSet.update(edgeSet.get({fields: ["id", "from", "to"]}).map(function (e) {
      var a = places[e.from], b = places[e.to];
      if (!a || !b) { return {id: e.id}; }
      if (a.row !== b.row) {
        return {id: e.id, dashes: [5, 4],
                smooth: {enabled: true, type: "cubicBezier", forceDirection: "vertical", roundness: 0.9}};
      }
      if (a.x === b.x && Math.abs(a.y - b.y) > ROW * 1.5) {  // bowed about 45 px out
        var bow = Math.max(0.15, Math.min(0.8, 90 / Math.abs(a.y - b.y)));
        return {id: e.id, dashes: false, smooth: {enabled: true, type: "curvedCW", roundness: bow}};
      }
      return {id: e.id, dashes: false, smooth: {enabled: false}};
    }));
    return best;
  }

  function tooltips(nodeSet) {
    var updates = [];
    nodeSet.forEach(function (n) { if (typeof n.hover === "string") { updates.push({id: n.id, title: n.hover}); } });
    nodeSet.update(updates);
  }

  function legend(box, entries) {
    while (box.firstChild) { box.removeChild(box.firstChild); }
    (entries || []).forEach(function (e) {
      var item = document.createElement("span");
      item.className = "te-legend-item";
      var sw = document.createElement("span");
      sw.className = "te-sw te-sw-" + String(e.swatch).replace(/[^a-z]/g, "");
      sw.style.background = e.swatch === "arrow" ? "transparent" : e.fill;
      sw.style.borderColor = e.border;
      if (e.dashed) { sw.style.borderStyle = "dashed"; }
      if (e.swatch === "house") { sw.style.borderColor = "transparent"; sw.style.background = e.fill; }
      var text = document.createElement("span");
      text.textContent = e.label;
      item.appendChild(sw);
      item.appendChild(text);
      box.appendChild(item);
    });
  }

  function View(network, nodeSet, edgeSet, parts, hooks) {
    this.network = network;
    this.nodes = nodeSet;
    this.edges = edgeSet;
    this.parts = parts;
    this.hooks = hooks || {};
    this.selected = null;
    var self = this;
    network.on("click", function (params) {
      if (params.nodes && params.nodes.length) {
        var id = String(params.nodes[0]);
        self.select(id, false);
        if (self.hooks.click) { self.hooks.click(id); }
      } else {
        self.select(self.selected, false);  // a click on the background keeps the selection
      }
    });
    network.on("hoverNode", function () { parts.canvas.style.cursor = "pointer"; });
    network.on("blurNode", function () { parts.canvas.style.cursor = "default"; });
    if (parts.fit) { parts.fit.addEventListener("click", function () { self.fit(true); }); }
    // the wheel scrolls the page; with Ctrl (or Cmd) held it zooms the graph: vis-network would
    // take every wheel event over the graph, and a page could not be scrolled past it
    parts.canvas.addEventListener("wheel", function (event) {
      if (!(event.ctrlKey || event.metaKey)) { event.stopImmediatePropagation(); }
    }, {passive: true, capture: true});
  }

  View.prototype.layout = function (graph) {
    var width = this.parts.canvas.clientWidth || this.parts.host.clientWidth || 800;
    var fixedHeight = this.parts.fixedHeight;
    var best = arrange(this.nodes, this.edges, width, fixedHeight || MAX_HEIGHT);
    if (!fixedHeight) {
      var wanted = Math.max(MIN_HEIGHT, Math.min(MAX_HEIGHT, Math.ceil(best.placed.height * Math.max(best.scale, MIN_SCALE) + 70)));
      this.parts.canvas.style.height = wanted + "px";
      this.network.setSize("100%", wanted + "px");
    }
    this.best = best;
    this.parts.host.setAttribute("data-per-row", String(best.per));
    this.parts.host.setAttribute("data-node-count", String(this.nodes.length));
    this.parts.host.setAttribute("data-edge-count", String(this.edges.length));
    this.key = graph.key;
    this.width = width;
  };

  View.prototype.fit = function (animate) {
    this.network.fit({animation: animate ? {duration: 250} : false});
    var scale = this.network.getScale();
    if (scale > 1) {
      this.network.moveTo({scale: 1, animation: false});
    } else if (scale < MIN_SCALE && !animate) {
      var centre = this.selected && this.nodes.get(this.selected) ? this.selected : this.nodes.getIds()[0];
      if (centre !== undefined) { this.network.focus(centre, {scale: 0.8, animation: false}); }
    }
  };

  View.prototype.update = function (graph) {
    this.nodes.clear();
    this.edges.clear();
    this.nodes.add(graph.nodes);
    this.edges.add(graph.edges);
    tooltips(this.nodes);
    if (this.parts.legend) { legend(this.parts.legend, graph.legend); }
    this.layout(graph);
    this.fit(false);
  };

  /* Select a drawn node; reveal: move the view to it when it is off screen. */
  View.prototype.select = function (id, reveal) {
    this.selected = id && this.nodes.get(id) ? id : null;
    if (this.selected) {
      this.network.selectNodes([this.selected], false);
      this.parts.host.setAttribute("data-selected", this.selected);
      if (reveal && !this.visible(this.selected)) {
        this.network.focus(this.selected, {scale: Math.max(this.network.getScale(), MIN_SCALE), animation: {duration: 250}});
      }
    } else {
      this.network.unselectAll();
      this.parts.host.removeAttribute("data-selected");
    }
  };

  View.prototype.visible = function (id) {
    var p = this.pointIn(id);
    var c = this.parts.canvas;
    return p && p.x > 20 && p.y > 20 && p.x < c.clientWidth - 20 && p.y < c.clientHeight - 20;
  };

  /* A node's centre in the canvas's own pixels. */
  View.prototype.pointIn = function (id) {
    var pos = this.network.getPositions([id])[id];
    return pos ? this.network.canvasToDOM(pos) : null;
  };

  /* A node's centre in the page's pixels (for tests and benchmarks). */
  View.prototype.pointOf = function (id) {
    var p = this.pointIn(id);
    if (!p) { return null; }
    var box = this.parts.canvas.getBoundingClientRect();
    return {x: box.left + p.x, y: box.top + p.y};
  };

  View.prototype.resized = function () {
    var width = this.parts.canvas.clientWidth;
    if (width && Math.abs(width - (this.width || 0)) > 24) {
      this.layout({key: this.key});
      this.fit(false);
      this.select(this.selected, false);
    }
  };

  function attach(view, parts) {
    if (typeof ResizeObserver === "function") {
      var observer = new ResizeObserver(function () { view.resized(); });
      observer.observe(parts.host);
      view.observer = observer;
    }
    parts.host.__teDag = view;
    parts.host.setAttribute("data-te-dag", "drawn");
  }

  function options(graph) {
    var base = JSON.parse(JSON.stringify(graph.options || {}));
    base.physics = {enabled: false};
    base.layout = {hierarchical: {enabled: false}, improvedLayout: false, randomSeed: 7};
    return base;
  }

  /* The legend and the Fit button, in a bar put into host before the element "before". */
  function toolbar(host, before) {
    var top = document.createElement("div");
    top.className = "te-dag-top";
    var legendBox = document.createElement("div");
    legendBox.className = "te-legend";
    var fit = document.createElement("button");
    fit.type = "button";
    fit.className = "te-fit";
    fit.textContent = "Fit";
    fit.title = "Show the whole graph";
    top.appendChild(legendBox);
    top.appendChild(fit);
    host.insertBefore(top, before);
    return {legend: legendBox, fit: fit};
  }

  /* The app: the legend, the canvas and the Fit button inside host. */
  function draw(host, graph, hooks) {
    var canvas = document.createElement("div");
    canvas.className = "te-dag-canvas";
    canvas.style.height = MIN_HEIGHT + "px";
    host.appendChild(canvas);
    var bar = toolbar(host, canvas);
    var nodeSet = new root.vis.DataSet([]);
    var edgeSet = new root.vis.DataSet([]);
    var network = new root.vis.Network(canvas, {nodes: nodeSet, edges: edgeSet}, options(graph));
    var parts = {host: host, canvas: canvas, legend: bar.legend, fit: bar.fit};
    var view = new View(network, nodeSet, edgeSet, parts, hooks);
    view.update(graph);
    attach(view, parts);
    return view;
  }

  /* The exported page: pyvis drew the network in container; place, explain and wire it. */
  function adopt(network, nodeSet, edgeSet, container, graph, hooks) {
    network.setOptions({physics: {enabled: false}, edges: {smooth: {enabled: false}}});
    var bar = toolbar(container.parentNode, container);
    var parts = {host: container, canvas: container, legend: bar.legend, fit: bar.fit,
                 fixedHeight: container.clientHeight};
    var view = new View(network, nodeSet, edgeSet, parts, hooks);
    tooltips(nodeSet);
    legend(bar.legend, graph.legend);
    view.layout(graph);
    view.fit(false);
    attach(view, parts);
    return view;
  }

  root.TraceExplorerDag = {draw: draw, adopt: adopt, placeRows: placeRows, bestRows: bestRows};
})(typeof globalThis !== "undefined" ? globalThis : window);
