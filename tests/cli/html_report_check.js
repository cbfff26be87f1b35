#!/usr/bin/env node
'use strict';
// Loads a `kiln profile --html` page in headless Chromium (playwright-core driving the system's
// /usr/bin/chromium, a fresh profile directory) and checks it against the profile's --json:
// no console error or page error, no request but the page itself, one table row per node,
// one bar per op type, one timeline box per event, one memory-plan box per planned value,
// sorting by a column works. Saves a screenshot.
//
//   node html_report_check.js REPORT.html REPORT.json SCREENSHOT.png
//
// Exit 0: all checks pass; 1: a check failed (printed); 2: usage or set-up error.
const fs = require('fs');
const os = require('os');
const path = require('path');

async function main() {
  const [html, jsonPath, shot] = process.argv.slice(2);
  if (!html || !jsonPath || !shot) {
    console.error('usage: node html_report_check.js REPORT.html REPORT.json SCREENSHOT.png');
    process.exit(2);
  }
  const { chromium } = require('playwright-core');
  const doc = JSON.parse(fs.readFileSync(jsonPath, 'utf8'));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'kiln-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.KILN_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const failures = [];
  const fail = (msg) => failures.push(msg);
  try {
    const page = await context.newPage();
    const url = 'file://' + path.resolve(html);
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') fail(`console ${m.type()}: ${m.text()}`); });
    page.on('pageerror', (e) => fail('page error: ' + e.message));
    page.on('request', (r) => { if (r.url() !== url) fail('request: ' + r.url()); });
    page.on('requestfailed', (r) => { if (r.url() === url) fail('the page itself failed to load'); });
    await page.goto(url, { waitUntil: 'load' });
    const count = (sel) => page.$$eval(sel, (x) => x.length);
    const rows = await count('#nodes tbody tr');
    if (rows !== doc.nodes.length) fail(`${rows} table rows for ${doc.nodes.length} nodes`);
    const bars = await count('#by-op svg rect');
    if (bars !== doc.by_op.length) fail(`${bars} op-type bars for ${doc.by_op.length} op types`);
    const events = doc.timeline ? doc.timeline.events.length : 0;
    const boxes = await count('#timeline svg rect');
    if (!events || boxes !== events) fail(`${boxes} timeline boxes for ${events} events`);
    const plan = doc.memory && doc.memory.plan ? doc.memory.plan.length : 0;
    const slots = await count('#memory svg rect');
    if (!plan || slots !== plan) fail(`${slots} memory boxes for ${plan} planned values`);
    const withFma = doc.nodes.filter((n) => typeof n.fma === 'number' && n.fma > 0 && n.ms > 0).length;
    const points = await count('#scatter svg circle');
    if (points !== withFma) fail(`${points} scatter points for ${withFma} nodes with FMA and time`);
    const header = await page.$eval('#summary', (e) => e.textContent);
    for (const want of [doc.model, doc.isa, doc.cpu, doc.stage])
      if (!header.includes(String(want))) fail(`header misses '${want}'`);
    // Sort by ms/i (descending first): the first row is the slowest node.
    const headers = await page.$$eval('#nodes thead th', (x) => x.map((h) => h.textContent));
    const msCol = headers.indexOf('ms/i');
    if (msCol < 0) fail('no ms/i column');
    else {
      await page.click(`#nodes thead th:nth-child(${msCol + 1})`);
      const first = await page.$eval('#nodes tbody tr', (tr) => Number(tr.dataset.node));
      const slowest = doc.nodes.reduce((a, b) => (b.ms > a.ms ? b : a));
      if (first !== slowest.id) fail(`after sorting by ms/i the first row is node ${first}, not ${slowest.id}`);
    }
    const refs = await count('#nodes tbody td.ref');
    const refNodes = doc.nodes.filter((n) => n.reference).length;
    if (refs !== refNodes) fail(`${refs} reference cells for ${refNodes} reference nodes`);
    await page.screenshot({ path: shot, fullPage: true });
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  if (failures.length) {
    for (const f of failures) console.log('FAIL ' + f);
    process.exit(1);
  }
  console.log(`ok ${path.basename(html)}: ${doc.nodes.length} rows, screenshot ${shot}`);
}

main().catch((e) => { console.error(e && e.stack || e); process.exit(2); });
