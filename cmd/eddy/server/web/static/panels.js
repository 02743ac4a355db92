// panels.js: the panels beside the graph — the selected operator's
// instances (to see skew), the recent checkpoints as bars, and the
// catalog.
"use strict";

// renderInstances lists the selected operator's instances with their
// live rates and time fractions; a bar shows each one's share of the
// operator's input, so a skewed key stands out.
function renderInstances(q, live) {
  const box = $("instances");
  const key = state.selectedOp;
  const [si, oi] = key ? key.split("/").map(Number) : [];
  const stage = key ? q.stages.find(s => s.id === si) : null;
  const op = stage && stage.operators[oi];
  if (!op) {
    setText($("inst-title"), "Operator instances");
    box.replaceChildren(el("p", "hint", "Select an operator in the graph to see its parallel instances."));
    return;
  }
  setText($("inst-title"), op.name);
  const lv = live[key] || { instances: [] };
  const rates = op.instances.map((f, k) => (lv.instances[k] || {}).inRate ?? (op.source ? (lv.instances[k] || {}).outRate : null));
  const top = Math.max(1e-9, ...rates.map(r => r || 0));
  const table = el("table", "grid");
  const head = el("tr");
  for (const h of ["#", op.source ? "read/s" : "in/s", "out/s", "share", "busy", "backpressured", "state", "watermark"]) head.append(el("th", "", h));
  table.append(head);
  op.instances.forEach((f, k) => {
    const il = lv.instances[k] || {};
    const tr = el("tr");
    const share = el("td", "share");
    const b = el("span", "sharebar");
    b.style.width = (100 * (rates[k] || 0) / top).toFixed(1) + "%";
    share.append(b);
    tr.append(el("td", "num", String(k)), el("td", "num", fmt.rate(il.inRate)), el("td", "num", fmt.rate(il.outRate)), share,
      el("td", "num", fmt.pct(il.busy)), el("td", "num", fmt.pct(il.bp)),
      el("td", "num", f.state_rows || f.state_bytes ? `${fmt.count(f.state_rows)} · ${fmt.bytes(f.state_bytes)}` : "–"),
      el("td", "num", f.input_ended ? "+∞" : f.watermark_ms != null ? fmt.timestamp(f.watermark_ms).slice(11) : "–"));
    tr.children[5].style.color = pressureColor(il.bp, false);
    table.append(tr);
  });
  box.replaceChildren(table);
}

// renderCheckpoints draws the recent checkpoints' durations as bars,
// failed ones red, with the last one's parts.
function renderCheckpoints(c) {
  const box = $("checkpoints");
  if (!c) {
    box.replaceChildren(el("p", "hint", "This query is not checkpointed: its dataflow cannot resume, or --checkpoint-interval is 0."));
    return;
  }
  if (!c.recent.length) {
    box.replaceChildren(el("p", "hint", "No checkpoint yet."));
    return;
  }
  const W = 420, H = 90, n = c.recent.length, gap = 2;
  const bw = Math.max(2, Math.min(14, (W - gap * n) / n));
  const maxD = Math.max(...c.recent.map(r => r.duration_seconds), 1e-6);
  const svg = svgEl("svg", { class: "ckpt-chart", viewBox: `0 0 ${W} ${H + 14}`, width: W, height: H + 14 });
  c.recent.forEach((r, i) => {
    const h = Math.max(1, (H - 4) * r.duration_seconds / maxD);
    const rect = svgEl("rect", { x: W - (n - i) * (bw + gap), y: H - h, width: bw, height: h, rx: 1.5, class: r.error ? "cb failed" : "cb" });
    const tip = svgEl("title");
    tip.textContent = `epoch ${r.epoch}: ${fmt.duration(r.duration_seconds)} (sync ${fmt.duration(r.sync_seconds)}, ` +
      `deferred ${fmt.duration(r.deferred_seconds)}, alignment ${fmt.duration(r.alignment_seconds)}), ${fmt.bytes(r.bytes)} written` +
      (r.error ? " — failed: " + r.error : "");
    rect.append(tip);
    svg.append(rect);
  });
  const axis = svgEl("text", { x: 0, y: H + 12, class: "axis" });
  axis.textContent = `max ${fmt.duration(maxD)}`;
  svg.append(axis);
  const last = c.recent[n - 1];
  const facts = el("div", "ckpt-facts");
  const avg = c.taken ? c.total_seconds / c.taken : 0;
  for (const [k, v] of [["last epoch", String(last.epoch)], ["duration", fmt.duration(last.duration_seconds)],
    ["sync", fmt.duration(last.sync_seconds)], ["deferred", fmt.duration(last.deferred_seconds)],
    ["alignment", fmt.duration(last.alignment_seconds)], ["written", fmt.bytes(last.bytes)],
    ["state", last.state_bytes != null ? fmt.bytes(last.state_bytes) : "–"], ["mean", fmt.duration(avg)]]) {
    const d = el("div");
    d.append(el("span", "k", k), el("span", "v", v));
    facts.append(d);
  }
  box.replaceChildren(svg, facts);
}

// loadCatalog fetches the catalog and lists its objects.
async function loadCatalog() {
  const box = $("catalog");
  try {
    const res = await fetch("api/catalog", { cache: "no-store" });
    if (!res.ok) throw new Error(res.status + " " + res.statusText);
    const doc = await res.json();
    if (!doc.objects.length) {
      box.replaceChildren(el("p", "hint", "The catalog is empty: CREATE STREAM to start."));
      return;
    }
    const table = el("table", "grid catalog");
    const head = el("tr");
    for (const h of ["name", "kind", "connector", "columns", "event time", "options", "rate"]) head.append(el("th", "", h));
    table.append(head);
    for (const o of doc.objects) {
      const tr = el("tr");
      const cols = el("td", "cols");
      for (const c of o.columns) {
        const chip = el("span", "col" + (o.primary_key.includes(c.name) ? " key" : ""));
        chip.append(el("b", "", c.name), document.createTextNode(" " + c.type + (c.nullable ? "" : " NOT NULL")));
        cols.append(chip);
      }
      const opts = Object.entries(o.options).filter(([k]) => k !== "connector").map(([k, v]) => `${k}=${v}`).join(", ");
      tr.append(el("td", "name", o.name), el("td", "", o.kind), el("td", "", o.connector || "–"), cols,
        el("td", "mono", o.watermark ? o.watermark.text || o.watermark.column : "–"),
        el("td", "mono", opts || "–"), el("td", "num", o.rows_per_second ? fmt.rate(o.rows_per_second) : "–"));
      table.append(tr);
    }
    box.replaceChildren(table);
  } catch (err) {
    box.replaceChildren(el("p", "hint", "Could not load the catalog: " + err.message));
  }
}
