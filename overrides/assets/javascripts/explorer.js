/*
 * The explorer (docs/<lang>/explorer.md, sizing/render/explorer_render.py). The build writes two JSON
 * files at the site root: data/explorer.json (ids, statuses, bar widths, command lines, heatmap) and
 * data/explorer.<lang>.json (every label and number, formatted for the language), both
 * column-oriented ("fields", "columns": one array per field) with string tables. This script only
 * looks rows up and shows those strings: it does no arithmetic on sizes. The state lives in the URL
 * hash (#model=…&checkpoint=…&precision=…&server=…&kv=…&ctx=32768), so every answer has a link; a link
 * naming only a server ("Other servers" on the fit tables) keeps the model last shown in this tab.
 * A suggestion ("Needs 4 GPUs") links to the case the build chose for it; following it, or a heatmap
 * cell, scrolls the answer into view, and the heatmap marks the answer's cell and server column.
 */
(function () {
  "use strict";

  var cache = {};
  var STORE = "sz-explorer-last";

  function load(url) {
    if (!cache[url]) cache[url] = fetch(url).then(function (r) { return r.json(); });
    return cache[url];
  }

  /* A file's columns back as one array per row (fields order); neutral checkpoints as their ids. */
  function rowsOf(data) {
    var cols = data.columns, rows = [], n = cols.length ? cols[0].length : 0;
    for (var i = 0; i < n; i += 1) rows.push(cols.map(function (c) { return c[i]; }));
    if (data.checkpoints) rows.forEach(function (r) { r[1] = data.checkpoints[r[1]]; });
    return rows;
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function option(select, value, label) {
    var o = el("option", "", label);
    o.value = value;
    select.appendChild(o);
  }

  function readHash() {
    var state = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
      var i = pair.indexOf("=");
      if (i > 0) state[decodeURIComponent(pair.slice(0, i))] = decodeURIComponent(pair.slice(i + 1));
    });
    return state;
  }

  function Explorer(root, m, s) {
    this.root = root; this.m = m; this.s = s;
    m.rows = rowsOf(m); s.rows = rowsOf(s);
    this.form = root.querySelector("form");
    this.out = root.querySelector(".sz-explorer__result");
    this.fields = {};
    var self = this;
    ["model", "variant", "server", "ctx", "kv"].forEach(function (name) {
      self.fields[name] = self.form.querySelector("select[name='" + name + "']");
    });
    m.models.forEach(function (id, i) { option(self.fields.model, id, s.models[i]); });
    m.servers.forEach(function (id, i) { option(self.fields.server, id, s.servers[i]); });
    m.contexts.forEach(function (c, i) { option(self.fields.ctx, String(c), s.contexts[i]); });
    m.kv.forEach(function (kv) { option(self.fields.kv, kv, kv === "auto" ? s.labels.explorer_kv_auto : kv); });
    this.form.addEventListener("change", function (event) {
      if (event.target === self.fields.model) self.fillVariants();
      self.show(true);
    });
    window.addEventListener("hashchange", function () { self.apply(readHash()); });
    var heat = document.querySelector(".sz-heatmap");
    if (heat) heat.addEventListener("click", function (event) {
      if (event.target.closest("a")) self.scrollNext = true;
    });
    this.form.hidden = false;
    this.apply(readHash());
  }

  /* The model's checkpoints: "precision · checkpoint" options, value "checkpoint|precision". */
  Explorer.prototype.fillVariants = function () {
    var model = this.m.models.indexOf(this.fields.model.value), seen = {}, select = this.fields.variant, self = this;
    select.textContent = "";
    this.m.rows.forEach(function (r) {
      var key = r[1] + "|" + self.m.precisions[r[2]];
      if (r[0] !== model || seen[key]) return;
      seen[key] = true;
      option(select, key, self.s.precisions[r[2]] + " · " + r[1]);
    });
  };

  /* The model, checkpoint, KV type and context last shown (this tab), else the default row's. */
  Explorer.prototype.lastModel = function () {
    var m = this.m, d = m.rows[m.default_row], saved = {};
    try { saved = JSON.parse(sessionStorage.getItem(STORE) || "{}"); } catch (e) { saved = {}; }
    if (saved.model && m.models.indexOf(saved.model) >= 0) return saved;
    return { model: m.models[d[0]], checkpoint: d[1], precision: m.precisions[d[2]], kv: m.kv[d[4]],
             server: m.servers[d[3]] };
  };

  Explorer.prototype.apply = function (state) {
    var f = this.fields, m = this.m;
    if (!state.model) {  /* no model (e.g. a fit-tables link "#server=…"): the model last shown, on the link's server */
      var last = this.lastModel();
      state = Object.assign({ model: last.model, checkpoint: last.checkpoint, precision: last.precision,
                              server: last.server, kv: last.kv, ctx: last.ctx }, state);
    }
    if (state.model && this.m.models.indexOf(state.model) >= 0) f.model.value = state.model;
    this.fillVariants();
    if (state.checkpoint && state.precision) f.variant.value = state.checkpoint + "|" + state.precision;
    if (!f.variant.value && f.variant.options.length) f.variant.selectedIndex = 0;
    if (state.server && this.m.servers.indexOf(state.server) >= 0) f.server.value = state.server;
    if (state.kv && this.m.kv.indexOf(state.kv) >= 0) f.kv.value = state.kv;
    var ctx = state.ctx || String(this.m.default_context);
    if (this.m.contexts.map(String).indexOf(ctx) >= 0) f.ctx.value = ctx;
    this.show(false);
  };

  /* Keep the shown choice for the next "#server=…" link of this tab (lastModel). */
  Explorer.prototype.remember = function () {
    var f = this.fields, parts = f.variant.value.split("|");
    var state = { model: f.model.value, checkpoint: parts[0], precision: parts[1], server: f.server.value,
                  kv: f.kv.value, ctx: f.ctx.value };
    try { sessionStorage.setItem(STORE, JSON.stringify(state)); } catch (e) { /* storage off: defaults */ }
  };

  Explorer.prototype.current = function () {
    var f = this.fields, parts = f.variant.value.split("|"), m = this.m;
    var want = [m.models.indexOf(f.model.value), parts[0], m.precisions.indexOf(parts[1]),
                m.servers.indexOf(f.server.value), m.kv.indexOf(f.kv.value)];
    for (var i = 0; i < m.rows.length; i += 1) {
      var r = m.rows[i];
      if (r[0] === want[0] && r[1] === want[1] && r[2] === want[2] && r[3] === want[3] && r[4] === want[4]) return i;
    }
    return -1;
  };

  Explorer.prototype.hash = function () {
    var f = this.fields, parts = f.variant.value.split("|");
    var pairs = [["model", f.model.value], ["checkpoint", parts[0]], ["precision", parts[1]],
                 ["server", f.server.value], ["kv", f.kv.value], ["ctx", f.ctx.value]];
    return "#" + pairs.map(function (p) { return p[0] + "=" + encodeURIComponent(p[1]).replace(/%2F/g, "/"); }).join("&");
  };

  /* The link of row ``index`` at context ``ctx`` (the URL-hash form of a case). */
  Explorer.prototype.caseHash = function (index, ctx) {
    var m = this.m, row = m.rows[index];
    return "#" + ["model=" + m.models[row[0]], "checkpoint=" + row[1], "precision=" + m.precisions[row[2]],
                  "server=" + m.servers[row[3]], "kv=" + m.kv[row[4]], "ctx=" + ctx].join("&");
  };

  /* A build-made note as elements: text, with the spans between backticks as <code>. */
  function marked(text) {
    var span = el("span");
    text.split("`").forEach(function (part, i) {
      if (part) span.appendChild(i % 2 ? el("code", "", part) : document.createTextNode(part));
    });
    return span;
  }

  /* The note of a row at a context; a suggestion with a target case (the build's [row, context]) is a
   * link to that case, naming its server and context. */
  Explorer.prototype.note = function (text, target) {
    if (!target) return marked(text);
    var s = this.s, m = this.m, link = el("a", "sz-explorer__suggestion");
    link.href = this.caseHash(target[0], target[1]);
    link.appendChild(marked(text));
    var where = s.servers[m.rows[target[0]][3]] + ", " + s.contexts[m.contexts.indexOf(target[1])];
    link.appendChild(el("span", "sz-explorer__target", " → " + where));
    var self = this;
    link.addEventListener("click", function () { self.scrollNext = true; });
    return link;
  };

  function fact(list, label, value) {
    list.appendChild(el("dt", "", label));
    var dd = el("dd");
    if (typeof value === "string") dd.textContent = value; else dd.appendChild(value);
    list.appendChild(dd);
  }

  /* A stored per-context value: one list for every context, or (nested) one list per context. */
  function atContext(value, position) {
    return Array.isArray(value[0]) ? value[position] : value;
  }

  /* The strings of the plan row ``index`` launches at context ``position``: plan, weights, overhead, KV
   * cache (the row's own unless its plan differs between contexts: then the file's plan_at lists them). */
  Explorer.prototype.planStrings = function (index, position) {
    var local = this.s.rows[index], at = (this.s.plan_at || {})[String(index)];
    return at ? at[position] : [local[0], local[10], local[11], local[12]];
  };

  /* The memory bar of the plan launched at context ``position``. */
  Explorer.prototype.bars = function (row, texts, strings, memory, position) {
    var labels = this.s.labels, box = el("div", "sz-membar");
    var names = ["explorer_weights", "explorer_overhead", "explorer_kvcache"];
    var kinds = ["weights", "overhead", "kv"];
    var track = el("div", "sz-membar__track");
    atContext(row[7], position).forEach(function (width, i) {
      var seg = el("span", "sz-membar__seg sz-membar__seg--" + kinds[i]);
      seg.style.width = width + "%";
      seg.title = labels[names[i]] + ": " + texts[strings[1 + i]];
      track.appendChild(seg);
    });
    box.appendChild(track);
    var legend = el("ul", "sz-membar__legend");
    kinds.forEach(function (kind, i) {
      var li = el("li", "sz-membar__key sz-membar__key--" + kind,
        labels[names[i]] + ": " + texts[strings[1 + i]]);
      legend.appendChild(li);
    });
    legend.appendChild(el("li", "sz-membar__key", labels.explorer_budget + ": " + memory[0] + " / " + memory[1]));
    box.appendChild(legend);
    return box;
  };

  /* The chat ladder of the row (the build's strings, fetched per server): concurrency → tokens/s, per
   * user, TTFT, TPOT, $ per 1M, and its note; or the reason it has none. Filled when the file arrives,
   * if the answer still shows this row. */
  Explorer.prototype.ladder = function (row, index) {
    var s = this.s, self = this, box = el("div", "sz-explorer__ladder");
    box.appendChild(el("p", "sz-explorer__label", s.labels.explorer_ladder));
    var url = this.root.getAttribute("data-ladders").replace("{server}", this.m.servers[row[3]]);
    load(url).then(function (data) {
      if (self.current() !== index) return;
      var cells = data.ladders[row[9]].map(function (i) { return data.texts[i]; });
      if (cells.length === 1) { box.appendChild(el("p", "sz-explorer__ladder-none", cells[0])); return; }
      var wide = s.ladder_head.length, table = el("table", "sz-explorer__ladder-table");
      var tr = el("tr");
      s.ladder_head.forEach(function (h) { tr.appendChild(el("th", "", h)); });
      table.appendChild(el("thead")).appendChild(tr);
      var body = table.appendChild(el("tbody"));
      for (var k = 1; k < cells.length; k += wide) {
        tr = body.appendChild(el("tr"));
        cells.slice(k, k + wide).forEach(function (c) { tr.appendChild(el("td", "", c)); });
      }
      var wrap = el("div", "md-typeset__scrollwrap sz-explorer__ladder-wrap");
      wrap.appendChild(table);
      box.appendChild(wrap);
      if (window.szScrollBox) window.szScrollBox(wrap);
      box.appendChild(el("p", "sz-explorer__ladder-note", cells[0]));
    });
    return box;
  };

  Explorer.prototype.command = function (row, ctx) {
    var m = this.m, labels = this.s.labels;
    var position = m.contexts.map(String).indexOf(String(ctx));
    var text = atContext(row[6], position).map(function (i) { return m.lines[i]; }).join(m.joiner)
      .replace(m.slot, ctx);
    var wrap = el("div", "sz-explorer__command");
    var pre = el("pre"), code = el("code", "language-bash", text);
    pre.appendChild(code);
    var button = el("button", "md-button sz-copy", labels.explorer_copy);
    button.type = "button";
    button.addEventListener("click", function () {
      var done = function () { button.textContent = labels.explorer_copied; };
      if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, function () {});
    });
    wrap.appendChild(pre);
    wrap.appendChild(button);
    return wrap;
  };

  Explorer.prototype.show = function (pushHash) {
    var index = this.current(), s = this.s, labels = s.labels;
    this.out.textContent = "";
    this.out.hidden = false;
    if (pushHash) history.replaceState(null, "", this.hash());
    this.remember();
    this.updateHeatmap();
    if (index < 0) return;
    var row = this.m.rows[index], local = s.rows[index], texts = s.texts;
    var position = this.m.contexts.map(String).indexOf(this.fields.ctx.value);
    var state = this.m.statuses[Number(row[5][position])];
    var badgeClass = state === "beyond" ? "no-fit" : state;
    var head = el("p", "sz-explorer__verdict");
    head.appendChild(el("span", "sz-badge sz-badge--" + badgeClass, s.status[state]));
    head.appendChild(el("span", "sz-explorer__server", " " + s.server_notes[row[3]]));
    this.out.appendChild(head);
    var kv = this.fields.kv.value, fitting = state === "fits" || state === "tight";
    this.out.appendChild(el("p", "sz-explorer__settings", labels.explorer_settings + " " + labels.explorer_kv + " "
      + (kv === "auto" ? labels.explorer_kv_auto : kv) + " · " + labels.explorer_context + " " + s.contexts[position]
      + (fitting ? " · " + labels.explorer_decode + " " + texts[local[4 + position]] : "")));
    var facts = el("dl", "sz-explorer__facts");
    /* the plan at this context, as the command below launches it */
    var strings = this.planStrings(index, position);
    fact(facts, fitting ? labels.explorer_plan : labels.explorer_tried, texts[strings[0]]);
    var noteLabel = fitting ? labels.explorer_why : labels.explorer_change;
    fact(facts, noteLabel, this.note(texts[local[7 + position]], row[8] ? row[8][position] : null));
    fact(facts, labels.explorer_sequences + " (" + s.contexts[position] + ")", texts[local[1 + position]]);
    fact(facts, labels.explorer_decode, texts[local[4 + position]]);
    fact(facts, labels.explorer_memory, this.bars(row, texts, strings, s.server_memory[row[3]], position));
    this.out.appendChild(facts);
    this.out.appendChild(this.ladder(row, index));
    if (state === "fits" || state === "tight") {
      this.out.appendChild(el("p", "sz-explorer__label", labels.explorer_command));
      this.out.appendChild(this.command(row, this.fields.ctx.value));
    }
    var link = el("a", "sz-explorer__link", labels.explorer_link);
    link.href = this.hash();
    this.out.appendChild(link);
    this.markHeatmap(row);
    if (this.scrollNext) this.out.scrollIntoView({ block: "start" });
    this.scrollNext = false;
  };

  /* The heatmap shows the answer's place: its cell selected (aria-current), its server's column
   * highlighted and scrolled into view. */
  Explorer.prototype.markHeatmap = function (row) {
    var table = document.querySelector(".sz-heatmap");
    if (!table) return;
    table.querySelectorAll("[aria-current], .sz-heat-col").forEach(function (node) {
      node.removeAttribute("aria-current");
      node.classList.remove("sz-heat-col");
    });
    var column = row[3] + 1, head = table.tHead.rows[0].cells[column];
    if (head) head.classList.add("sz-heat-col");
    Array.prototype.forEach.call(table.tBodies[0].rows, function (tr) {
      if (tr.cells[column]) tr.cells[column].classList.add("sz-heat-col");
    });
    var cell = table.tBodies[0].rows[row[0]] && table.tBodies[0].rows[row[0]].cells[column];
    if (cell) cell.setAttribute("aria-current", "true");
    var wrap = table.closest(".sz-heatmap-wrap");
    if (wrap && cell) reveal(wrap, cell, table.tHead.rows[0].cells[0], table.tHead);
  };

  /* Scroll ``box`` (not the page) so that ``cell`` is clear of the sticky first column and header. */
  function reveal(box, cell, first, head) {
    var b = box.getBoundingClientRect(), c = cell.getBoundingClientRect();
    var left = b.left + first.getBoundingClientRect().width, top = b.top + head.getBoundingClientRect().height;
    if (c.left < left || c.right > b.left + box.clientWidth) box.scrollLeft += c.left - left;
    if (c.top < top || c.bottom > b.top + box.clientHeight) box.scrollTop += c.top - top;
  }

  /* The heatmap below the explorer, at the chosen context (cells rebuilt from the build's strings). */
  Explorer.prototype.updateHeatmap = function () {
    var table = document.querySelector(".sz-heatmap"), m = this.m, s = this.s, self = this;
    if (!table) return;
    var ctx = this.fields.ctx.value, position = m.contexts.map(String).indexOf(ctx);
    if (this.heatCtx === ctx) return;  /* the static cells carry no links: built once, then per context */
    this.heatCtx = ctx;
    table.setAttribute("data-ctx", ctx);
    var caption = document.querySelector("[data-sz-heat-caption]");
    if (caption) caption.textContent = caption.getAttribute("data-sz-heat-caption").replace("{context}", s.contexts[position]);
    m.heat[ctx].forEach(function (cells, mi) {
      var tr = table.tBodies[0].rows[mi];
      cells.forEach(function (index, si) {
        var td = tr.cells[si + 1], row = m.rows[index], local = s.rows[index];
        var state = m.statuses[Number(row[5][position])];
        td.className = "sz-heat sz-heat--" + state;
        var a = el("a");
        a.href = self.caseHash(index, ctx);
        if (state === "fits" || state === "tight") a.appendChild(document.createTextNode(s.texts[local[1 + position]] + " "));
        a.appendChild(el("small", "", s.heat[state]));
        td.textContent = "";
        td.appendChild(a);
      });
    });
  };

  document$.subscribe(function () {
    var root = document.getElementById("sz-explorer");
    if (!root || root.hasAttribute("data-ready")) return;
    root.setAttribute("data-ready", "");
    Promise.all([load(root.getAttribute("data-matrix")), load(root.getAttribute("data-strings"))])
      .then(function (data) { root.explorer = new Explorer(root, data[0], data[1]); });
  });
})();
