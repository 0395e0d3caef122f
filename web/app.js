/* gpuplan serve: the planning assistant's page script.
 *
 * It edits the YAML text, posts it to /api/plan and draws what the JSON
 * says.  It decides nothing: every number shown is a field of the plan
 * JSON (docs/formats/plan.md), formatted for reading.  Fields that newer
 * builds add (summary, ranges, curve) are drawn when present and left out
 * when absent.
 */
'use strict';

const $ = (id) => document.getElementById(id);
let current = null;       /* the last plan JSON shown */
let timer = null;
let seq = 0;

/* ---------------------------------------------------------------- DOM */

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else e.setAttribute(k, v);
  }
  for (const k of kids) {
    if (k === null || k === undefined) continue;
    e.append(k instanceof Node ? k : String(k));
  }
  return e;
}

const SVGNS = 'http://www.w3.org/2000/svg';
function sv(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/* --------------------------------------------------------- formatting */

function money(v) {
  if (typeof v !== 'number' || !isFinite(v)) return '—';
  const a = Math.abs(v);
  if (a >= 1e9) return '$' + (v / 1e9).toFixed(2) + 'B';
  if (a >= 1e6) return '$' + (v / 1e6).toFixed(2) + 'M';
  if (a >= 1e3) return '$' + (v / 1e3).toFixed(0) + 'k';
  return '$' + v.toFixed(2);
}
function num(v, d) {
  if (typeof v !== 'number' || !isFinite(v)) return '—';
  return v.toLocaleString('en-US', { maximumFractionDigits: d === undefined ? 1 : d });
}
function fmtAxis(v, unit) {
  return unit === '$' ? money(v) : num(v, 2);
}

/* Nice tick values covering [lo, hi]. */
function ticks(lo, hi, n) {
  if (!(hi > lo)) { hi = lo + 1; }
  const raw = (hi - lo) / (n || 5);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || raw;
  const out = [];
  const last = Math.ceil(hi / step - 1e-9) * step;
  for (let t = Math.floor(lo / step + 1e-9) * step; t <= last + step * 1e-9; t += step) out.push(t);
  return out;
}

const COLORS = ['#2b6cb0', '#dd6b20', '#38a169', '#805ad5', '#d53f8c',
                '#319795', '#b7791f', '#e53e3e', '#4a5568', '#00a3c4'];

/* ------------------------------------------------------- YAML fields */
/* Plain line edits of top-level "key: v" and "section:\n  key: v"
 * lines, enough for the form's fields; anything else is edited in the
 * text itself.
 */

function esc(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }

function sectionRange(lines, section) {
  const start = lines.findIndex((l) => new RegExp('^' + esc(section) + ':\\s*(#.*)?$').test(l));
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && (/^\s/.test(lines[end]) || lines[end].trim() === '')) end++;
  return [start, end];
}

function yamlGet(text, key) {
  const lines = text.split('\n');
  const parts = key.split('.');
  let re, from = 0, to = lines.length;
  if (parts.length === 1) {
    re = new RegExp('^' + esc(parts[0]) + ':\\s*(.*)$');
  } else {
    const r = sectionRange(lines, parts[0]);
    if (!r) return '';
    [from, to] = r;
    re = new RegExp('^\\s+' + esc(parts[1]) + ':\\s*(.*)$');
  }
  for (let i = from; i < to; i++) {
    const m = lines[i].match(re);
    if (m) return m[1].replace(/\s+#.*$/, '');
  }
  return '';
}

function yamlSet(text, key, value) {
  const lines = text.split('\n');
  const parts = key.split('.');
  if (parts.length === 1) {
    const re = new RegExp('^' + esc(parts[0]) + ':');
    const i = lines.findIndex((l) => re.test(l));
    if (i >= 0) lines[i] = parts[0] + ': ' + value;
    else lines.splice(0, 0, parts[0] + ': ' + value);
    return lines.join('\n');
  }
  const r = sectionRange(lines, parts[0]);
  if (!r) return text.replace(/\n*$/, '\n') + parts[0] + ':\n  ' + parts[1] + ': ' + value + '\n';
  const re = new RegExp('^(\\s+)' + esc(parts[1]) + ':');
  for (let i = r[0] + 1; i < r[1]; i++) {
    const m = lines[i].match(re);
    if (m) { lines[i] = m[1] + parts[1] + ': ' + value; return lines.join('\n'); }
  }
  const ind = (lines[r[0] + 1] || '  ').match(/^(\s*)/)[1] || '  ';
  lines.splice(r[0] + 1, 0, ind + parts[1] + ': ' + value);
  return lines.join('\n');
}

function fillFields() {
  const text = $('yaml').value;
  for (const inp of document.querySelectorAll('#fields input')) {
    inp.value = yamlGet(text, inp.dataset.key);
  }
}

/* ---------------------------------------------------------------- API */

/* POST the spec; 'samples' > 0 asks for that many sampled plans (the
 * ranges and win_share of plan --samples N, default seed). */
async function postPlan(yaml, samples) {
  const q = samples > 0 ? '?samples=' + samples : '';
  const r = await fetch('/api/plan' + q, { method: 'POST', body: yaml,
                                       headers: { 'Content-Type': 'application/yaml' } });
  const body = await r.json();
  return { status: r.status, body };
}

function showError(body, status) {
  const e = body && body.error ? body.error : { message: 'HTTP ' + status };
  const box = $('error');
  box.hidden = false;
  box.textContent = (e.line ? 'line ' + e.line + ', col ' + e.col + ': ' : '') + e.message;
  if (e.line) {
    const ta = $('yaml');
    const lines = ta.value.split('\n');
    let off = 0;
    for (let i = 0; i < e.line - 1 && i < lines.length; i++) off += lines[i].length + 1;
    ta.setSelectionRange(off + Math.max(0, e.col - 1), off + (lines[e.line - 1] || '').length);
  }
}

async function plan() {
  const my = ++seq;
  $('status').textContent = 'planning…';
  let res;
  try {
    res = await postPlan($('yaml').value, parseInt($('f-samples').value, 10) || 0);
  } catch (err) {
    $('status').textContent = 'error: ' + err;
    return;
  }
  if (my !== seq) return; /* a newer edit is on its way */
  if (res.status !== 200) {
    $('status').textContent = 'error ' + res.status;
    showError(res.body, res.status);
    return;
  }
  $('error').hidden = true;
  current = res.body;
  render(current);
  $('status').textContent = 'planned: ' + (current.plan || '');
  document.body.dataset.planned = String(my);
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(plan, 500);
}

/* ------------------------------------------------------------ results */

function recOption(d) {
  const name = d.recommendation && d.recommendation.name;
  return (d.options || []).find((o) => o.name === name) || null;
}

function optRange(d, o, field) {
  const r = o.ranges || (d.ranges && d.ranges.options &&
            (Array.isArray(d.ranges.options)
              ? (d.ranges.options.find((x) => x.name === o.name) || null)
              : d.ranges.options[o.name]));
  const v = r && r[field];
  return v && typeof v.p10 === 'number' ? v : null;
}

/* Any JSON value as nested lists (for summary/diff fields whose shape a
 * newer build defines).
 */
function renderValue(v) {
  if (v === null || v === undefined) return el('span', { class: 'muted' }, '—');
  if (Array.isArray(v)) return el('ul', { class: 'kv' }, ...v.map((x) => el('li', {}, renderValue(x))));
  if (typeof v === 'object') {
    return el('ul', { class: 'kv' }, ...Object.entries(v).map(([k, x]) =>
      el('li', {}, el('b', {}, k.replace(/_/g, ' ') + ': '), renderValue(x))));
  }
  if (typeof v === 'number') return String(Math.abs(v) >= 1000 ? num(v, 0) : num(v, 3));
  return String(v);
}

/* The plan's executive summary (docs/formats/plan.md, "summary"): the
 * TCO range, the runner-up and what would make it win, risks and
 * decisions, all as the library wrote them.
 */
function execSummary(sm) {
  const parts = [];
  const tr = sm.tco_range;
  if (tr && typeof tr.low_usd === 'number') {
    parts.push(el('div', { id: 'tco-range' }, 'TCO range (' + (tr.basis || 'range') + '): ' +
      money(tr.low_usd) + ' – ' + money(tr.high_usd)));
  } else if (tr && tr.p10 !== undefined) {
    parts.push(el('div', { id: 'tco-range' }, 'TCO P10 / P50 / P90: ' + money(tr.p10) + ' / ' +
      money(tr.p50) + ' / ' + money(tr.p90)));
  }
  const ru = sm.runner_up;
  if (ru && ru.name) {
    parts.push(el('div', { id: 'runner-up' }, 'Runner-up: ' + ru.name + ' at ' + money(ru.tco_usd) +
      (typeof ru.cut_share === 'number' ? '; it wins if its TCO falls by ' + num(ru.cut_share * 100, 1) + '%' : '') +
      (ru.picked_under ? ' or under ' + (typeof ru.picked_under === 'string' ? ru.picked_under : JSON.stringify(ru.picked_under)) : '')));
  }
  const list = (title, id, xs) => (Array.isArray(xs) && xs.length)
    ? el('div', { id }, el('b', {}, title), el('ul', {}, ...xs.map((x) => el('li', {}, x.text || JSON.stringify(x)))))
    : null;
  parts.push(list('Top risks', 'risks', sm.risks));
  parts.push(list('Decisions to take', 'decisions', sm.decisions));
  return el('div', { id: 'exec-summary' }, ...parts.filter(Boolean));
}

function renderSummary(d) {
  const box = $('summary');
  box.replaceChildren();
  const rec = d.recommendation || {};
  const o = recOption(d);
  const r = o ? optRange(d, o, 'tco_usd') : null;
  box.append(el('div', { class: 'rec-box', id: 'recommendation' },
    el('div', {}, 'Recommendation'),
    el('div', { class: 'name', id: 'rec-name' }, rec.name || 'no option meets the constraints'),
    o ? el('div', {}, 'TCO ' + money(o.tco_usd) +
           (r ? ' (P10–P90 ' + money(r.p10) + '–' + money(r.p90) + ')' : '') +
           ', ' + num(o.gpus, 0) + ' GPUs, ' + money(o.cost_per_gpu_hour_usd) + ' per GPU-hour') : null,
    typeof rec.win_share === 'number'
      ? el('div', {}, 'cheapest feasible in ' + num(rec.win_share * 100, 0) + '% of samples') : null));
  if (d.summary && typeof d.summary === 'object') {
    box.append(execSummary(d.summary));
    return;
  }
  if (rec.reasons && rec.reasons.length) box.append(el('ul', {}, ...rec.reasons.map((x) => el('li', {}, x))));
  if (rec.shortfalls && rec.shortfalls.length) {
    box.append(el('p', {}, 'Shortfalls:'), renderValue(rec.shortfalls));
  }
  if (rec.nearest_without_shortfalls) box.append(el('p', {}, 'Nearest without shortfalls: ', renderValue(rec.nearest_without_shortfalls)));
}

function renderOptions(d) {
  const recName = d.recommendation && d.recommendation.name;
  const anyRange = (d.options || []).some((o) => optRange(d, o, 'tco_usd'));
  const head = el('tr', {}, el('th', {}, 'option'), el('th', {}, 'status'),
    el('th', { class: 'num' }, 'GPUs'), el('th', { class: 'num' }, 'TCO'),
    anyRange ? el('th', { class: 'num' }, 'TCO P10–P90') : null,
    el('th', { class: 'num' }, '$/GPU-h'), el('th', { class: 'num' }, 'power kW'),
    el('th', {}, 'why not'));
  const rows = (d.options || []).map((o) => {
    const r = optRange(d, o, 'tco_usd');
    const why = o.feasible ? '' : (o.violation || o.infeasible_reason || o.status || '');
    return el('tr', { class: o.name === recName ? 'rec' : (o.feasible ? '' : 'infeasible') },
      el('td', {}, o.name), el('td', {}, o.feasible ? 'feasible' : 'infeasible'),
      el('td', { class: 'num' }, num(o.gpus, 0)), el('td', { class: 'num' }, money(o.tco_usd)),
      anyRange ? el('td', { class: 'num' }, r ? money(r.p10) + '–' + money(r.p90) : '—') : null,
      el('td', { class: 'num' }, num(o.cost_per_gpu_hour_usd, 2)),
      el('td', { class: 'num' }, num(o.power_kw, 1)),
      el('td', {}, typeof why === 'string' ? why : JSON.stringify(why)));
  });
  $('options').replaceChildren(el('table', { id: 'options-table' }, el('thead', {}, head), el('tbody', {}, ...rows)));
}

/* Horizontal bars: items {label, value, lo, hi, color}; optional ranges
 * drawn as whiskers; a vertical reference line at 'ref'.
 */
function hbarChart(id, title, items, unit, ref, fromZero) {
  const maxLabel = Math.max(...items.map((i) => String(i.label).length));
  const W = 680, rowH = 22, L = Math.min(320, 12 + 6.4 * maxLabel), R = 24, T = 10, B = 34;
  const H = T + B + rowH * items.length;
  const vals = items.flatMap((i) => [i.value, i.lo, i.hi, i.from]).filter((v) => typeof v === 'number' && isFinite(v));
  if (!vals.length) return null;
  const lo = fromZero === false ? Math.min(...vals) : Math.min(0, ...vals), hi = Math.max(...vals);
  const tk = ticks(lo, hi, 5);
  const x0 = tk[0], x1 = tk[tk.length - 1];
  const X = (v) => L + (W - L - R) * (v - x0) / ((x1 - x0) || 1);
  const svg = sv('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', role: 'img', 'aria-label': title, class: 'chart', id });
  for (const t of tk) {
    svg.append(sv('line', { x1: X(t), x2: X(t), y1: T, y2: H - B, stroke: '#e2e8f0' }));
    svg.append(sv('text', { x: X(t), y: H - B + 14, 'text-anchor': 'middle' }, fmtAxis(t, unit)));
  }
  svg.append(sv('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: '#4a5568' }));
  svg.append(sv('text', { x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle' }, unit === '$' ? 'US dollars' : unit));
  items.forEach((it, i) => {
    const y = T + i * rowH;
    svg.append(sv('text', { x: L - 6, y: y + 15, 'text-anchor': 'end' }, it.label));
    const a = typeof it.from === 'number' ? it.from : 0;
    if (typeof it.value === 'number' && isFinite(it.value)) {
      const xa = X(Math.min(a, it.value)), xb = X(Math.max(a, it.value));
      svg.append(sv('rect', { x: xa, y: y + 4, width: Math.max(1, xb - xa), height: rowH - 8,
                              fill: it.color || COLORS[i % COLORS.length] }));
    }
    if (typeof it.lo === 'number' && typeof it.hi === 'number') {
      svg.append(sv('line', { x1: X(it.lo), x2: X(it.hi), y1: y + rowH / 2, y2: y + rowH / 2, stroke: '#1a202c', 'stroke-width': 2 }));
      svg.append(sv('line', { x1: X(it.lo), x2: X(it.lo), y1: y + 5, y2: y + rowH - 5, stroke: '#1a202c' }));
      svg.append(sv('line', { x1: X(it.hi), x2: X(it.hi), y1: y + 5, y2: y + rowH - 5, stroke: '#1a202c' }));
    }
  });
  if (typeof ref === 'number') {
    svg.append(sv('line', { x1: X(ref), x2: X(ref), y1: T, y2: H - B, stroke: '#1a202c', 'stroke-dasharray': '4 3' }));
  }
  return el('figure', {}, el('figcaption', {}, title), svg);
}

/* Points of a curve in any of the shapes a curve field may take:
 * [{days, gpus}], {points: [...]}, {x: [...], y: [...]}.
 */
function curveSeries(c) {
  const out = [];
  const fromPts = (name, pts) => {
    if (!Array.isArray(pts) || !pts.length || typeof pts[0] !== 'object') return;
    const keys = Object.keys(pts[0]).filter((k) => typeof pts[0][k] === 'number');
    const xk = keys.find((k) => /day/.test(k)) || keys[0];
    const yk = keys.find((k) => /gpu/.test(k) && k !== xk) || keys.find((k) => k !== xk);
    if (!xk || !yk) return;
    out.push({ name, xk, yk, pts: pts.map((p) => [p[xk], p[yk]]).filter((p) => isFinite(p[0]) && isFinite(p[1])) });
  };
  if (Array.isArray(c)) {
    if (c.length && typeof c[0] === 'object' && (c[0].points || c[0].curve)) {
      c.forEach((s, i) => fromPts(s.name || s.workload || s.accelerator || ('series ' + (i + 1)), s.points || s.curve));
    } else fromPts('curve', c);
  } else if (c && typeof c === 'object') {
    if (c.points) fromPts(c.workload || c.name || 'curve', c.points);
    else for (const [k, v] of Object.entries(c)) {
      if (Array.isArray(v)) fromPts(k, v);
      else if (v && v.points) fromPts(k, v.points);
    }
  }
  return out.filter((s) => s.pts.length);
}

function lineChart(id, title, series) {
  const W = 640, H = 260, L = 60, R = 20, T = 10, B = 40;
  const xs = series.flatMap((s) => s.pts.map((p) => p[0])), ys = series.flatMap((s) => s.pts.map((p) => p[1]));
  const tx = ticks(Math.min(...xs), Math.max(...xs), 6), ty = ticks(0, Math.max(...ys), 5);
  const X = (v) => L + (W - L - R) * (v - tx[0]) / ((tx[tx.length - 1] - tx[0]) || 1);
  const Y = (v) => H - B - (H - T - B) * (v - ty[0]) / ((ty[ty.length - 1] - ty[0]) || 1);
  const svg = sv('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', role: 'img', 'aria-label': title, class: 'chart', id });
  for (const t of tx) svg.append(sv('text', { x: X(t), y: H - B + 14, 'text-anchor': 'middle' }, num(t, 1)));
  for (const t of ty) {
    svg.append(sv('line', { x1: L, x2: W - R, y1: Y(t), y2: Y(t), stroke: '#e2e8f0' }));
    svg.append(sv('text', { x: L - 4, y: Y(t) + 4, 'text-anchor': 'end' }, num(t, 0)));
  }
  svg.append(sv('text', { x: (L + W) / 2, y: H - 6, 'text-anchor': 'middle' }, series[0].xk.replace(/_/g, ' ')));
  svg.append(sv('text', { x: 12, y: T + (H - B) / 2, transform: `rotate(-90 12 ${T + (H - B) / 2})`, 'text-anchor': 'middle' }, series[0].yk.replace(/_/g, ' ')));
  series.forEach((s, i) => {
    const c = COLORS[i % COLORS.length];
    svg.append(sv('polyline', { points: s.pts.map((p) => X(p[0]) + ',' + Y(p[1])).join(' '), fill: 'none', stroke: c, 'stroke-width': 2 }));
    svg.append(sv('text', { x: W - R - 4, y: T + 12 + 13 * i, 'text-anchor': 'end', fill: c }, s.name));
  });
  return el('figure', {}, el('figcaption', {}, title), svg);
}

function renderCharts(d) {
  const box = $('charts');
  box.replaceChildren();
  const recName = d.recommendation && d.recommendation.name;
  const opts = (d.options || []).filter((o) => typeof o.tco_usd === 'number');
  const tco = hbarChart('chart-tco', 'TCO over the horizon per option (recommended in blue; whiskers: P10–P90 when sampled)',
    opts.map((o) => {
      const r = optRange(d, o, 'tco_usd');
      return { label: o.name, value: o.tco_usd, lo: r && r.p10, hi: r && r.p90,
               color: o.name === recName ? '#2b6cb0' : (o.feasible ? '#a0aec0' : '#fed7d7') };
    }), '$', undefined, true);
  if (tco) box.append(tco);
  const rec = recOption(d);
  const sens = (d.sensitivity || []).filter((s) => typeof s.tco_low_usd === 'number' && typeof s.tco_high_usd === 'number');
  if (sens.length) {
    const t = hbarChart('chart-sensitivity', 'Sensitivity: TCO of the recommendation at the low and high factor of each parameter (dashed: base)',
      sens.map((s, i) => ({ label: s.parameter, from: Math.min(s.tco_low_usd, s.tco_high_usd),
                             value: Math.max(s.tco_low_usd, s.tco_high_usd), color: COLORS[(i + 1) % COLORS.length] })),
      '$', rec ? rec.tco_usd : undefined, false);
    if (t) box.append(t);
  }
  const curve = d.train_curve !== undefined ? d.train_curve : d.curve;
  if (curve) {
    const series = curveSeries(curve);
    if (series.length) box.append(lineChart('chart-curve', 'GPUs against days', series));
    else box.append(el('figure', {}, el('figcaption', {}, 'Curve'), renderValue(curve)));
  }
}

function render(d) {
  renderSummary(d);
  renderOptions(d);
  renderCharts(d);
}

/* ------------------------------------------------------------ what-if */

function whatIfKeys() {
  const sel = $('wi-key');
  for (const inp of document.querySelectorAll('#fields input')) {
    sel.append(el('option', { value: inp.dataset.key }, inp.dataset.key));
  }
  sel.value = 'constraints.budget';
}

function compareTable(a, b) {
  const names = [];
  for (const o of (a.options || []).concat(b.options || [])) if (!names.includes(o.name)) names.push(o.name);
  const get = (d, n) => (d.options || []).find((o) => o.name === n) || {};
  const rows = names.map((n) => {
    const x = get(a, n), y = get(b, n);
    const ch = money(x.tco_usd) !== money(y.tco_usd) || x.feasible !== y.feasible;
    return el('tr', { class: ch ? 'changed' : '' }, el('td', {}, n),
      el('td', { class: 'num' }, money(x.tco_usd)), el('td', {}, x.feasible ? 'feasible' : 'infeasible'),
      el('td', { class: 'num' }, money(y.tco_usd)), el('td', {}, y.feasible ? 'feasible' : 'infeasible'));
  });
  return el('table', { id: 'wi-table' }, el('thead', {}, el('tr', {}, el('th', {}, 'option'),
    el('th', { class: 'num' }, 'TCO before'), el('th', {}, 'before'),
    el('th', { class: 'num' }, 'TCO after'), el('th', {}, 'after'))), el('tbody', {}, ...rows));
}

async function whatIf() {
  const out = $('wi-out');
  const key = $('wi-key').value, value = $('wi-value').value.trim();
  if (!value) { out.replaceChildren(el('p', { class: 'error' }, 'enter a new value')); return; }
  out.replaceChildren(el('p', { class: 'muted' }, 'planning both…'));
  const yamlA = $('yaml').value, yamlB = yamlSet(yamlA, key, value);
  const [ra, rb] = await Promise.all([postPlan(yamlA), postPlan(yamlB)]);
  if (ra.status !== 200 || rb.status !== 200) {
    const e = (ra.status !== 200 ? ra : rb).body.error || {};
    out.replaceChildren(el('p', { class: 'error' }, (ra.status !== 200 ? 'before: ' : 'after: ') + (e.message || 'error')));
    return;
  }
  const a = ra.body, b = rb.body;
  const recA = (a.recommendation && a.recommendation.name) || 'none', recB = (b.recommendation && b.recommendation.name) || 'none';
  out.replaceChildren(
    el('p', { id: 'wi-rec' }, `${key}: ${yamlGet(yamlA, key) || '(default)'} → ${value}. Recommendation: ${recA} → ${recB}`),
    compareTable(a, b));
  const r = await fetch('/api/diff', { method: 'POST', body: JSON.stringify({ a, b }),
                                      headers: { 'Content-Type': 'application/json' } });
  const body = await r.json();
  if (r.status === 200) out.append(el('h3', {}, 'Diff'), el('div', { id: 'wi-diff' }, renderValue(body)));
  else if (r.status === 501) out.append(el('p', { class: 'muted', id: 'wi-diff' }, 'The field-by-field diff is not yet supported by this build (501); the table above shows both plans side by side.'));
  else out.append(el('p', { class: 'error' }, (body.error && body.error.message) || ('diff: HTTP ' + r.status)));
}

/* -------------------------------------------------------------- start */

async function loadExample(path) {
  const r = await fetch('/' + path);
  $('yaml').value = await r.text();
  fillFields();
  await plan();
}

function start() {
  whatIfKeys();
  $('plan-btn').addEventListener('click', plan);
  $('wi-btn').addEventListener('click', whatIf);
  $('example').addEventListener('change', (e) => loadExample(e.target.value));
  $('yaml').addEventListener('input', () => { fillFields(); schedule(); });
  $('f-samples').addEventListener('change', schedule);
  for (const inp of document.querySelectorAll('#fields input')) {
    inp.addEventListener('input', () => {
      if (inp.value.trim() === '') return;
      $('yaml').value = yamlSet($('yaml').value, inp.dataset.key, inp.value.trim());
      schedule();
    });
  }
  loadExample($('example').value);
}

start();
