// explainer's flame graph: a canvas icicle (root on top, as in Grafana), drawn in the browser from
// numbers. Names only ever reach the page as text: canvas fillText and element textContent, never
// any HTML parsing. Python sends one payload per profile (see explainer/ui/flamegraph.py); zoom, search
// and tooltips happen here without a rerun; "Sandwich view" sends the selected name back.

const ROW = 18;
const MIN_LABEL_PX = 28;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// Python's "%.1f": like toFixed(1), except that an exact tie goes to the even digit. With one
// decimal the only ties a double can hold exactly are x.25 and x.75 (an odd number of quarters).
function fixed1(x) {
  const quarters = Math.abs(x) * 4;
  if (!Number.isInteger(quarters) || quarters % 2 !== 1) return x.toFixed(1);
  const f = Math.floor(Math.abs(x) * 10);
  return `${x < 0 ? "-" : ""}${((f % 2 === 0 ? f : f + 1) / 10).toFixed(1)}`;
}

// The same rule as explainer/units.py: the first step the value reaches, one decimal.
function formatValue(v, unit) {
  for (const [suffix, factor] of unit.steps) {
    // one exact ratio of powers of ten, as Python divides exact integers (no v * 1e9 overflow of 2^53)
    const x = factor >= unit.toBase ? v / (factor / unit.toBase) : v * (unit.toBase / factor);
    if (Math.abs(x) >= 1) return `${fixed1(x)} ${suffix}`;
  }
  if (unit.kind === "count") return v.toLocaleString("en-US") + (unit.base ? ` ${v === 1 ? unit.one : unit.base}` : "");
  return `${Math.round(v * unit.toBase)} ${unit.base}`;
}

function formatShare(part, whole) {
  if (whole <= 0) return "0%";
  const pct = (100 * part) / whole;
  return pct > 0 && pct < 0.05 ? "<0.1%" : `${fixed1(pct)}%`;
}

function hash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

// Layout: children side by side from the parent's left edge, in name order (like pprof).
function layout(d) {
  const n = d.parent.length;
  const kids = Array.from({ length: n }, () => []);
  for (let i = 1; i < n; i++) kids[d.parent[i]].push(i);
  const x0 = new Float64Array(n);
  const depth = new Int32Array(n);
  const name = (i) => d.names[d.func[i]];
  for (let i = 0; i < n; i++) {  // ids are breadth first: a parent is placed before its children
    kids[i].sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
    let left = x0[i];
    for (const k of kids[i]) {
      x0[k] = left;
      depth[k] = depth[i] + 1;
      left += d.total[k];
    }
  }
  const rows = [];
  for (let i = 0; i < n; i++) (rows[depth[i]] ||= []).push(i);
  for (const r of rows) r.sort((a, b) => x0[a] - x0[b]);
  const deepest = Int32Array.from(depth);  // the deepest row of each subtree sets the canvas height
  for (let i = n - 1; i > 0; i--) deepest[d.parent[i]] = Math.max(deepest[d.parent[i]], deepest[i]);
  return { x0, depth, rows, deepest };
}

function themeOf(host) {
  const css = getComputedStyle(host);
  const v = (k, dflt) => css.getPropertyValue(k).trim() || dflt;
  const bg = v("--st-background-color", "#ffffff");
  const probe = document.createElement("canvas").getContext("2d");
  probe.fillStyle = bg;
  const hex = probe.fillStyle;  // normalised to #rrggbb
  const lum = hex.startsWith("#")
    ? 0.299 * parseInt(hex.slice(1, 3), 16) + 0.587 * parseInt(hex.slice(3, 5), 16) + 0.114 * parseInt(hex.slice(5, 7), 16)
    : 255;
  return { dark: lum < 128, bg, text: v("--st-text-color", "#1c1917"), primary: v("--st-primary-color", "#6d28d9"), font: v("--st-font", "sans-serif") };
}

class FlameView {
  constructor(parent, send) {
    this.send = send;
    this.root = el("div", "fg");
    this.bar = el("div", "fg-toolbar");
    this.search = el("input", "fg-search");
    this.search.type = "search";
    this.search.placeholder = "Search functions";
    this.search.setAttribute("aria-label", "Search the flame graph");
    this.reset = el("button", "fg-reset", "Reset zoom");
    this.sandwich = el("button", "fg-sandwich", "Sandwich view");
    this.bar.append(this.search, this.reset, this.sandwich);
    this.crumbs = el("div", "fg-crumbs");
    this.status = el("div", "fg-status");
    this.canvas = el("canvas", "fg-canvas");
    this.tip = el("div", "fg-tip");
    this.root.append(this.bar, this.crumbs, this.status, this.canvas, this.tip);
    parent.append(this.root);
    this.root.__flame = this;  // lets tests and bench/ ask where a bar is drawn (locate) and time draws
    this.zoom = 0;
    this.selected = 0;
    this.query = "";
    this.search.addEventListener("input", () => { this.query = this.search.value.trim().toLowerCase(); this.draw(); });
    this.reset.addEventListener("click", () => this.zoomTo(0));
    this.sandwich.addEventListener("click", () => {
      if (this.selected > 0) this.send("sandwich", this.d.func[this.selected]);
    });
    this.canvas.addEventListener("click", (e) => { const i = this.hit(e); if (i >= 0) this.zoomTo(i); });
    this.canvas.addEventListener("mousemove", (e) => this.hover(e));
    this.canvas.addEventListener("mouseleave", () => { this.tip.style.display = "none"; });
    new ResizeObserver(() => this.draw()).observe(this.root);
    this.themeTimer = setInterval(() => {  // the app's theme can change without a rerun
      if (!this.root.isConnected) return clearInterval(this.themeTimer);
      const t = themeOf(this.root);
      if (this.theme && t.bg !== this.theme.bg) this.draw();
    }, 1000);
  }

  update(d) {
    if (d.id !== (this.d && this.d.id)) {
      this.d = d;
      this.l = layout(d);
      this.zoom = 0;
      this.selected = 0;
      this.lower = d.names.map((s) => s.toLowerCase());
    }
    this.focus = d.focus || "";
    this.d.focusWhy = d.focusWhy;
    this.draw();
  }

  isTotal(i) {  // the whole profile's root; a sandwich graph's root is the function itself
    return i === 0 && this.d.func[0] < 0;
  }

  nameOf(i) {
    return this.isTotal(i) ? "total" : this.d.names[this.d.func[i]];
  }

  rowY(row) {  // a flipped graph (a sandwich's callees) grows upwards from its root
    return (this.d.flip ? this.rows - 1 - row : row) * ROW;
  }

  zoomTo(i) {
    this.zoom = i;
    this.selected = i;
    this.draw();
  }

  matches() {
    const d = this.d, q = this.query;
    const out = new Uint8Array(d.parent.length);
    if (!q && !this.focus) return null;
    for (let i = this.isTotal(0) ? 1 : 0; i < out.length; i++) {
      const f = d.func[i];
      out[i] = q ? this.lower[f].includes(q) : d.names[f] === this.focus;
    }
    return out;
  }

  color(i, hit) {
    const d = this.d, t = this.theme;
    if (hit && hit[i]) return t.primary;
    if (hit && this.query) return t.dark ? "#3a3a44" : "#e7e5e4";  // a search fades the rest; an answer's focus does not
    if (this.isTotal(i) || d.func[i] === d.otherId) return t.dark ? "#57534e" : "#a8a29e";
    if (d.mode === "diff") return this.diffColor(i);
    const h = hash(d.groups[d.group[d.func[i]]]) % 360;
    return `hsl(${h}, ${t.dark ? 45 : 65}%, ${t.dark ? 38 : 72}%)`;
  }

  diffColor(i) {  // red for growth, green for shrinkage, grey under the noise floor (Pyroscope's scheme)
    const d = this.d, t = this.theme;
    if (d.noise[i]) return t.dark ? "#57534e" : "#d6d3d1";
    const change = d.after[i] - d.before[i];  // raw, like the noise floor and the before/after table
    const strength = Math.min(1, Math.abs(change) / Math.max(d.maxChange, 1));
    const light = t.dark ? 45 - 15 * strength : 80 - 30 * strength;
    return change >= 0 ? `hsl(0, 75%, ${light}%)` : `hsl(130, 55%, ${light}%)`;
  }

  draw() {
    if (!this.d) return;
    const d = this.d, l = this.l, c = this.canvas;
    this.theme = themeOf(this.root);
    const width = this.root.clientWidth;
    if (width === 0) return;  // a hidden tab: drawn when it is shown (ResizeObserver)
    const z = this.zoom, lo = l.x0[z], span = Math.max(d.total[z], 1), top = l.depth[z];
    const ancestors = [];
    for (let a = z; a > 0; a = d.parent[a]) ancestors.unshift(a);
    const rows = (this.rows = l.deepest[z] + 1);  // a node's row is its depth: its callers fill the rows before it
    const dpr = window.devicePixelRatio || 1;
    c.width = width * dpr;
    c.height = rows * ROW * dpr;
    c.style.width = `${width}px`;
    c.style.height = `${rows * ROW}px`;
    const ctx = c.getContext("2d");
    ctx.scale(dpr, dpr);
    ctx.font = `11px ${this.theme.font}`;
    ctx.textBaseline = "middle";
    const hit = this.matches();
    const scale = width / span;
    this.boxes = [];
    let drawn = 0;
    const bar = (i, x, w, row) => {
      ctx.fillStyle = this.color(i, hit);
      ctx.fillRect(x, this.rowY(row), Math.max(w - 0.5, 0.5), ROW - 1);
      if (i === this.selected && i > 0) {
        ctx.strokeStyle = this.theme.text;
        ctx.strokeRect(x + 0.5, this.rowY(row) + 0.5, Math.max(w - 1.5, 0.5), ROW - 2);
      }
      if (w >= MIN_LABEL_PX) this.label(ctx, i, x, w, row, hit);
      this.boxes.push([row, x, x + w, i]);
      drawn++;
    };
    if (z) [0, ...ancestors.slice(0, -1)].forEach((a, r) => bar(a, 0, width, r));  // the way in, full width
    for (let depth = top; depth <= l.deepest[z]; depth++) {
      for (const i of l.rows[depth]) {
        const x = (l.x0[i] - lo) * scale, w = d.total[i] * scale;
        if (x + w <= 0 || x >= width || w < 0.3) continue;
        if (depth === top && i !== z) continue;
        bar(i, x, w, depth);
      }
    }
    this.root.dataset.drawn = String(drawn);
    this.root.dataset.drawnAt = String(performance.now());
    this.crumb(ancestors);
    this.describe(hit);
  }

  label(ctx, i, x, w, row, hit) {
    const name = this.nameOf(i);
    const room = w - 6;
    let text = name;
    if (ctx.measureText(text).width > room) {
      const per = ctx.measureText("abcdefghij").width / 10;
      const fits = Math.floor(room / per) - 1;
      if (fits < 3) return;
      text = name.slice(0, fits) + "…";
    }
    const faded = hit && !hit[i] && this.query;
    ctx.fillStyle = hit && hit[i] ? "#ffffff" : faded ? (this.theme.dark ? "#8a8a94" : "#a8a29e") : this.theme.dark ? "#f5f5f4" : "#1c1917";
    ctx.fillText(text, x + 3, this.rowY(row) + ROW / 2);
  }

  crumb(ancestors) {
    const d = this.d;
    this.crumbs.replaceChildren();
    this.reset.disabled = this.zoom === 0;
    this.sandwich.disabled = this.selected === 0;
    this.sandwich.title = this.selected ? `Callers and callees of ${d.names[d.func[this.selected]]}` : "Click a bar first";
    if (!ancestors.length) return;
    const all = el("button", "fg-crumb", "all");
    all.addEventListener("click", () => this.zoomTo(0));
    this.crumbs.append(all);
    for (const a of ancestors.slice(-6)) {
      this.crumbs.append(el("span", "fg-sep", " › "));
      const b = el("button", "fg-crumb", d.names[d.func[a]]);
      b.title = d.names[d.func[a]];
      b.addEventListener("click", () => this.zoomTo(a));
      this.crumbs.append(b);
    }
  }

  describe(hit) {
    const d = this.d, z = this.zoom, parts = [];
    if (z) parts.push(`Zoomed on ${d.names[d.func[z]]}: ${formatValue(d.total[z], d.unit)} (${formatShare(d.total[z], d.grand)} of all).`);
    if (hit) parts.push(this.matchText(hit));
    const bars = (d.parent.length - (this.isTotal(0) ? 1 : 0)).toLocaleString("en-US");
    const held = d.mode === "diff"
      ? `baseline ${formatValue(d.grandBefore, d.unit)}, now ${formatValue(d.grandAfter, d.unit)}`
      : this.isTotal(0)
        ? `${formatValue(d.grand, d.unit)} in all`
        : `${this.nameOf(0)} holds ${formatValue(d.total[0], d.unit)} (${formatShare(d.total[0], d.grand)} of all)`;
    if (!parts.length) parts.push(`${bars} bars, ${held}. Click a bar to zoom; hover for details.`);
    this.status.textContent = parts.join(" ");
  }

  matchText(hit) {
    const d = this.d;
    let bars = 0, held = 0;
    for (let i = 1; i < hit.length; i++) {
      if (!hit[i]) continue;
      bars++;
      let nested = false;  // a match inside another match is already counted there
      for (let a = d.parent[i]; a > 0; a = d.parent[a]) if (hit[a]) { nested = true; break; }
      if (!nested) held += d.total[i];
    }
    const what = this.query ? `match “${this.search.value.trim()}”` : `are ${d.focusWhy} ${this.focus}`;
    return `${bars.toLocaleString("en-US")} bar(s) ${what}: they hold ${formatValue(held, d.unit)} (${formatShare(held, d.grand)} of all)` +
      (d.otherId >= 0 ? "; matches merged into grey “other” bars are not counted." : ".");
  }

  hit(e) {
    const r = this.canvas.getBoundingClientRect();
    const x = e.clientX - r.left, y = Math.floor((e.clientY - r.top) / ROW);
    const row = this.d.flip ? this.rows - 1 - y : y;
    for (const [br, a, b, i] of this.boxes || []) if (br === row && x >= a && x < b) return i;
    return -1;
  }

  hover(e) {
    const i = this.hit(e);
    if (i < 0) { this.tip.style.display = "none"; return; }
    const d = this.d, f = d.func[i];
    const lines = [
      ["fg-tip-name", this.nameOf(i)],
      ["", this.isTotal(i) ? "Everything in the profile." : d.meanings[d.meaning[f]]],
    ];
    if (d.mode === "diff") {
      lines.push(["", `Before: ${formatValue(d.before[i], d.unit)} (${formatShare(d.before[i], d.grandBefore)} of the baseline)`]);
      lines.push(["", `After: ${formatValue(d.after[i], d.unit)} (${formatShare(d.after[i], d.grandAfter)} of the new profile)`]);
      lines.push(["", d.noise[i] ? "Change under the noise floor." : `Change: ${d.after[i] >= d.before[i] ? "+" : "−"}${formatValue(Math.abs(d.after[i] - d.before[i]), d.unit)}`]);
    } else {
      lines.push(["", `Total: ${formatValue(d.total[i], d.unit)} (${formatShare(d.total[i], d.grand)} of all)`]);
      lines.push(["", `Self: ${formatValue(d.self[i], d.unit)} (${formatShare(d.self[i], d.grand)} of all)`]);
      if (this.zoom) lines.push(["", `${formatShare(d.total[i], d.total[this.zoom])} of the zoomed bar`]);
    }
    if (!this.isTotal(i)) lines.push(["fg-tip-group", `Colour group: ${d.groups[d.group[f]]}`]);
    this.tip.replaceChildren(...lines.map(([cls, text]) => el("div", cls, text)));
    const r = this.root.getBoundingClientRect();
    this.tip.style.display = "block";
    const left = Math.min(e.clientX - r.left + 12, r.width - this.tip.offsetWidth - 4);
    this.tip.style.left = `${Math.max(left, 0)}px`;
    this.tip.style.top = `${e.clientY - r.top + 14}px`;
  }

  locate(name) {  // for tests: the centre of the first drawn bar with this name, in page pixels
    const r = this.canvas.getBoundingClientRect();
    for (const [row, a, b, i] of this.boxes || []) {
      if (!this.isTotal(i) && this.nameOf(i) === name) return { x: r.left + (a + b) / 2, y: r.top + this.rowY(row) + ROW / 2 };
    }
    return null;
  }
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let view = parentElement.__flame;
  if (!view) {
    view = new FlameView(parentElement, (event, value) => view.sendTo(event, value));
    parentElement.__flame = view;
  }
  view.sendTo = setTriggerValue;
  if (data) view.update(data);
}
