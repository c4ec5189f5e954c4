(function () {
  "use strict";
  var C = fondueCommon, DATA = C.data(), h = C.h, keyText = C.keyText;
  // Okabe-Ito: told apart with most colour-vision deficiencies.
  var COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#8C6D1F", "#000000"];
  var SVGNS = "http://www.w3.org/2000/svg";
  var nodes = [];

  // Past the palette, golden-angle hues (each far from the last ones) at
  // three lightnesses: a colour of its own for any number of groups; the
  // group number on each neighbour tells apart those that look alike.
  function color(g) {
    if (g < COLORS.length) return COLORS[g];
    var k = g - COLORS.length;
    return "hsl(" + ((k * 137.50776 + 20) % 360).toFixed(2) + ", 70%, " + [42, 28, 60][k % 3] + "%)";
  }
  function s(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }
  // Keys travel as JSON text, so that integers past 2^53 stay exact.
  function Raw(t) { this.t = t; }
  function fmt(x, d) { return (typeof x === "number" && isFinite(x)) ? x.toFixed(d) : "?"; }
  function short(name, n) { return name.length > n ? name.slice(0, n - 1) + "\u2026" : name; }

  // ---- state ----
  function groupsOf(st) {
    var gs = [];
    for (var g = 0; g < st.ngroups; g++) gs.push([]);
    for (var i = 0; i < st.assign.length; i++) gs[st.assign[i]].push(i);
    return gs;
  }
  function compact(st) {
    var counts = [], g, i, k = 0, map = [];
    for (g = 0; g < st.ngroups; g++) counts.push(0);
    for (i = 0; i < st.assign.length; i++) counts[st.assign[i]]++;
    for (g = 0; g < st.ngroups; g++) map.push(counts[g] ? k++ : -1);
    for (i = 0; i < st.assign.length; i++) st.assign[i] = map[st.assign[i]];
    st.ngroups = k;
  }
  function isEdited(st) {
    var now = groupsOf(st), was = st.node.groups;
    if (now.length !== was.length) return true;
    for (var g = 0; g < now.length; g++) {
      var a = now[g].slice().sort(function (x, y) { return x - y; });
      var b = was[g].slice().sort(function (x, y) { return x - y; });
      if (a.join(",") !== b.join(",")) return true;
    }
    return false;
  }
  function reset(st) {
    st.assign = [];
    st.ngroups = st.node.groups.length;
    st.node.groups.forEach(function (grp, g) { grp.forEach(function (i) { st.assign[i] = g; }); });
  }
  function move(st, i, target) {
    if (target === st.assign[i]) return;
    if (target >= st.ngroups) { target = st.ngroups; st.ngroups++; }
    st.assign[i] = target;
    compact(st);
    if (st.ngroups < 2 && st.decision === "accept") st.decision = "";
    update(st);
  }
  function nextGroup(st, i) {
    move(st, i, st.ngroups < 2 ? st.ngroups : (st.assign[i] + 1) % st.ngroups);
  }
  function decide(st, d) {
    st.decision = st.decision === d ? "" : d;
    update(st);
  }

  // ---- drawing ----
  function build(node, rank) {
    var st = { node: node, rank: rank, decision: "", assign: [], ngroups: 0 };
    reset(st);
    var sec = h("section", { "class": "node", "data-key": keyText(node.kj), "data-rank": String(rank) });
    var title = h("h2");
    title.appendChild(h("span", { "class": "rank" }, "#" + rank));
    title.appendChild(h("span", { "class": "name" }, node.name));
    if (node.name !== keyText(node.kj)) title.appendChild(h("span", { "class": "key" }, "id " + keyText(node.kj)));
    if (node.labels && node.labels.length) title.appendChild(h("span", { "class": "key" }, ":" + node.labels.join(":")));
    sec.appendChild(title);
    st.stats = h("div", { "class": "stats" });
    sec.appendChild(st.stats);
    var bar = h("div", { "class": "bar" });
    st.status = h("span", { "class": "status" });
    st.accept = h("button", { type: "button", "data-action": "accept", title: "Split this node with the groups shown" }, "Accept");
    st.reject = h("button", { type: "button", "data-action": "reject", title: "Do not split this node" }, "Reject");
    st.reset = h("button", { type: "button", "data-action": "reset", title: "Back to the proposed groups" }, "Reset groups");
    st.accept.addEventListener("click", function () { decide(st, "accept"); });
    st.reject.addEventListener("click", function () { decide(st, "reject"); });
    st.reset.addEventListener("click", function () { reset(st); update(st); });
    st.note = h("span", { "class": "note" });
    [st.status, st.accept, st.reject, st.reset, st.note].forEach(function (e) { bar.appendChild(e); });
    sec.appendChild(bar);
    sec.appendChild(drawing(st));
    if (!DATA.linksKnown) sec.appendChild(h("div", { "class": "stats" }, "Links between neighbours are not shown: the plan does not list them (give review the edge list too)."));
    if (node.linksOmitted) sec.appendChild(h("div", { "class": "stats" }, node.linksOmitted + " more links between neighbours are not drawn."));
    st.groupsEl = h("div", { "class": "groups" });
    sec.appendChild(st.groupsEl);
    st.el = sec;
    return st;
  }

  function drawing(st) {
    var node = st.node, r = node.r, nb = node.nb;
    var pad = r + (node.labelled ? 120 : 24);
    var svgEl = s("svg", { "class": "ego", viewBox: [-pad, -pad, 2 * pad, 2 * pad].join(" "), role: "img" });
    svgEl.appendChild(s("title")).textContent = node.name + " and its " + nb.length + " neighbours";
    var spokes = s("g"), links = s("g"), dots = s("g");
    svgEl.appendChild(spokes); svgEl.appendChild(links); svgEl.appendChild(dots);
    var cr = nb.length > 150 ? 3 : nb.length > 60 ? 4.5 : 7;
    st.circles = []; st.links = []; st.nums = [];
    nb.forEach(function (n, i) {
      spokes.appendChild(s("line", { "class": "spoke", x1: 0, y1: 0, x2: n.x, y2: n.y }));
      var g = s("g", { "class": "nb", "data-nb": String(i), transform: "translate(" + n.x + "," + n.y + ")" });
      var c = s("circle", { r: cr });
      g.appendChild(c);
      // The group number, light on a dark outline: readable on any colour.
      var num = s("text", { "class": "gnum", y: (cr * 0.45).toFixed(1), "text-anchor": "middle", "font-size": Math.max(cr * 1.3, 5).toFixed(1),
        fill: "#fff", stroke: "#000", "stroke-width": (cr / 10).toFixed(2), "paint-order": "stroke", "pointer-events": "none" });
      g.appendChild(num);
      st.nums.push(num);
      var t = s("title");
      t.textContent = n.n + (n.n !== keyText(n.kj) ? " (id " + keyText(n.kj) + ")" : "");
      g.appendChild(t);
      if (node.labelled) {
        var a = Math.atan2(n.y, n.x) * 180 / Math.PI, left = n.x < -0.01;
        var txt = s("text", { x: left ? -(cr + 4) : cr + 4, y: 4, "text-anchor": left ? "end" : "start",
          transform: "rotate(" + (left ? a + 180 : a).toFixed(1) + ")" });
        txt.textContent = short(n.n, 18);
        g.appendChild(txt);
      }
      dots.appendChild(g);
      st.circles.push(c);
    });
    for (var k = 0; k + 1 < node.links.length; k += 2) {
      var p = nb[node.links[k]], q = nb[node.links[k + 1]];
      var cx = (p.x + q.x) * 0.3, cy = (p.y + q.y) * 0.3;
      var path = s("path", { d: "M" + p.x + " " + p.y + "Q" + cx.toFixed(1) + " " + cy.toFixed(1) + " " + q.x + " " + q.y });
      links.appendChild(path);
      st.links.push([node.links[k], node.links[k + 1], path]);
    }
    var center = s("g", { "class": "center" });
    center.appendChild(s("circle", { r: 11 }));
    var ct = s("text", { y: -18, "text-anchor": "middle" });
    ct.textContent = short(node.name, 24);
    center.appendChild(ct);
    svgEl.appendChild(center);
    return svgEl;
  }

  function update(st) {
    var node = st.node, gs = groupsOf(st), edited = isEdited(st);
    st.circles.forEach(function (c, i) { c.setAttribute("fill", color(st.assign[i])); st.nums[i].textContent = String(st.assign[i] + 1); });
    st.links.forEach(function (l) {
      var same = st.assign[l[0]] === st.assign[l[1]];
      l[2].setAttribute("class", same ? "link" : "link cross");
      if (same) l[2].setAttribute("stroke", color(st.assign[l[0]])); else l[2].removeAttribute("stroke");
    });
    st.stats.textContent = "";
    var stats = [["ambiguity", fmt(node.ambiguity, 4)], ["percentile", fmt(node.ambiguity * 100, 1)], ["score", fmt(node.score, 3)]];
    if (node.entities) stats.push(["estimated entities:", String(node.entities)]);
    stats.push(["neighbours", String(node.nb.length)], ["groups", gs.map(function (g) { return g.length; }).join(" + ")]);
    stats.forEach(function (kv, k) {
      if (k) st.stats.appendChild(document.createTextNode(" \u00b7 "));
      st.stats.appendChild(document.createTextNode(kv[0] + " "));
      st.stats.appendChild(h("b", {}, kv[1]));
    });
    var label = st.decision === "accept" ? (edited ? "accepted, edited" : "accepted") :
      st.decision === "reject" ? "rejected" : (edited ? "edited, undecided" : "undecided");
    st.status.textContent = label;
    st.status.className = "status " + (st.decision || (edited ? "edited" : ""));
    st.el.setAttribute("data-decision", st.decision || "undecided");
    st.el.setAttribute("data-edited", edited ? "true" : "false");
    st.accept.classList.toggle("on", st.decision === "accept");
    st.reject.classList.toggle("on", st.decision === "reject");
    st.accept.disabled = st.ngroups < 2;
    st.reset.disabled = !edited;
    st.note.textContent = st.ngroups < 2 ? "one group: nothing to split (drag a neighbour onto \u201cnew group\u201d)" : "";
    // group lists
    st.groupsEl.textContent = "";
    gs.forEach(function (grp, g) {
      var box = h("div", { "class": "group", "data-drop": String(g) });
      var head = h("h3");
      var sw = h("span", { "class": "swatch" });
      sw.style.background = color(g);
      head.appendChild(sw);
      head.appendChild(document.createTextNode("Group " + (g + 1) + (g === 0 ? " \u00b7 stays" : " \u00b7 new node") + " \u00b7 " + grp.length));
      box.appendChild(head);
      var chips = h("div", { "class": "chips" });
      grp.slice().sort(function (a, b) { return node.nb[a].n.localeCompare(node.nb[b].n, undefined, { numeric: true }); }).forEach(function (i) {
        var chip = h("button", { type: "button", "class": "chip", "data-nb": String(i), title: "id " + keyText(node.nb[i].kj) }, node.nb[i].n);
        chip.style.borderColor = color(g);
        chips.appendChild(chip);
      });
      box.appendChild(chips);
      var rs = !edited && node.reasons ? node.reasons[g] || [] : [];
      if (rs.length) box.appendChild(reasonsEl(rs));
      st.groupsEl.appendChild(box);
    });
    st.groupsEl.appendChild(h("div", { "class": "group new", "data-drop": "new" }, "+ new group"));
    counts();
  }

  // reasonsEl lists what a group's pieces share (the venues, keywords,
  // years that made them one group), strongest first.
  function reasonsEl(rs) {
    var box = h("div", { "class": "reasons" });
    box.appendChild(h("span", { "class": "why" }, "one group by shared"));
    rs.forEach(function (r) {
      box.appendChild(h("span", { "class": "reason", title: r.k + ": " + r.v + " (weight " + fmt(r.w, 2) + ")" }, r.k + " " + short(r.v, 40)));
    });
    return box;
  }

  function counts() { C.counts(nodes); }

  // ---- click and drag ----
  var drag = null, ghost = document.getElementById("ghost");
  function stateOf(e) {
    var sec = e.closest("section.node");
    return sec ? nodes[Number(sec.getAttribute("data-rank")) - 1] : null;
  }
  function dropTarget(st, x, y) {
    var e = document.elementFromPoint(x, y);
    if (!e || !st.el.contains(e)) return null;
    var z = e.closest("[data-drop]");
    if (z) return z.getAttribute("data-drop") === "new" ? st.ngroups : Number(z.getAttribute("data-drop"));
    var n = e.closest("[data-nb]");
    if (n) return st.assign[Number(n.getAttribute("data-nb"))];
    return null;
  }
  function highlight(st, x, y) {
    st.el.querySelectorAll(".group.drop").forEach(function (z) { z.classList.remove("drop"); });
    var e = document.elementFromPoint(x, y);
    var z = e && st.el.contains(e) ? e.closest("[data-drop]") : null;
    if (z) z.classList.add("drop");
  }
  document.addEventListener("pointerdown", function (e) {
    if (e.button !== 0) return;
    var t = e.target.closest && e.target.closest("[data-nb]");
    if (!t) return;
    var st = stateOf(t);
    if (!st) return;
    e.preventDefault();
    drag = { st: st, i: Number(t.getAttribute("data-nb")), x: e.clientX, y: e.clientY, moving: false };
  });
  document.addEventListener("pointermove", function (e) {
    if (!drag) return;
    if (!drag.moving && Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 6) {
      drag.moving = true;
      ghost.textContent = drag.st.node.nb[drag.i].n;
      ghost.hidden = false;
    }
    if (drag.moving) {
      ghost.style.left = e.clientX + "px";
      ghost.style.top = e.clientY + "px";
      highlight(drag.st, e.clientX, e.clientY);
    }
  });
  document.addEventListener("pointerup", function (e) {
    if (!drag) return;
    var d = drag;
    drag = null;
    ghost.hidden = true;
    d.st.el.querySelectorAll(".group.drop").forEach(function (z) { z.classList.remove("drop"); });
    if (!d.moving) { nextGroup(d.st, d.i); return; }
    var target = dropTarget(d.st, e.clientX, e.clientY);
    if (target !== null) move(d.st, d.i, target);
  });
  document.addEventListener("pointercancel", function () { drag = null; ghost.hidden = true; });
  // Keyboard: Enter or Space on a chip moves it to the next group.
  document.addEventListener("click", function (e) {
    if (e.detail !== 0) return;
    var t = e.target.closest && e.target.closest(".chip[data-nb]");
    var st = t && stateOf(t);
    if (st) nextGroup(st, Number(t.getAttribute("data-nb")));
  });

  // ---- the approved plan ----
  function plan() {
    var p = { format: "fondue-neo4j-approved-plan", version: 1, reviewedAt: new Date().toISOString(), source: DATA.source };
    if (DATA.input) p.input = DATA.input;
    ["runId", "createdAt", "splitter", "idProperty", "nodeLabels", "relationshipTypes", "displayProperty", "markerLabel", "skipProperties"].forEach(function (k) {
      if (DATA.plan[k] !== undefined && DATA.plan[k] !== "") p[k] = DATA.plan[k];
    });
    p.nodes = []; p.rejected = []; p.undecided = [];
    nodes.forEach(function (st) {
      var node = st.node, nb = node.nb;
      if (st.decision === "accept") {
        var edited = isEdited(st);
        var n = { key: new Raw(node.kj) };
        if (node.ij) n.id = new Raw(node.ij);
        n.name = node.name;
        n.decision = edited ? "edit" : "accept";
        n.ambiguity = node.ambiguity;
        n.score = node.score;
        if (node.entities) n.entities = node.entities;
        n.degree = nb.length;
        n.fingerprint = node.fp;
        n.groups = groupsOf(st).map(function (grp) {
          var o = { neighbors: grp.map(function (i) { return new Raw(nb[i].kj); }) };
          if (node.ij) o.neighborIds = grp.map(function (i) { return new Raw(nb[i].ij); });
          o.names = grp.map(function (i) { return nb[i].n; });
          return o;
        });
        // The reasons hold for the groups as proposed, not for edited ones.
        if (!edited && node.reasons) n.groups.forEach(function (o, g) {
          var rs = node.reasons[g] || [];
          if (rs.length) o.reasons = rs.map(function (r) { return { kind: r.k, value: r.v, weight: r.w }; });
        });
        if (edited) n.proposed = node.groups.map(function (grp) { return grp.map(function (i) { return new Raw(nb[i].kj); }); });
        p.nodes.push(n);
      } else if (st.decision === "reject") {
        var r = { key: new Raw(node.kj) };
        if (node.ij) r.id = new Raw(node.ij);
        r.name = node.name;
        r.fingerprint = node.fp;
        p.rejected.push(r);
      } else {
        p.undecided.push(new Raw(node.kj));
      }
    });
    return p;
  }
  function scalar(v) { return v === null || typeof v !== "object" || v instanceof Raw; }
  function enc(v, ind) {
    if (v instanceof Raw) return v.t;
    if (v === null || v === undefined) return "null";
    if (typeof v !== "object") return JSON.stringify(v);
    var inner = ind + "  ";
    if (Array.isArray(v)) {
      if (v.every(scalar)) return "[" + v.map(function (x) { return enc(x, inner); }).join(", ") + "]";
      return "[\n" + v.map(function (x) { return inner + enc(x, inner); }).join(",\n") + "\n" + ind + "]";
    }
    var keys = Object.keys(v).filter(function (k) { return v[k] !== undefined; });
    return "{\n" + keys.map(function (k) { return inner + JSON.stringify(k) + ": " + enc(v[k], inner); }).join(",\n") + "\n" + ind + "}";
  }
  function planText() { return enc(plan(), "") + "\n"; }
  C.exportWith(planText);

  // ---- start ----
  var meta = [];
  meta.push(DATA.source === "neo4j" ? "sync --dry-run plan" + (DATA.plan.runId ? " of run " + DATA.plan.runId : "") : "edge list");
  if (DATA.input) meta.push(DATA.input);
  if (DATA.graphNodes) meta.push(DATA.graphNodes + " nodes, " + DATA.graphEdges + " edges");
  if (DATA.splitter) meta.push("splitter " + DATA.splitter);
  meta.push(DATA.nodes.length + " nodes to review");
  meta.push("made " + DATA.generatedAt + (DATA.tool ? " by " + DATA.tool : ""));
  C.meta(meta);
  var main = document.getElementById("nodes");
  DATA.nodes.forEach(function (node, k) {
    var st = build(node, k + 1);
    nodes.push(st);
    main.appendChild(st.el);
  });
  nodes.forEach(update);
  if (!nodes.length) main.appendChild(h("p", {}, "No node to review."));
  window.fondueReview = { plan: plan, planText: planText, ready: true };
})();
