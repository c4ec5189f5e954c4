(function () {
  "use strict";
  var C = fondueCommon, DATA = C.data(), h = C.h;
  var head = JSON.parse(DATA.head);
  // A key as text from the pair's JSON (keep and merge come first): an
  // integer key beyond 2^53 is shown as it is, not rounded.
  var KEYS = /^\{"keep":(-?\d+|"(?:[^"\\]|\\.)*"),"merge":(-?\d+|"(?:[^"\\]|\\.)*")/;
  var pairs = DATA.pairs.map(function (text) {
    var m = KEYS.exec(text);
    return { text: text, p: JSON.parse(text), keep: C.keyText(m[1]), merge: C.keyText(m[2]), decision: "" };
  });
  pairs.forEach(function (st) { if (st.p.decision !== "undecided") st.decision = st.p.decision; });

  function update(st) {
    if (st.el) {
      st.el.setAttribute("data-decision", st.decision || "undecided");
      st.accept.classList.toggle("on", st.decision === "accept");
      st.reject.classList.toggle("on", st.decision === "reject");
      st.status.className = "status" + (st.decision ? " " + st.decision : "");
      st.status.textContent = st.decision === "accept" ? "accepted: merge" : st.decision === "reject" ? "rejected" : "undecided";
    }
    C.counts(pairs);
  }
  function decide(st, d) {
    st.decision = st.decision === d ? "" : d;
    update(st);
  }
  function name(n, k) { return n ? n : "id " + k; }
  function build(st, rank) {
    var p = st.p;
    var sec = h("section", { "class": "node pair", "data-rank": String(rank), "data-keep": st.keep, "data-merge": st.merge });
    var title = h("h2", { "class": "names" });
    title.appendChild(h("span", { "class": "rank" }, "#" + rank));
    title.appendChild(h("span", { "class": "name keep" }, name(p.keepName, st.keep)));
    title.appendChild(h("span", { "class": "key" }, "id " + st.keep));
    title.appendChild(h("span", { "class": "arrow" }, "\u2190"));
    title.appendChild(h("span", { "class": "name merge" }, name(p.mergeName, st.merge)));
    title.appendChild(h("span", { "class": "key" }, "id " + st.merge));
    sec.appendChild(title);
    var prob = 1 / (1 + Math.exp(-p.score));
    sec.appendChild(h("div", { "class": "stats" }, "score " + p.score.toFixed(3) + " \u00b7 probability " + prob.toFixed(3) +
      " \u00b7 accept merges " + st.merge + " into " + st.keep));
    var bar = h("div", { "class": "bar" });
    st.status = h("span", { "class": "status" });
    st.accept = h("button", { type: "button", "data-action": "accept", title: "Merge these two nodes" }, "Accept");
    st.reject = h("button", { type: "button", "data-action": "reject", title: "Keep them apart; later runs do not propose the pair" }, "Reject");
    st.accept.addEventListener("click", function () { decide(st, "accept"); });
    st.reject.addEventListener("click", function () { decide(st, "reject"); });
    bar.appendChild(st.status);
    bar.appendChild(st.accept);
    bar.appendChild(st.reject);
    sec.appendChild(bar);
    var rs = h("div", { "class": "reasons" });
    (p.reasons || []).forEach(function (r) {
      var sign = r.weight >= 0 ? "+" : "\u2212";
      rs.appendChild(h("span", { "class": "reason", "data-kind": r.kind, title: r.kind + ", weight " + r.weight.toFixed(2) },
        r.value + " (" + sign + Math.abs(r.weight).toFixed(1) + ")"));
    });
    sec.appendChild(rs);
    st.el = sec;
    return sec;
  }

  // The export: the plan as it came, each pair's decision and the time set.
  function planText() {
    var at = new Date().toISOString();
    var body = pairs.map(function (st) {
      return st.text.replace(/"decision":"[a-z]*"/, '"decision":' + JSON.stringify(st.decision || "undecided"));
    });
    return DATA.head.replace('"@reviewedAt@"', JSON.stringify(at)).replace(/"pairs":null/, '"pairs":[' + body.join(",") + "]") + "\n";
  }
  C.exportWith(planText);

  var top = DATA.top > 0 ? Math.min(DATA.top, pairs.length) : pairs.length;
  var meta = ["sync --duplicates --dry-run plan of run " + head.runId];
  if (DATA.input) meta.push(DATA.input);
  if (head.candidateType) meta.push("candidates :" + head.candidateType);
  meta.push(top < pairs.length ? top + " of " + pairs.length + " pairs shown" : pairs.length + " pairs to review");
  meta.push("made " + DATA.generatedAt + (DATA.tool ? " by " + DATA.tool : ""));
  C.meta(meta);
  var main = document.getElementById("nodes");
  pairs.slice(0, top).forEach(function (st, k) { main.appendChild(build(st, k + 1)); update(st); });
  update({});
  if (!pairs.length) main.appendChild(h("p", {}, "No pair to review."));
  window.fondueReview = { planText: planText, ready: true };
})();
