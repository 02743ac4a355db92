// graph.js: draws a query's dataflow. Stages are boxes laid out in
// columns by depth (a stage sits right of every stage it reads), each
// listing its operators top to bottom in the order rows pass through
// them; exchanges are SVG curves between stages, labelled with their
// distribution and the rate flowing through them. The DOM is built once
// per dataflow shape and then only updated, so it does not flicker.
"use strict";

class DataflowGraph {
  constructor(container, onSelect) {
    this.root = container;
    this.onSelect = onSelect;
    this.sig = "";
    this.ops = new Map(); // "stage/op" -> the operator's elements
    this.stages = [];     // stage id -> its box
    this.edges = [];      // per exchange: path, label
  }

  // signature identifies a dataflow's shape.
  static signature(q) {
    const st = q.stages.map(s => s.id + "x" + s.parallelism + ":" + s.operators.map(o => o.node_id + o.name).join(","));
    const ex = q.exchanges.map(e => e.from + ">" + e.to + ":" + e.input + e.kind);
    return q.name + "|" + st.join("|") + "|" + ex.join("|");
  }

  update(q, live, selected) {
    const sig = DataflowGraph.signature(q);
    if (sig !== this.sig) {
      this.build(q);
      this.sig = sig;
    }
    for (const s of q.stages) {
      s.operators.forEach((op, i) => this.fill(s, op, i, live[s.id + "/" + i] || {}, selected));
    }
    this.fillEdges(q, live);
    this.q = q;
    this.route();
  }

  // build creates the boxes of q's stages in their columns and the edges.
  build(q) {
    this.root.replaceChildren();
    this.ops.clear();
    this.stages = [];
    this.edges = [];
    const depth = [];
    for (const s of q.stages) {
      const ins = q.exchanges.filter(e => e.to === s.id);
      depth[s.id] = ins.length ? Math.max(...ins.map(e => depth[e.from] + 1)) : 0;
    }
    const cols = [];
    for (const s of q.stages) (cols[depth[s.id]] ||= []).push(s);
    this.svg = svgEl("svg", { class: "edges" });
    const defs = svgEl("defs");
    const marker = svgEl("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "11", markerHeight: "11",
      markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" });
    marker.append(svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }));
    defs.append(marker);
    this.svg.append(defs);
    this.root.append(this.svg);
    const row = el("div", "columns");
    for (const col of cols) {
      const c = el("div", "column");
      for (const s of col || []) c.append(this.stageBox(s));
      row.append(c);
    }
    this.root.append(row);
    for (const e of q.exchanges) {
      const path = svgEl("path", { class: "edge", "marker-end": "url(#arrow)" });
      this.svg.append(path);
      const label = el("div", "edge-label");
      label.title = e.name || e.kind;
      label.append(el("div", "edge-kind", e.kind));
      if (e.keys.length) label.append(el("div", "edge-keys", e.keys.join(", ")));
      const rate = el("div", "edge-rate", "–");
      label.append(rate);
      this.root.append(label);
      this.edges.push({ ex: e, path, label, rate });
    }
  }

  stageBox(s) {
    const box = el("div", "stage");
    box.dataset.stage = s.id;
    const head = el("div", "stage-head");
    head.append(el("span", "stage-name", "Stage " + s.id), el("span", "par", "×" + s.parallelism));
    head.title = `stage ${s.id}: ${s.parallelism} parallel instance${s.parallelism > 1 ? "s" : ""}`;
    box.append(head);
    s.operators.forEach((op, i) => box.append(this.opCard(s, op, i)));
    this.stages[s.id] = box;
    return box;
  }

  opCard(s, op, i) {
    const key = s.id + "/" + i;
    const card = el("div", "op");
    card.dataset.key = key;
    card.dataset.node = op.node_id;
    card.tabIndex = 0;
    const sp = op.name.indexOf(" ");
    const kind = sp > 0 ? op.name.slice(0, sp) : op.name;
    const rest = sp > 0 ? op.name.slice(sp + 1) : "";
    const head = el("div", "op-head");
    const role = op.source ? "source" : op.sink ? "sink" : "";
    head.append(el("span", "op-kind", kind));
    if (op.node_id) head.append(el("span", "op-id", "#" + op.node_id));
    if (role) head.append(el("span", "op-role " + role, role));
    const desc = el("div", "op-desc", rest);
    card.title = op.name;
    const rates = el("div", "op-rates");
    const rin = el("span", "rin"), arrow = el("span", "arrow", "→"), rout = el("span", "rout");
    rates.append(rin, arrow, rout);
    const bar = el("div", "bar");
    const busy = el("span", "busy"), bp = el("span", "bp");
    bar.append(busy, bp);
    const times = el("div", "op-times");
    const extra = el("div", "op-extra");
    card.append(head, desc, rates, bar, times, extra);
    card.addEventListener("click", () => this.onSelect(key));
    card.addEventListener("keydown", ev => { if (ev.key === "Enter") this.onSelect(key); });
    this.ops.set(key, { card, rin, rout, arrow, busy, bp, times, extra, op });
    return card;
  }

  // fill writes an operator's live figures into its card.
  fill(s, op, i, lv, selected) {
    const o = this.ops.get(s.id + "/" + i);
    if (!o) return;
    const f = op.figures;
    o.card.classList.toggle("selected", selected === s.id + "/" + i);
    o.card.dataset.inRate = lv.inRate ?? "";
    o.card.dataset.outRate = lv.outRate ?? "";
    setText(o.rin, op.source ? "read " + fmt.rate(lv.inRate) : fmt.rate(lv.inRate));
    // A sink's output leaves the dataflow: only its input has a rate.
    setText(o.rout, op.sink ? "" : fmt.rate(lv.outRate));
    o.arrow.hidden = op.sink;
    o.busy.style.width = (100 * (lv.busy || 0)).toFixed(1) + "%";
    o.bp.style.width = (100 * (lv.bp || 0)).toFixed(1) + "%";
    o.card.style.background = pressureColor(lv.bp, true);
    o.card.style.borderLeftColor = pressureColor(lv.bp, false);
    setText(o.times, `busy ${fmt.pct(lv.busy)} · backpressured ${fmt.pct(lv.bp)}`);
    const parts = [];
    if (f.input_ended) parts.push("watermark +∞ (input ended)");
    else if (f.watermark_ms != null) parts.push(`wm ${fmt.timestamp(f.watermark_ms).slice(11)} · lag ${fmt.duration(f.watermark_lag_seconds)}`);
    if (f.state_rows || f.state_bytes) parts.push(`state ${fmt.count(f.state_rows)} keys · ${fmt.bytes(f.state_bytes)}`);
    if (op.source && f.source_lag_seconds > 0) parts.push(`behind by ${fmt.duration(f.source_lag_seconds)}`);
    if (f.late_rows) parts.push(`${fmt.count(f.late_rows)} late`);
    if (f.bad_rows) parts.push(`${fmt.count(f.bad_rows)} bad`);
    setText(o.extra, parts.join("\n"));
    o.extra.classList.toggle("warn", !!(f.late_rows || f.bad_rows));
  }

  fillEdges(q, live) {
    for (const e of this.edges) {
      const from = q.stages[e.ex.from];
      const last = from ? from.operators.length - 1 : -1;
      const lv = live[e.ex.from + "/" + last] || {};
      setText(e.rate, fmt.rate(lv.outRate));
      const r = lv.outRate || 0;
      e.path.style.strokeWidth = (1.5 + Math.min(4, Math.log10(r + 1) * 0.8)).toFixed(2);
      e.path.classList.toggle("flowing", r > 0);
    }
  }

  // route draws the edges between the stage boxes where layout put them:
  // from the middle of the sending stage's last operator, whose output
  // the exchange carries, to the middle of the receiving stage's first
  // operator (several inputs side by side).
  route() {
    if (!this.q) return;
    const W = this.root.scrollWidth, H = this.root.scrollHeight;
    this.svg.setAttribute("width", W);
    this.svg.setAttribute("height", H);
    const base = this.root.getBoundingClientRect();
    const rect = e => {
      const r = e.getBoundingClientRect();
      return { x: r.left - base.left + this.root.scrollLeft, y: r.top - base.top + this.root.scrollTop, w: r.width, h: r.height };
    };
    const card = (stage, i) => {
      const o = this.ops.get(stage + "/" + i);
      return o ? rect(o.card) : null;
    };
    const inputs = {};
    for (const e of this.edges) (inputs[e.ex.to] ||= []).push(e);
    for (const e of this.edges) {
      const from = this.q.stages[e.ex.from], to = this.q.stages[e.ex.to];
      if (!from || !to || !this.stages[e.ex.from] || !this.stages[e.ex.to]) continue;
      const a = rect(this.stages[e.ex.from]), b = rect(this.stages[e.ex.to]);
      const out = card(e.ex.from, from.operators.length - 1) || a, into = card(e.ex.to, 0) || b;
      const n = inputs[e.ex.to].length, k = inputs[e.ex.to].indexOf(e);
      const x1 = a.x + a.w, y1 = out.y + out.h / 2;
      const x2 = b.x - 1, y2 = into.y + into.h / 2 + (n > 1 ? (k - (n - 1) / 2) * Math.min(28, into.h / n) : 0);
      const dx = Math.max(40, (x2 - x1) / 2);
      e.path.setAttribute("d", `M ${x1} ${y1} C ${x1 + dx} ${y1}, ${x2 - dx} ${y2}, ${x2} ${y2}`);
      e.label.style.left = (x1 + x2) / 2 + "px";
      e.label.style.top = (y1 + y2) / 2 + "px";
    }
  }
}
