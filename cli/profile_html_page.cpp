// The style and script of the `kiln profile --html` page. The script reads the profile JSON
// document embedded in the page (#kiln-data) and draws everything with DOM and SVG elements;
// text from the model goes through textContent only, never parsed as HTML.
#include "cli/profile_html.h"

namespace kiln::cli {

const char* const kProfilePageStyle = R"CSS(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; background: #fff; }
h1 { margin: 0 0 .3em; font-size: 1.6em; }
h2 { font-size: 1.2em; margin: 1.6em 0 .4em; border-bottom: 1px solid #ccc; }
dl#summary { display: grid; grid-template-columns: max-content auto max-content auto; gap: .2em 1em; margin: 0; }
dl#summary dt { font-weight: 600; color: #555; }
dl#summary dd { margin: 0; }
.hint { color: #666; margin: .2em 0 .6em; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: left; white-space: nowrap; }
th { cursor: pointer; background: #f4f4f4; position: sticky; top: 0; user-select: none; }
th.sorted-asc::after { content: " \25B2"; } th.sorted-desc::after { content: " \25BC"; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.name { max-width: 28em; overflow: hidden; text-overflow: ellipsis; }
.ref { color: #a40; font-weight: 600; }
tr.hidden { display: none; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
svg .axis { stroke: #999; stroke-width: 1; }
svg .roof { stroke: #2a7; stroke-width: 1.5; stroke-dasharray: 5 3; }
#filter { margin-left: 1em; }
)CSS";

const char* const kProfilePageScript = R"JS(
'use strict';
(function () {
  const doc = JSON.parse(document.getElementById('kiln-data').textContent);
  const NS = 'http://www.w3.org/2000/svg';
  const nodes = Array.isArray(doc.nodes) ? doc.nodes : [];
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const profiled = typeof doc.total_ms === 'number';
  const memory = doc.memory || {};

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function svgEl(tag, attrs, parent, text) {
    const e = document.createElementNS(NS, tag);
    for (const k of Object.keys(attrs)) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = String(text);
    if (parent) parent.appendChild(e);
    return e;
  }
  function titled(e, text) { svgEl('title', {}, e, text); return e; }
  function num(v) { return typeof v === 'number' && isFinite(v) ? v : null; }
  function fixed(v, d) { return num(v) === null ? '' : v.toFixed(d); }
  function bytes(b) {
    if (num(b) === null) return b === undefined ? '' : String(b);
    if (b >= 1048576) return (b / 1048576).toFixed(2) + ' MiB';
    if (b >= 1024) return (b / 1024).toFixed(1) + ' KiB';
    return b + ' B';
  }
  function count(v) {
    if (num(v) === null) return v === undefined || v === null ? '' : String(v);
    if (v >= 1e9) return (v / 1e9).toFixed(2) + 'G';
    if (v >= 1e6) return (v / 1e6).toFixed(2) + 'M';
    if (v >= 1e3) return (v / 1e3).toFixed(1) + 'k';
    return String(v);
  }
  function color(op) {
    let h = 0;
    for (const c of String(op)) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    return 'hsl(' + (h % 360) + ',55%,55%)';
  }
  function label(n) { return (n.name || '(unnamed)') + ' (' + n.op + ')'; }
  function note(id, text) { document.getElementById(id).textContent = text; }

  // Header.
  const summary = document.getElementById('summary');
  function fact(name, value) {
    if (value === undefined || value === null || value === '') return;
    summary.appendChild(el('dt', name));
    summary.appendChild(el('dd', value));
  }
  fact('model', doc.model);
  fact('stage', doc.stage);
  fact('CPU', doc.cpu);
  fact('ISA', doc.isa);
  fact('threads', doc.threads);
  fact('inputs', doc.inputs);
  if (profiled) {
    fact('whole network', fixed(doc.total_ms, 3) + ' ms/i (mean of ' + doc.runs + ' runs; median ' +
         fixed(doc.median_ms, 3) + ')');
    fact('accounted by nodes', fixed(doc.accounted_ms, 3) + ' ms/i, ' +
         fixed(doc.accounted_percent, 1) + '%');
    if (num(doc.total_fma) !== null && doc.total_ms > 0)
      fact('throughput', (2 * doc.total_fma / (doc.total_ms * 1e6)).toFixed(2) + ' GF/s');
  }
  fact('FMA', count(doc.total_fma));
  fact('nodes', nodes.length + (doc.reference_nodes ? ' (' + doc.reference_nodes + ' reference)' : ''));
  fact('weights', bytes(memory.weights_bytes));
  fact('arena', memory.arena_bytes === undefined ? '' :
       bytes(memory.arena_bytes) + ' for ' + memory.planned_values + ' values');
  fact('peak RSS', bytes(memory.peak_rss_bytes));

  // Per op type bars: time when profiled, FMA otherwise.
  (function () {
    const rows = Array.isArray(doc.by_op) ? doc.by_op : [];
    const key = profiled ? 'ms' : 'fma';
    const max = Math.max(1e-12, ...rows.map((r) => num(r[key]) || 0));
    const rowH = 22, left = 190, barW = 520, width = left + barW + 330;
    const s = svgEl('svg', {width: width, height: rows.length * rowH + 6, role: 'img'});
    rows.forEach((r, i) => {
      const y = i * rowH + 3, w = Math.max(1, barW * (num(r[key]) || 0) / max);
      svgEl('text', {x: left - 6, y: y + 15, 'text-anchor': 'end'}, s, r.op);
      titled(svgEl('rect', {x: left, y: y + 2, width: w, height: rowH - 6, fill: color(r.op)}, s),
             r.op + ': ' + r.nodes + ' nodes');
      const text = (profiled ? fixed(r.ms, 3) + ' ms/i, ' + fixed(r.percent, 1) + '%, ' : '') +
                   r.nodes + ' node' + (r.nodes > 1 ? 's' : '') + ', FMA ' + count(r.fma);
      svgEl('text', {x: left + w + 6, y: y + 15}, s, text);
    });
    document.getElementById('by-op').appendChild(s);
  })();

  // The node table, sortable by any column.
  (function () {
    const step = new Map();
    (memory.order || []).forEach((id, i) => step.set(id, i));
    const cols = [
      ['step', 'step', true, (n) => (step.has(n.id) ? step.get(n.id) : null)],
      ['id', 'id', true, (n) => n.id],
      ['name', 'name', false, (n) => n.name],
      ['op', 'op', false, (n) => n.op],
      ['ms', 'ms/i', true, (n) => num(n.ms)],
      ['percent', '%', true, (n) => num(n.percent)],
      ['fma', 'FMA', true, (n) => n.fma],
      ['gflops', 'GF/s', true, (n) => num(n.gflops) || null],
      ['shape', 'output shape', false, (n) => (n.output_shapes || []).join(' ')],
      ['kernel', 'kernel', false, (n) => n.kernel || ''],
      ['reference', 'reference', false, (n) => (n.reference ? 'reference' : '')],
    ].filter((c) => profiled || !['ms', 'percent', 'gflops'].includes(c[0]));
    const table = document.getElementById('nodes');
    const head = el('tr');
    cols.forEach((c) => head.appendChild(el('th', c[1])));
    table.tHead.appendChild(head);
    const body = table.tBodies[0];
    const rows = nodes.map((n) => {
      const tr = el('tr');
      tr.dataset.node = n.id;
      cols.forEach((c) => {
        const v = c[3](n);
        let text = v;
        if (c[0] === 'ms') text = fixed(v, 3);
        else if (c[0] === 'percent') text = fixed(v, 1);
        else if (c[0] === 'gflops') text = fixed(v, 2);
        const td = el('td', text === null ? '' : text,
                      (c[2] ? 'num' : '') + (c[0] === 'name' ? ' name' : '') +
                      (c[0] === 'reference' && v ? ' ref' : ''));
        if (c[0] === 'name') td.title = n.name;
        tr.appendChild(td);
      });
      body.appendChild(tr);
      return {tr: tr, node: n};
    });
    let sortCol = -1, ascending = true;
    function compare(a, b, c) {
      const x = c[3](a.node), y = c[3](b.node);
      const missing = (v) => v === null || v === undefined || v === '';
      if (missing(x) || missing(y)) return missing(x) - missing(y);
      if (typeof x === 'number' && typeof y === 'number') return x - y;
      return String(x).localeCompare(String(y));
    }
    Array.from(head.children).forEach((th, i) => {
      th.addEventListener('click', () => {
        ascending = sortCol === i ? !ascending : !cols[i][2];
        sortCol = i;
        Array.from(head.children).forEach((h) => (h.className = ''));
        th.className = ascending ? 'sorted-asc' : 'sorted-desc';
        const sorted = rows.slice().sort((a, b) => {
          const r = compare(a, b, cols[i]);
          return ascending ? r : -r;
        });
        sorted.forEach((r) => body.appendChild(r.tr));
      });
    });
    document.getElementById('filter').addEventListener('input', (e) => {
      const q = e.target.value.toLowerCase();
      rows.forEach((r) => {
        const text = (r.node.name + ' ' + r.node.op + ' ' + (r.node.kernel || '')).toLowerCase();
        r.tr.classList.toggle('hidden', q !== '' && !text.includes(q));
      });
    });
  })();

  // Timeline: one lane per thread that evaluated nodes.
  (function () {
    const t = doc.timeline;
    if (!t || !Array.isArray(t.events) || !t.events.length) {
      note('timeline-note', 'No timeline: the model was not profiled.');
      return;
    }
    const events = t.events;
    const lanes = Array.from(new Set(events.map((e) => (e.thread === undefined ? t.thread : e.thread))));
    const end = Math.max(...events.map((e) => e.start_us + e.us), 1e-3);
    note('timeline-note', 'Run ' + t.run + ' (the median run), ' + end.toFixed(1) + ' us of node ' +
         'evaluations. kiln evaluates nodes one after the other on the calling thread (one lane); ' +
         'the ' + doc.threads + ' kernel thread(s) share the work inside each node.');
    const left = 80, laneH = 34, width = Math.min(8000, Math.max(900, events.length * 5)) + left + 20;
    const scale = (width - left - 20) / end;
    const s = svgEl('svg', {width: width, height: lanes.length * laneH + 30, role: 'img'});
    lanes.forEach((lane, li) => {
      svgEl('text', {x: 4, y: li * laneH + 22}, s, 'thread ' + lane);
    });
    for (const e of events) {
      const n = byId.get(e.node) || {name: '#' + e.node, op: '?'};
      const li = lanes.indexOf(e.thread === undefined ? t.thread : e.thread);
      titled(svgEl('rect', {x: left + e.start_us * scale, y: li * laneH + 6,
                            width: Math.max(0.5, e.us * scale), height: laneH - 10,
                            fill: color(n.op), stroke: '#fff', 'stroke-width': 0.4}, s),
             label(n) + ': ' + e.us.toFixed(2) + ' us at ' + e.start_us.toFixed(1) + ' us');
    }
    const axisY = lanes.length * laneH + 4;
    svgEl('line', {x1: left, y1: axisY, x2: width - 20, y2: axisY, class: 'axis'}, s);
    for (let i = 0; i <= 10; i++) {
      const x = left + (width - left - 20) * i / 10;
      svgEl('line', {x1: x, y1: axisY, x2: x, y2: axisY + 4, class: 'axis'}, s);
      svgEl('text', {x: x, y: axisY + 16, 'text-anchor': 'middle'}, s, (end * i / 10).toFixed(0) + ' us');
    }
    document.getElementById('timeline').appendChild(s);
  })();

  // Cost against time, log-log, with the best node's rate as the roofline.
  (function () {
    const pts = nodes.filter((n) => num(n.fma) > 0 && num(n.ms) > 0);
    if (!pts.length) {
      note('scatter-note', profiled ? 'No node has both an FMA count and a time.' :
           'No times: the model was not profiled.');
      return;
    }
    const best = Math.max(...pts.map((n) => 2 * n.fma / (n.ms * 1e6)));
    note('scatter-note', pts.length + ' nodes with FMA (of ' + nodes.length + '). The dashed line ' +
         'is the best node rate, ' + best.toFixed(2) + ' GF/s; red points run under 10% of it, ' +
         'orange under a third.');
    const W = 760, H = 440, L = 70, B = 40, T = 10, R = 20;
    const lx = pts.map((n) => Math.log10(n.fma)), ly = pts.map((n) => Math.log10(n.ms));
    const x0 = Math.floor(Math.min(...lx)), x1 = Math.ceil(Math.max(...lx) + 1e-9);
    const y0 = Math.floor(Math.min(...ly)), y1 = Math.ceil(Math.max(...ly) + 1e-9);
    const sx = (v) => L + (W - L - R) * (v - x0) / Math.max(1, x1 - x0);
    const sy = (v) => H - B - (H - B - T) * (v - y0) / Math.max(1, y1 - y0);
    const s = svgEl('svg', {width: W, height: H, role: 'img'});
    svgEl('line', {x1: L, y1: H - B, x2: W - R, y2: H - B, class: 'axis'}, s);
    svgEl('line', {x1: L, y1: T, x2: L, y2: H - B, class: 'axis'}, s);
    for (let v = x0; v <= x1; v++)
      svgEl('text', {x: sx(v), y: H - B + 16, 'text-anchor': 'middle'}, s, count(Math.pow(10, v)));
    for (let v = y0; v <= y1; v++)
      svgEl('text', {x: L - 6, y: sy(v) + 4, 'text-anchor': 'end'}, s, Math.pow(10, v) + ' ms');
    svgEl('text', {x: (L + W) / 2, y: H - 6, 'text-anchor': 'middle'}, s, 'FMA (log)');
    // Roofline: ms = 2 FMA / (best GF/s * 1e6), i.e. log ms = log FMA + c, kept inside the axes.
    const c = Math.log10(2 / (best * 1e6));
    const ra = Math.max(x0, y0 - c), rb = Math.min(x1, y1 - c);
    if (ra < rb)
      svgEl('line', {x1: sx(ra), y1: sy(ra + c), x2: sx(rb), y2: sy(rb + c), class: 'roof'}, s);
    for (const n of pts) {
      const eff = (2 * n.fma / (n.ms * 1e6)) / best;
      const fill = eff < 0.1 ? '#d33' : eff < 1 / 3 ? '#e90' : '#37c';
      titled(svgEl('circle', {cx: sx(Math.log10(n.fma)), cy: sy(Math.log10(n.ms)), r: 4,
                              fill: fill, 'fill-opacity': 0.8}, s),
             label(n) + ': ' + count(n.fma) + ' FMA, ' + n.ms.toFixed(3) + ' ms, ' +
             (2 * n.fma / (n.ms * 1e6)).toFixed(2) + ' GF/s');
    }
    document.getElementById('scatter').appendChild(s);
  })();

  // Memory plan: each arena value is a box from the step that writes it to its last use,
  // at its offset in the arena.
  (function () {
    const plan = Array.isArray(memory.plan) ? memory.plan : [];
    const order = Array.isArray(memory.order) ? memory.order : [];
    if (!plan.length || !order.length) {
      note('memory-note', 'No memory plan: the model did not run, or no value was planned.');
      return;
    }
    const arena = Math.max(1, memory.arena_bytes || 0, ...plan.map((v) => v.offset + v.bytes));
    note('memory-note', plan.length + ' values share an arena of ' + bytes(memory.arena_bytes) +
         ' (' + bytes(memory.planned_bytes) + ' if each had its own buffer) over ' + order.length +
         ' steps; x: evaluation step, y: offset in the arena.');
    const L = 80, B = 30, T = 10, H = 380;
    const W = Math.min(8000, Math.max(900, order.length * 6)) + L + 20;
    const sx = (step) => L + (W - L - 20) * step / order.length;
    const sy = (off) => T + (H - B - T) * off / arena;
    const s = svgEl('svg', {width: W, height: H, role: 'img'});
    for (const v of plan) {
      const n = byId.get(v.node) || {name: '#' + v.node, op: '?'};
      titled(svgEl('rect', {x: sx(v.first_step), y: sy(v.offset),
                            width: Math.max(1, sx(v.last_step + 1) - sx(v.first_step)),
                            height: Math.max(1, sy(v.offset + v.bytes) - sy(v.offset)),
                            fill: color(n.op), 'fill-opacity': 0.75, stroke: '#fff',
                            'stroke-width': 0.5}, s),
             label(n) + (v.slot ? ' output ' + v.slot : '') + ': ' + bytes(v.bytes) + ' at ' +
             v.offset + ', steps ' + v.first_step + '..' + v.last_step);
    }
    svgEl('line', {x1: L, y1: H - B, x2: W - 20, y2: H - B, class: 'axis'}, s);
    svgEl('line', {x1: L, y1: T, x2: L, y2: H - B, class: 'axis'}, s);
    for (let i = 0; i <= 4; i++)
      svgEl('text', {x: L - 6, y: sy(arena * i / 4) + 4, 'text-anchor': 'end'}, s, bytes(Math.round(arena * i / 4)));
    for (let i = 0; i <= 10; i++)
      svgEl('text', {x: sx(order.length * i / 10), y: H - B + 16, 'text-anchor': 'middle'}, s,
            Math.round(order.length * i / 10));
    document.getElementById('memory').appendChild(s);
  })();
})();
)JS";

}  // namespace kiln::cli
