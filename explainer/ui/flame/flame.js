// explainer's flame graph: a canvas flame graph, root at the bottom or (as in Grafana) at the top, drawn in the browser from
// numbers. Names only ever reach the page as text: canvas fillText and element textContent, never
// any HTML parsing. Python sends one payload per profile (see explainer/ui/flamegraph.py); zoom, search
// and tooltips happen here without a rerun; "Sandwich view" sends the selected name back.

const ROW = 18;
const MIN_LABEL_PX = 28;
const MAX_CANVAS_PX = 32000;  // Python cuts a graph at 512 levels (9,216 px); this holds for any payload

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


// Where a long name may be shortened: after a namespace, module or path separator outside any
// brackets, so the part kept is whole words and ends with the function's own name.
function cutPoints(name) {
  const cuts = [];
  let depth = 0;
  for (let i = 0; i < name.length; i++) {
    const ch = name[i];
    if (ch === "<" || ch === "(" || ch === "[") depth++;
    else if ((ch === ">" || ch === ")" || ch === "]") && depth > 0) depth--;
    else if (depth === 0 && (ch === "." || ch === "/" || ch === "\\" || ch === " ")) cuts.push(i + 1);
    else if (depth === 0 && ch === ":" && name[i + 1] === ":") { cuts.push(i + 2); i++; }
  }
  return cuts.filter((c) => c < name.length);
}

// The longest form of ``name`` that fits in ``room`` pixels: the name itself, else "…" and its
// tail from a separator (the package side goes first), else the same with the argument list
// written "(…)"; "" when not even the function's own name fits. Never a cut inside a word.
function shorten(name, room, measure) {
  if (measure(name) <= room) return name;
  const forms = [name];
  const open = name.endsWith(")") ? name.indexOf("(") : -1;
  if (open > 0) forms.push(name.slice(0, open) + "(…)");
  for (const form of forms) {
    for (const c of cutPoints(form)) {
      const text = "…" + form.slice(c);
      if (measure(text) <= room) return text;
    }
    if (form !== name && measure(form) <= room) return form;
  }
  return "";
}

// Chains of one call each (a bar whose only child holds at least 99% of it) of three or more bars:
// "similar stacks" that can be drawn as one bar. group[i] is the chain's first bar, or -1.
function chains(d, kids) {
  const n = d.parent.length, group = new Int32Array(n).fill(-1), tail = new Int32Array(n).fill(-1);
  const single = (i) => kids[i].length === 1 && d.total[kids[i][0]] >= 0.99 * d.total[i];
  for (let i = 1; i < n; i++) {
    if (group[i] >= 0 || !single(i) || (d.parent[i] > 0 && single(d.parent[i]) && group[d.parent[i]] >= 0)) continue;
    const members = [i];
    for (let j = i; single(j); j = kids[j][0]) members.push(kids[j][0]);
    if (members.length < 3) continue;
    for (const m of members) group[m] = i;
    tail[i] = members[members.length - 1];
  }
  return { group, tail };
}

// Layout: children side by side from the parent's left edge, in name order (like pprof). x0 never
// changes; the rows do when groups collapse (see rowsOf).
function layout(d) {
  const n = d.parent.length;
  const kids = Array.from({ length: n }, () => []);
  for (let i = 1; i < n; i++) kids[d.parent[i]].push(i);
  const x0 = new Float64Array(n);
  const name = (i) => d.names[d.func[i]];
  for (let i = 0; i < n; i++) {  // ids are breadth first: a parent is placed before its children
    kids[i].sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
    let left = x0[i];
    for (const k of kids[i]) {
      x0[k] = left;
      left += d.total[k];
    }
  }
  return { x0, kids, ...chains(d, kids) };
}

// Rows with the collapsed groups drawn as one bar each (the group's last bar, which its callees follow).
function rowsOf(d, l, collapsed) {
  const n = d.parent.length;
  const depth = new Int32Array(n), hidden = new Uint8Array(n);
  for (let i = 1; i < n; i++) {
    const p = d.parent[i], g = l.group[i];
    const folded = g >= 0 && collapsed(g);
    hidden[i] = folded && i !== l.tail[g] ? 1 : 0;
    depth[i] = depth[p] + (folded && g !== i ? 0 : 1);
  }
  const rows = [];
  for (let i = 0; i < n; i++) if (!hidden[i]) (rows[depth[i]] ||= []).push(i);
  for (const r of rows) r.sort((a, b) => l.x0[a] - l.x0[b]);
  const deepest = Int32Array.from(depth);  // the deepest row of each subtree sets the canvas height
  for (let i = n - 1; i > 0; i--) deepest[d.parent[i]] = Math.max(deepest[d.parent[i]], deepest[i]);
  return { depth, hidden, rows, deepest };
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
  return { dark: lum < 128, bg: hex, text: v("--st-text-color", "#1c1917"), primary: v("--st-primary-color", "#6d28d9"), font: v("--st-font", "sans-serif") };
}

// Ten colours told apart by hue and lightness (light bars carry dark text, dark bars light text);
// groups past the tenth share a neutral colour, and the legend says so.
const PALETTE = {
  light: ["#9ecae1", "#fdae6b", "#a1d99b", "#f4a3a8", "#c7b3e5", "#f6d365", "#8fd3c8", "#e6b89c", "#b3c7f7", "#d9d98c"],
  dark: ["#1f5f86", "#8c4a12", "#2f6b2f", "#7f2f3a", "#553f80", "#6f5b0c", "#1f6b62", "#6e4630", "#35508f", "#5a5a1f"],
};
const REST = { light: "#d6d3d1", dark: "#4a4744" };
const STORE = { orient: "explainer.flame.orientation", align: "explainer.flame.align", scheme: "explainer.flame.scheme" };
const SCHEMES = [["category", "Colour: memory category"], ["package", "Colour: package"], ["value", "Colour: value"]];

function stored(key, allowed, dflt) {
  try {
    const v = window.localStorage.getItem(key);
    return allowed.includes(v) ? v : dflt;
  } catch (e) {
    return dflt;  // storage disabled: the choice lasts for this page only
  }
}

function remember(key, value) {
  try { window.localStorage.setItem(key, value); } catch (e) { /* storage disabled */ }
}

function select(cls, label, options, value) {
  const s = el("select", cls);
  s.setAttribute("aria-label", label);
  for (const [v, text] of options) {
    const o = el("option", "", text);
    o.value = v;
    s.append(o);
  }
  s.value = value;
  return s;
}

function save(blob, fileName) {  // a download from a Blob: nothing is parsed, nothing leaves the page
  const a = el("a");
  a.href = URL.createObjectURL(blob);
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
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
    this.orientPick = select("fg-orient", "Orientation", [["flame", "Root at the bottom (flame graph)"], ["icicle", "Root at the top (icicle)"]], "flame");
    this.alignPick = select("fg-align", "Text alignment", [["left", "Text left"], ["right", "Text right"]], "left");
    this.schemePick = select("fg-scheme", "Colour scheme", SCHEMES, "category");
    this.expandAll = el("button", "fg-expand", "Expand all groups");
    this.collapseAll = el("button", "fg-collapse", "Collapse all groups");
    this.png = el("button", "fg-png", "PNG");
    this.png.setAttribute("aria-label", "Download the flame graph as PNG");
    this.svg = el("button", "fg-svg", "SVG");
    this.svg.setAttribute("aria-label", "Download the flame graph as SVG");
    this.bar.append(this.search, this.reset, this.sandwich, this.orientPick, this.alignPick, this.schemePick,
      this.expandAll, this.collapseAll, this.png, this.svg);
    this.legend = el("div", "fg-legend");
    this.legend.setAttribute("aria-label", "Colour legend");
    this.crumbs = el("div", "fg-crumbs");
    this.status = el("div", "fg-status");
    this.canvas = el("canvas", "fg-canvas");
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute("role", "application");
    this.canvas.setAttribute("aria-roledescription", "flame graph");
    this.live = el("div", "fg-live");
    this.live.setAttribute("aria-live", "polite");
    this.tip = el("div", "fg-tip");
    this.menu = el("div", "fg-menu");
    this.menu.setAttribute("role", "menu");
    this.root.append(this.bar, this.legend, this.crumbs, this.status, this.canvas, this.live, this.tip, this.menu);
    parent.append(this.root);
    this.root.__flame = this;  // lets tests and bench/ ask where a bar is drawn (locate) and time draws
    this.zoom = 0;
    this.selected = 0;
    this.query = "";
    this.orient = stored(STORE.orient, ["flame", "icicle"], "flame");
    this.align = stored(STORE.align, ["left", "right"], "left");
    this.scheme = stored(STORE.scheme, SCHEMES.map((s) => s[0]), "category");
    this.orientPick.value = this.orient;
    this.alignPick.value = this.align;
    this.schemePick.value = this.scheme;
    this.collapsedAll = false;  // groups start expanded; "Collapse all groups" folds them
    this.toggled = new Set();  // group heads whose state differs from collapsedAll
    this.search.addEventListener("input", () => { this.query = this.search.value.trim().toLowerCase(); this.draw(); });
    this.reset.addEventListener("click", () => this.zoomTo(0));
    this.sandwich.addEventListener("click", () => this.toSandwich(this.selected));
    this.orientPick.addEventListener("change", () => this.setOrientation(this.orientPick.value));
    this.alignPick.addEventListener("change", () => { this.align = this.alignPick.value; remember(STORE.align, this.align); this.draw(); });
    this.schemePick.addEventListener("change", () => { this.scheme = this.schemePick.value; remember(STORE.scheme, this.scheme); this.draw(); });
    this.expandAll.addEventListener("click", () => this.setGroups(false));
    this.collapseAll.addEventListener("click", () => this.setGroups(true));
    this.png.addEventListener("click", () => this.canvas.toBlob((b) => b && save(b, "flamegraph.png"), "image/png"));
    this.svg.addEventListener("click", () => save(new Blob([this.toSvg()], { type: "image/svg+xml" }), "flamegraph.svg"));
    this.canvas.addEventListener("click", (e) => { const i = this.hit(e); if (i >= 0) this.openMenu(i, e.clientX, e.clientY); else this.closeMenu(); });
    this.canvas.addEventListener("dblclick", (e) => { const i = this.hit(e); if (i >= 0) { this.closeMenu(); this.zoomTo(i); } });
    this.canvas.addEventListener("mousemove", (e) => this.hover(e));
    this.canvas.addEventListener("mouseleave", () => { this.tip.style.display = "none"; });
    this.canvas.addEventListener("keydown", (e) => this.key(e));
    this.canvas.addEventListener("focus", () => { if (!this.selected && this.d) this.choose(this.firstBar()); });
    this.menu.addEventListener("keydown", (e) => { if (e.key === "Escape") { this.closeMenu(); this.canvas.focus(); } });
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
      this.toggled.clear();
      this.lower = d.names.map((s) => s.toLowerCase());
      this.colours = null;
      this.regroup();
    }
    this.fixed = d.orientation === undefined;  // a sandwich's two graphs keep their own directions
    this.orientPick.hidden = this.fixed;
    if (!this.fixed && d.orientation !== this.orient && !this.told) {
      this.told = true;  // once per page: the server learns this browser's remembered choice
      this.sendState("orientation", this.orient);
    }
    this.focus = d.focus || "";
    this.d.focusWhy = d.focusWhy;
    this.draw();
  }

  flipped() {  // root at the bottom: rows grow upwards
    return this.fixed ? !!this.d.flip : this.orient === "flame";
  }

  setOrientation(o) {
    this.orient = o;
    remember(STORE.orient, o);
    this.draw();
    this.sendState("orientation", o);  // the chat words "above" and "below" for what is drawn
  }

  sendState(key, value) {
    if (this.setState) this.setState(key, value);
  }

  isCollapsed(g) {
    return this.collapsedAll !== this.toggled.has(g);
  }

  regroup() {
    this.r = rowsOf(this.d, this.l, (g) => this.isCollapsed(g));
    if (this.r.hidden[this.zoom]) this.zoom = this.l.tail[this.l.group[this.zoom]];
    if (this.r.hidden[this.selected]) this.selected = this.l.tail[this.l.group[this.selected]];
  }

  setGroups(collapsed) {
    this.collapsedAll = collapsed;
    this.toggled.clear();
    this.regroup();
    this.draw();
  }

  toggleGroup(g) {
    if (this.toggled.has(g)) this.toggled.delete(g); else this.toggled.add(g);
    this.regroup();
    this.draw();
  }

  groupCount() {
    let n = 0;
    for (let i = 1; i < this.l.group.length; i++) if (this.l.group[i] === i) n++;
    return n;
  }

  isTotal(i) {  // the whole profile's root; a sandwich graph's root is the function itself
    return i === 0 && this.d.func[0] < 0;
  }

  nameOf(i) {
    return this.isTotal(i) ? "total" : this.d.names[this.d.func[i]];
  }

  folded(i) {  // the bars a collapsed group's bar stands for (itself last), or null
    const g = this.l.group[i];
    if (g < 0 || !this.isCollapsed(g) || this.l.tail[g] !== i) return null;
    const out = [];
    for (let a = i; a !== g; a = this.d.parent[a]) out.unshift(a);
    out.unshift(g);
    return out;
  }

  rowY(row) {
    return (this.flipped() ? this.rows - 1 - row : row) * ROW;
  }

  zoomTo(i) {
    this.zoom = i;
    this.selected = i;
    this.draw();
    this.announce(i);
  }

  choose(i) {
    this.selected = i;
    this.draw();
    this.announce(i);
  }

  toSandwich(i) {
    if (i > 0 && this.d.func[i] !== this.d.otherId && this.send) this.send("sandwich", this.d.func[i]);
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

  // The colour of each key of the scheme: the heaviest ten keys get the palette, the rest share one.
  keyColours() {
    const d = this.d, mode = this.theme.dark ? "dark" : "light";
    const cacheKey = `${this.scheme}/${mode}`;
    if (this.colours && this.colours.key === cacheKey) return this.colours;
    const keyOf = this.scheme === "package" ? (f) => d.packages[d.package[f]] : (f) => d.groups[d.group[f]];
    const weight = new Map();
    for (let i = 1; i < d.parent.length; i++) {
      const f = d.func[i];
      if (f < 0 || f === d.otherId) continue;
      const k = keyOf(f);
      weight.set(k, (weight.get(k) || 0) + d.self[i]);
    }
    const ranked = [...weight.keys()].sort((a, b) => weight.get(b) - weight.get(a) || (a < b ? -1 : 1));
    const colour = new Map(ranked.slice(0, PALETTE[mode].length).map((k, r) => [k, PALETTE[mode][r]]));
    this.colours = { key: cacheKey, keyOf, colour, rest: ranked.length - colour.size, ranked };
    return this.colours;
  }

  valueColour(i) {  // light to dark orange by the share of everything the bar holds
    const share = Math.min(1, this.d.total[i] / Math.max(this.d.grand, 1));
    const s = Math.sqrt(share);
    return this.theme.dark ? `hsl(28, 70%, ${18 + 30 * s}%)` : `hsl(28, 85%, ${88 - 38 * s}%)`;
  }

  color(i, hit) {
    const d = this.d, t = this.theme;
    if (hit && hit[i]) return t.primary;
    if (hit && this.query) return t.dark ? "#3a3a44" : "#e7e5e4";  // a search fades the rest; an answer's focus does not
    if (this.isTotal(i) || d.func[i] === d.otherId) return t.dark ? "#57534e" : "#a8a29e";
    if (d.mode === "diff") return this.diffColor(i);
    if (this.scheme === "value") return this.valueColour(i);
    const c = this.keyColours();
    return c.colour.get(c.keyOf(d.func[i])) || REST[t.dark ? "dark" : "light"];
  }

  // Growth red, shrinkage blue, grey under the noise floor: red and blue stay apart for readers
  // with the common red-green colour blindness, where red and green would not.
  diffColor(i) {
    const d = this.d, t = this.theme;
    if (d.noise[i]) return t.dark ? "#57534e" : "#d6d3d1";
    const change = d.after[i] - d.before[i];  // raw, like the noise floor and the before/after table
    const strength = Math.min(1, Math.abs(change) / Math.max(d.maxChange, 1));
    const light = t.dark ? 45 - 15 * strength : 80 - 30 * strength;
    return change >= 0 ? `hsl(0, 75%, ${light}%)` : `hsl(215, 80%, ${light}%)`;
  }

  drawLegend() {
    const d = this.d, t = this.theme, items = [];
    const swatch = (colour, text) => {
      const item = el("span", "fg-key");
      const sw = el("span", "fg-swatch");
      sw.style.background = colour;
      item.dataset.colour = colour;
      item.append(sw, el("span", "fg-key-text", text));
      items.push(item);
    };
    if (d.mode === "diff") {
      swatch(`hsl(0, 75%, ${t.dark ? 30 : 50}%)`, "grew");
      swatch(`hsl(215, 80%, ${t.dark ? 30 : 50}%)`, "shrank");
      swatch(t.dark ? "#57534e" : "#d6d3d1", "under the noise floor");
    } else if (this.scheme === "value") {
      const saved = this.d.total;  // the scale's ends, coloured as a bar of that share would be
      swatch(this.valueColour(0), `${formatValue(d.grand, d.unit)} (all)`);
      this.d.total = [Math.round(d.grand / 100)];
      swatch(this.valueColour(0), `${formatValue(d.total[0], d.unit)} (1%)`);
      this.d.total = saved;
    } else {
      const c = this.keyColours();
      for (const [k, colour] of c.colour) swatch(colour, k);
      if (c.rest > 0) swatch(REST[t.dark ? "dark" : "light"], `${c.rest} more ${this.scheme === "package" ? "package" : "group"}${c.rest === 1 ? "" : "s"}`);
    }
    if (d.otherId >= 0) swatch(t.dark ? "#57534e" : "#a8a29e", "merged small paths / total");
    this.legend.replaceChildren(...items);
  }

  draw() {
    if (!this.d) return;
    const d = this.d, l = this.l, r = this.r, c = this.canvas;
    this.theme = themeOf(this.root);
    const width = this.root.clientWidth;
    if (width === 0) return;  // a hidden tab: drawn when it is shown (ResizeObserver)
    const z = this.zoom, lo = l.x0[z], span = Math.max(d.total[z], 1), top = r.depth[z];
    const ancestors = this.path(z);
    const rows = (this.rows = r.deepest[z] + 1);  // a node's row is its depth: its callers fill the rows before it
    // a canvas past 32,767 device pixels a side is blank in Chromium: scale down rather than lose the graph
    const dpr = Math.min(window.devicePixelRatio || 1, MAX_CANVAS_PX / Math.max(rows * ROW, width, 1));
    c.width = width * dpr;
    c.height = rows * ROW * dpr;
    c.style.width = `${width}px`;
    c.style.height = `${rows * ROW}px`;
    const ctx = c.getContext("2d");
    ctx.scale(dpr, dpr);
    ctx.fillStyle = this.theme.bg;  // an exported PNG keeps the page's background
    ctx.fillRect(0, 0, width, rows * ROW);
    ctx.font = `11px ${this.theme.font}`;
    ctx.textBaseline = "middle";
    const hit = this.matches();
    const scale = width / span;
    const widths = new Map();
    const measure = (s) => { let w = widths.get(s); if (w === undefined) { w = ctx.measureText(s).width; widths.set(s, w); } return w; };
    this.boxes = [];
    this.labels = [];
    let drawn = 0;
    const bar = (i, x, w, row) => {
      const fill = this.color(i, hit);
      ctx.fillStyle = fill;
      ctx.fillRect(x, this.rowY(row), Math.max(w - 0.5, 0.5), ROW - 1);
      if (i === this.selected && i > 0) {
        ctx.strokeStyle = this.theme.text;
        ctx.strokeRect(x + 0.5, this.rowY(row) + 0.5, Math.max(w - 1.5, 0.5), ROW - 2);
      }
      const text = w >= MIN_LABEL_PX ? this.label(ctx, i, x, w, row, hit, measure) : "";
      this.boxes.push([row, x, x + w, i, fill, text]);
      drawn++;
    };
    if (z) [0, ...ancestors.slice(0, -1)].forEach((a, k) => bar(a, 0, width, k));  // the way in, full width
    for (let depth = top; depth <= r.deepest[z]; depth++) {
      for (const i of r.rows[depth] || []) {
        const x = (l.x0[i] - lo) * scale, w = d.total[i] * scale;
        if (x + w <= 0 || x >= width || w < 0.3) continue;
        if (depth === top && i !== z) continue;
        bar(i, x, w, depth);
      }
    }
    this.root.dataset.drawn = String(drawn);
    this.root.dataset.orientation = this.flipped() ? "flame" : "icicle";
    this.root.dataset.drawnAt = String(performance.now());
    this.canvas.setAttribute("aria-label", `Flame graph, root at the ${this.flipped() ? "bottom" : "top"}: ` +
      `arrow keys move between bars, Enter zooms, Escape resets the zoom, M opens the bar's menu.`);
    const groups = this.groupCount();
    this.expandAll.hidden = this.collapseAll.hidden = groups === 0;
    this.expandAll.disabled = !this.collapsedAll && !this.toggled.size;
    this.collapseAll.disabled = this.collapsedAll && !this.toggled.size;
    this.drawLegend();
    this.crumb(ancestors);
    this.describe(hit);
  }

  path(z) {  // the drawn bars from the root's first child down to z
    const out = [];
    for (let a = z; a > 0; a = this.d.parent[a]) if (!this.r.hidden[a]) out.unshift(a);
    return out;
  }

  label(ctx, i, x, w, row, hit, measure) {
    const fold = this.folded(i);
    const prefix = fold ? `+${fold.length - 1} ` : "";
    const room = w - 6 - (prefix ? measure(prefix) : 0);
    const text = shorten(this.nameOf(i), room, measure);
    if (!text) return "";
    const faded = hit && !hit[i] && this.query;
    ctx.fillStyle = hit && hit[i] ? "#ffffff" : faded ? (this.theme.dark ? "#8a8a94" : "#a8a29e") : this.theme.dark ? "#f5f5f4" : "#1c1917";
    const y = this.rowY(row) + ROW / 2;
    if (this.align === "right") {
      ctx.textAlign = "right";
      ctx.fillText(prefix + text, x + w - 3, y);
      ctx.textAlign = "left";
    } else {
      ctx.fillText(prefix + text, x + 3, y);
    }
    this.labels.push({ i, name: this.nameOf(i), text, prefix });
    return prefix + text;
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
    const reading = this.fixed ? "" : this.flipped()
      ? " Root at the bottom: each bar's callees sit above it."
      : " Root at the top: each bar's callees hang below it.";
    if (!parts.length) parts.push(`${bars} bars, ${held}.${reading} Click a bar for its menu, double-click to zoom; hover for details.`);
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
    const row = this.flipped() ? this.rows - 1 - y : y;
    for (const [br, a, b, i] of this.boxes || []) if (br === row && x >= a && x < b) return i;
    return -1;
  }

  // What a bar is, in words: the tooltip's lines, the live region's sentence and the SVG's titles.
  facts(i) {
    const d = this.d, f = d.func[i];
    const lines = [["fg-tip-name", this.nameOf(i)]];
    const fold = this.folded(i);
    if (fold) lines.push(["fg-tip-group", `A group of ${fold.length} calls, one each: ${fold.map((a) => this.nameOf(a)).join(" → ")}`]);
    lines.push(["", this.isTotal(i) ? "Everything in the profile." : d.meanings[d.meaning[f]]]);
    if (d.mode === "diff") {
      lines.push(["", `Before: ${formatValue(d.before[i], d.unit)} (${formatShare(d.before[i], d.grandBefore)} of the baseline)`]);
      lines.push(["", `After: ${formatValue(d.after[i], d.unit)} (${formatShare(d.after[i], d.grandAfter)} of the new profile)`]);
      lines.push(["", d.noise[i] ? "Change under the noise floor." : `Change: ${d.after[i] >= d.before[i] ? "+" : "−"}${formatValue(Math.abs(d.after[i] - d.before[i]), d.unit)}`]);
    } else {
      lines.push(["", `Total: ${formatValue(d.total[i], d.unit)} (${formatShare(d.total[i], d.grand)} of all)`]);
      lines.push(["", `Self: ${formatValue(d.self[i], d.unit)} (${formatShare(d.self[i], d.grand)} of all)`]);
      if (this.zoom) lines.push(["", `${formatShare(d.total[i], d.total[this.zoom])} of the zoomed bar`]);
    }
    if (!this.isTotal(i) && d.mode !== "diff") {
      const key = this.scheme === "package" ? `Package: ${d.packages[d.package[f]]}` : `Colour group: ${d.groups[d.group[f]]}`;
      lines.push(["fg-tip-group", key]);
    }
    return lines;
  }

  hover(e) {
    const i = this.hit(e);
    if (i < 0 || this.menu.style.display === "block") { this.tip.style.display = "none"; return; }
    this.tip.replaceChildren(...this.facts(i).map(([cls, text]) => el("div", cls, text)));
    const r = this.root.getBoundingClientRect();
    this.tip.style.display = "block";
    const left = Math.min(e.clientX - r.left + 12, r.width - this.tip.offsetWidth - 4);
    this.tip.style.left = `${Math.max(left, 0)}px`;
    this.tip.style.top = `${e.clientY - r.top + 14}px`;
  }

  announce(i) {
    const lines = this.facts(i).filter(([cls]) => cls !== "fg-tip-group").map(([, t]) => t);
    this.live.textContent = lines.join(". ");
  }

  openMenu(i, clientX, clientY) {
    this.choose(i);
    this.tip.style.display = "none";
    const d = this.d, items = [];
    const item = (text, act) => {
      const b = el("button", "fg-menu-item", text);
      b.setAttribute("role", "menuitem");
      b.addEventListener("click", () => { this.closeMenu(); act(); });
      items.push(b);
    };
    item("Focus block", () => this.zoomTo(i));
    if (i > 0 && d.func[i] !== d.otherId) {
      item("Sandwich view", () => this.toSandwich(i));
      item("Copy function name", () => this.copy(this.nameOf(i)));
    }
    const g = d.parent.length > i ? this.l.group[i] : -1;
    if (g >= 0) item(this.isCollapsed(g) ? "Expand group" : "Collapse group", () => this.toggleGroup(g));
    this.menu.replaceChildren(el("div", "fg-menu-title", this.nameOf(i)), ...items);
    const r = this.root.getBoundingClientRect();
    this.menu.style.display = "block";
    this.menu.style.left = `${Math.max(0, Math.min(clientX - r.left, r.width - this.menu.offsetWidth - 4))}px`;
    this.menu.style.top = `${clientY - r.top + 6}px`;
    items[0].focus();
  }

  closeMenu() {
    this.menu.style.display = "none";
  }

  copy(text) {
    const done = () => { this.status.textContent = `Copied “${text}”.`; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, () => this.copyByHand(text, done));
    } else {
      this.copyByHand(text, done);
    }
  }

  copyByHand(text, done) {  // a plain text field selected and copied: still only text, never markup
    const area = el("textarea", "fg-copy");
    area.value = text;
    this.root.append(area);
    area.select();
    try { if (document.execCommand("copy")) done(); } finally { area.remove(); }
  }

  firstBar() {  // the widest drawn bar under the zoomed one (or the root's widest child)
    const z = this.zoom, kids = this.visibleKids(z);
    return kids.length ? kids.reduce((a, b) => (this.d.total[b] > this.d.total[a] ? b : a)) : z;
  }

  visibleKids(i) {  // the drawn children of a drawn bar (a collapsed group's bar has its last member's)
    const out = [];
    const walk = (a) => { for (const k of this.l.kids[a]) { if (this.r.hidden[k]) walk(k); else out.push(k); } };
    walk(i);
    return out;
  }

  key(e) {
    if (!this.d) return;
    const i = this.selected, d = this.d;
    const up = this.flipped() ? "ArrowUp" : "ArrowDown";  // towards the callees
    let next = -1;
    if (e.key === "Escape") { this.closeMenu(); this.zoomTo(0); e.preventDefault(); return; }
    if (e.key === "Enter") { this.zoomTo(i); e.preventDefault(); return; }
    if (e.key === "m" || e.key === "M" || e.key === "ContextMenu") {
      const box = (this.boxes || []).find((b) => b[3] === i);
      const r = this.canvas.getBoundingClientRect();
      if (box) this.openMenu(i, r.left + (box[1] + box[2]) / 2, r.top + this.rowY(box[0]) + ROW);
      e.preventDefault();
      return;
    }
    if (e.key === up) {
      const kids = this.visibleKids(i);
      next = kids.length ? kids.reduce((a, b) => (d.total[b] > d.total[a] ? b : a)) : -1;
    } else if (e.key === "ArrowUp" || e.key === "ArrowDown") {
      let p = d.parent[i];
      while (p > 0 && this.r.hidden[p]) p = d.parent[p];
      next = i > 0 ? p : -1;
    } else if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      const row = (this.boxes || []).filter((b) => b[3] !== i && this.r.depth[b[3]] === this.r.depth[i]);
      const here = (this.boxes || []).find((b) => b[3] === i);
      if (here) {
        const side = e.key === "ArrowLeft" ? row.filter((b) => b[2] <= here[1] + 0.01) : row.filter((b) => b[1] >= here[2] - 0.01);
        const pick = side.sort((a, b) => (e.key === "ArrowLeft" ? b[1] - a[1] : a[1] - b[1]))[0];
        if (pick) next = pick[3];
      }
    } else {
      return;
    }
    e.preventDefault();
    if (next >= 0) this.choose(next);
  }

  // The drawn view as SVG: elements made with createElementNS and textContent, written by
  // XMLSerializer, so every name is escaped and nothing is parsed as markup.
  toSvg() {
    const NS = "http://www.w3.org/2000/svg";
    const width = this.root.clientWidth, height = this.rows * ROW;
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("width", String(width));
    svg.setAttribute("height", String(height));
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("font-family", "sans-serif");
    svg.setAttribute("font-size", "11");
    const bg = document.createElementNS(NS, "rect");
    for (const [k, v] of [["width", width], ["height", height], ["fill", this.theme.bg]]) bg.setAttribute(k, String(v));
    svg.append(bg);
    const ink = this.theme.dark ? "#f5f5f4" : "#1c1917";
    for (const [row, a, b, i, fill, text] of this.boxes || []) {
      const g = document.createElementNS(NS, "g");
      const rect = document.createElementNS(NS, "rect");
      const y = this.rowY(row);
      for (const [k, v] of [["x", a.toFixed(2)], ["y", y], ["width", Math.max(b - a - 0.5, 0.5).toFixed(2)], ["height", ROW - 1], ["fill", fill]]) rect.setAttribute(k, String(v));
      const title = document.createElementNS(NS, "title");
      title.textContent = this.facts(i).map(([, t]) => t).join("\n");
      rect.append(title);
      g.append(rect);
      if (text) {
        const t = document.createElementNS(NS, "text");
        const right = this.align === "right";
        t.setAttribute("x", (right ? b - 3 : a + 3).toFixed(2));
        t.setAttribute("y", String(y + ROW / 2 + 4));
        t.setAttribute("fill", ink);
        if (right) t.setAttribute("text-anchor", "end");
        t.textContent = text;
        g.append(t);
      }
      svg.append(g);
    }
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(svg);
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
  const { data, parentElement, setTriggerValue, setStateValue } = component;
  let view = parentElement.__flame;
  if (!view) {
    view = new FlameView(parentElement, (event, value) => view.sendTo(event, value));
    parentElement.__flame = view;
  }
  view.sendTo = setTriggerValue;
  view.setState = setStateValue;
  if (data) view.update(data);
}
