// What the two review pages share: their data, building elements, keys
// as JSON text, the counts and meta lines of the header, and the export.
var fondueCommon = (function () {
  "use strict";
  return {
    // data is the page's data (the JSON of the fondue-data element).
    data: function () { return JSON.parse(document.getElementById("fondue-data").textContent); },
    // h makes an HTML element with attributes and text.
    h: function (tag, attrs, text) {
      var e = document.createElement(tag);
      for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
      if (text !== undefined) e.textContent = text;
      return e;
    },
    // keyText is a key's text from its JSON (keys travel as JSON text, so
    // that integers past 2^53 stay exact).
    keyText: function (kj) { return kj.charAt(0) === '"' ? JSON.parse(kj) : kj; },
    // counts writes how many of items are accepted, rejected, undecided.
    counts: function (items) {
      var a = 0, r = 0;
      items.forEach(function (x) { if (x.decision === "accept") a++; else if (x.decision === "reject") r++; });
      document.getElementById("counts").textContent = a + " accepted \u00b7 " + r + " rejected \u00b7 " + (items.length - a - r) + " undecided";
    },
    // meta writes the header's line about the page.
    meta: function (parts) { document.getElementById("meta").textContent = parts.join(" \u00b7 "); },
    // exportWith makes the export button download text() as the approved plan.
    exportWith: function (text) {
      document.getElementById("export").addEventListener("click", function () {
        var blob = new Blob([text()], { type: "application/json" });
        var a = document.createElement("a");
        a.href = URL.createObjectURL(blob);
        a.download = "fondue-approved-plan.json";
        document.body.appendChild(a);
        a.click();
        setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 2000);
      });
    }
  };
})();
