// fmt.js: number, time and size formatting, and small DOM helpers.
"use strict";

const fmt = {
  // count renders a count compactly: 950, 12.3K, 4.56M.
  count(n) {
    if (n == null || !isFinite(n)) return "–";
    const a = Math.abs(n);
    if (a < 1000) return a < 10 && a % 1 ? n.toFixed(1) : String(Math.round(n));
    const units = [["G", 1e9], ["M", 1e6], ["K", 1e3]];
    for (const [u, v] of units) {
      if (a >= v) {
        const x = n / v;
        return (Math.abs(x) < 10 ? x.toFixed(2) : Math.abs(x) < 100 ? x.toFixed(1) : x.toFixed(0)) + u;
      }
    }
    return String(n);
  },
  // rate renders rows per second, or a dash before there are two samples.
  rate(r) {
    return r == null ? "–" : fmt.count(r) + "/s";
  },
  // bytes renders a size in B, KiB, MiB, GiB.
  bytes(b) {
    if (b == null || !isFinite(b)) return "–";
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    while (Math.abs(b) >= 1024 && i < units.length - 1) { b /= 1024; i++; }
    return (i === 0 ? String(Math.round(b)) : b.toFixed(b < 10 ? 2 : 1)) + " " + units[i];
  },
  // duration renders seconds as 840 µs, 12 ms, 3.4 s, 5m12s, 3h05m, 12d4h.
  duration(s) {
    if (s == null || !isFinite(s)) return "–";
    if (s < 1e-3) return Math.round(s * 1e6) + " µs";
    if (s < 1) return (s * 1e3 < 10 ? (s * 1e3).toFixed(1) : Math.round(s * 1e3)) + " ms";
    if (s < 60) return s.toFixed(s < 10 ? 2 : 1) + " s";
    const m = Math.floor(s / 60), h = Math.floor(m / 60), d = Math.floor(h / 24);
    if (m < 60) return m + "m" + String(Math.floor(s % 60)).padStart(2, "0") + "s";
    if (h < 24) return h + "h" + String(m % 60).padStart(2, "0") + "m";
    return d + "d" + (h % 24) + "h";
  },
  // pct renders a fraction as a percentage.
  pct(f) {
    if (f == null || !isFinite(f)) return "–";
    return (f * 100 < 10 ? (f * 100).toFixed(1) : Math.round(f * 100)) + "%";
  },
  // timestamp renders ms since the epoch as UTC, as eddy prints
  // TIMESTAMP(3): 2024-01-01 00:00:14.000.
  timestamp(ms) {
    if (ms == null) return "–";
    return new Date(ms).toISOString().replace("T", " ").replace("Z", "");
  },
};

// el creates an element with a class and, optionally, text (never HTML:
// names and SQL come from users).
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

// svgEl creates an SVG element with attributes.
function svgEl(tag, attrs) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  return e;
}

// setText sets an element's text only when it changed (no relayout).
function setText(e, t) {
  if (e.textContent !== t) e.textContent = t;
}

// pressureColor maps a backpressured fraction of wall time to a colour:
// green at 0, yellow at 25%, red from 50% on.
function pressureColor(f, light) {
  const x = Math.max(0, Math.min(1, (f || 0) / 0.5));
  const hue = 135 * (1 - x);
  return light ? `hsl(${hue} 70% 95%)` : `hsl(${hue} 62% 42%)`;
}
