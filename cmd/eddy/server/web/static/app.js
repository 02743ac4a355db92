// app.js: polls /api/queries every second, turns two consecutive
// snapshots into live rates and fractions, and keeps the page current:
// the list of queries, the selected query's figures, dataflow graph,
// operator instances and checkpoints, and the catalog.
"use strict";

const POLL_MS = 1000;

const state = {
  prev: new Map(),   // query name -> {t, q}: the previous snapshot
  queries: [],       // the latest snapshot's queries
  live: {},          // query name -> "stage/op" -> live figures
  selected: null,    // the query shown
  selectedOp: null,  // "stage/op" of the operator whose instances are shown
};

const $ = id => document.getElementById(id);
const graph = new DataflowGraph($("graph"), key => {
  state.selectedOp = state.selectedOp === key ? null : key;
  render();
});

// liveFigures compares an operator's figures with the previous
// snapshot's: rows/s in and out, and the fractions of wall time busy and
// backpressured since then (since the start when there is no previous
// snapshot, or the dataflow restarted).
function liveFigures(f, p, dt) {
  const out = {};
  const fresh = p && dt > 0 && f.rows_in >= p.rows_in && f.rows_out >= p.rows_out && f.wall_seconds > p.wall_seconds;
  if (fresh) {
    out.inRate = (f.rows_in - p.rows_in) / dt;
    out.outRate = (f.rows_out - p.rows_out) / dt;
    const wall = f.wall_seconds - p.wall_seconds;
    out.busy = Math.max(0, f.busy_seconds - p.busy_seconds) / wall;
    out.bp = Math.max(0, f.backpressured_seconds - p.backpressured_seconds) / wall;
  } else if (f.wall_seconds > 0) {
    out.busy = f.busy_seconds / f.wall_seconds;
    out.bp = f.backpressured_seconds / f.wall_seconds;
  }
  return out;
}

// computeLive fills state.live for q against its previous snapshot.
function computeLive(q, t) {
  const prev = state.prev.get(q.name);
  const dt = prev ? (t - prev.t) / 1000 : 0;
  const live = {};
  q.stages.forEach((s, si) => s.operators.forEach((op, oi) => {
    const p = prev && prev.q.stages[si] && prev.q.stages[si].operators[oi];
    const same = p && p.name === op.name;
    const lv = liveFigures(op.figures, same ? p.figures : null, dt);
    lv.instances = op.instances.map((f, k) => liveFigures(f, same && p.instances[k], dt));
    live[s.id + "/" + oi] = lv;
  }));
  state.live[q.name] = live;
  state.prev.set(q.name, { t, q });
}

// snapshotTime is when the server took q's latest snapshot (its clock,
// not the browser's).
function snapshotTime(q) {
  const p = state.prev.get(q.name);
  return p ? p.t : Date.now();
}

// queryRates sums the rates of q's sources (rows read) and its sink
// (rows received).
function queryRates(q) {
  const live = state.live[q.name] || {};
  let inRate = null, outRate = null;
  q.stages.forEach(s => s.operators.forEach((op, i) => {
    const lv = live[s.id + "/" + i] || {};
    if (op.source && lv.outRate != null) inRate = (inRate || 0) + lv.outRate;
    if (op.sink && lv.inRate != null) outRate = lv.inRate;
  }));
  return { inRate, outRate };
}

async function poll() {
  try {
    const res = await fetch("api/queries", { cache: "no-store" });
    if (!res.ok) throw new Error(res.status + " " + res.statusText);
    const doc = await res.json();
    for (const q of doc.queries) computeLive(q, doc.time_ms);
    state.queries = doc.queries;
    const conn = $("conn");
    conn.className = "conn ok";
    setText(conn, "live · " + new Date(doc.time_ms).toLocaleTimeString());
    render();
  } catch (err) {
    const conn = $("conn");
    conn.className = "conn err";
    setText(conn, "disconnected: " + err.message);
  }
  setTimeout(poll, POLL_MS);
}

// route reads the page's address: #/q/<name> shows a query, #/catalog
// the catalog.
function route() {
  const h = decodeURIComponent(location.hash.slice(1));
  const catalog = h === "/catalog";
  $("query-view").hidden = catalog;
  $("catalog-view").hidden = !catalog;
  document.querySelectorAll("nav a[data-tab]").forEach(a => a.classList.toggle("active", (a.dataset.tab === "catalog") === catalog));
  if (h.startsWith("/q/")) {
    if (state.selected !== h.slice(3)) state.selectedOp = null;
    state.selected = h.slice(3);
  }
  if (catalog) loadCatalog();
  render();
}

function render() {
  const qs = state.queries;
  if (!qs.find(q => q.name === state.selected) && qs.length) {
    state.selected = (qs.find(q => q.status === "running") || qs[0]).name;
  }
  renderList(qs);
  const q = qs.find(q => q.name === state.selected);
  $("empty").hidden = !!q;
  $("query-body").hidden = !q;
  if (q) renderQuery(q);
}

function renderList(qs) {
  const ul = $("query-list");
  const items = qs.map(q => {
    const li = el("li", q.name === state.selected ? "active" : "");
    const a = el("a");
    a.href = "#/q/" + encodeURIComponent(q.name);
    const top = el("div", "qi-top");
    top.append(el("span", "dot " + q.status), el("span", "qi-name", q.name));
    const { outRate } = queryRates(q);
    const sub = el("div", "qi-sub", q.kind + (q.status === "running" ? " · " + fmt.rate(outRate) + " out" : " · " + q.status));
    a.append(top, sub);
    li.append(a);
    return li;
  });
  ul.replaceChildren(...items);
  setText($("query-count"), String(qs.length));
}

function renderQuery(q) {
  setText($("q-name"), q.name);
  setText($("q-kind"), q.kind);
  const st = $("q-status");
  st.className = "badge status " + q.status;
  setText(st, q.status);
  setText($("q-meta"), q.started ? `up ${fmt.duration(q.uptime_seconds)} · parallelism ${q.parallelism} · ${q.stages.length} stages` : "no dataflow");
  $("q-error").hidden = !q.error;
  setText($("q-error"), q.error || "");
  setText($("q-sql"), q.query);
  const { inRate, outRate } = queryRates(q);
  const t = q.totals;
  let state_rows = 0, state_bytes = 0;
  q.stages.forEach(s => s.operators.forEach(op => { state_rows += op.figures.state_rows; state_bytes += op.figures.state_bytes; }));
  tile("t-in", fmt.rate(inRate), `${fmt.count(t.rows_in)} rows read` +
    (t.backlog_rows > 0 ? ` · ${fmt.count(t.backlog_rows)} to come` : ""));
  tile("t-out", fmt.rate(outRate), `${fmt.count(t.rows_out)} rows received`);
  const wm = t.watermark_ms != null ? fmt.timestamp(t.watermark_ms) : null;
  tile("t-wm", wm ? wm.slice(11, 19) : "–",
    wm ? `${wm.slice(0, 10)} · lag ${fmt.duration(Math.max(0, snapshotTime(q) - t.watermark_ms) / 1000)}` : "no event time yet");
  tile("t-late", fmt.count(t.late_rows), `${fmt.count(t.bad_rows)} bad · source lag ${fmt.duration(t.source_lag_seconds)}`);
  $("t-late").classList.toggle("warn", t.late_rows > 0 || t.bad_rows > 0);
  tile("t-state", fmt.bytes(state_bytes), `${fmt.count(state_rows)} keys/rows`);
  const c = q.checkpoints;
  const last = c && c.recent.length ? c.recent[c.recent.length - 1] : null;
  tile("t-ckpt", last ? fmt.duration(last.duration_seconds) : "–",
    c ? `${c.taken} taken · ${c.failed} failed` : "not checkpointed");
  $("t-ckpt").classList.toggle("warn", !!(c && c.failed));
  const live = state.live[q.name] || {};
  graph.update(q, live, state.selectedOp);
  renderInstances(q, live);
  renderCheckpoints(c);
}

function tile(id, value, sub) {
  const t = $(id);
  setText(t.querySelector(".v"), value);
  setText(t.querySelector(".s"), sub);
}

window.addEventListener("hashchange", route);
window.addEventListener("resize", () => graph.route());
document.addEventListener("DOMContentLoaded", () => { route(); poll(); });
