// Browser test of gpuplan serve's page: Debian's chromium, headless,
// driven by playwright-core (pinned in package-lock.json).
//   node check.mjs URL CHROMIUM
// 1. The page loads and, without any user action, shows the startup
//    example's recommendation and its SVG charts.
// 2. The recommendation shown is the one the API returns for the same
//    example (fetched here, not from the page).
// 3. Setting the budget field to $100k re-plans: the recommendation (or
//    the options table) changes; the what-if shows its comparison.
// 4. Fields that newer plan results add (summary, ranges, curve) are
//    drawn when present (and their absence above drew nothing broken).
// 5. Samples = 20 re-plans with /api/plan?samples=20 and shows the ranges
//    and win_share of that answer.
// Exit 0 on success, 1 with a message otherwise.
import { chromium } from 'playwright-core';

const [url, exe] = process.argv.slice(2);
if (!url || !exe) {
  console.error('usage: node check.mjs URL CHROMIUM');
  process.exit(2);
}

function fail(msg) {
  throw new Error(msg);
}

const browser = await chromium.launch({
  executablePath: exe,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
let rc = 0;
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const external = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(url)) external.push(r.url());
  });
  await page.goto(url, { timeout: 30000 });

  // (1) first load: recommendation and charts, no user action
  await page.waitForFunction(() => document.body.dataset.planned, null, { timeout: 60000 });
  const rec1 = (await page.textContent('#rec-name')).trim();
  if (!rec1) fail('no recommendation shown on first load');
  const nCharts = await page.locator('#charts svg.chart').count();
  if (nCharts < 2) fail(`expected the TCO and sensitivity charts, found ${nCharts} svg charts`);
  const nBars = await page.locator('#chart-tco rect').count();
  if (nBars < 2) fail(`TCO chart has ${nBars} bars`);
  const nTicks = await page.locator('#chart-tco text').count();
  if (nTicks < 4) fail('TCO chart has no axis labels');
  const nRows = await page.locator('#options-table tbody tr').count();
  if (nRows < 2) fail(`options table has ${nRows} rows`);

  // (2) the page shows what the API says, its executive summary and the
  // main training run's GPUs-vs-days curve included
  const apiJ = await page.evaluate(async () => {
    const y = await (await fetch('/examples/startup-plan.yaml')).text();
    const r = await fetch('/api/plan', { method: 'POST', body: y });
    return await r.json();
  });
  const api = apiJ.recommendation.name;
  if (!apiJ.summary || !apiJ.summary.runner_up) fail('the API JSON has no summary');
  const runner = (await page.textContent('#runner-up')) || '';
  if (!runner.includes(apiJ.summary.runner_up.name)) fail(`runner-up '${runner}' is not the summary's '${apiJ.summary.runner_up.name}'`);
  const risks = (await page.textContent('#risks')) || '';
  if (apiJ.summary.risks.length && !risks.includes(apiJ.summary.risks[0].text)) fail('first risk not shown');
  if (apiJ.train_curve && (await page.locator('#chart-curve polyline').count()) !== 1) fail('train_curve not drawn');
  if (api !== rec1) fail(`page shows '${rec1}', the API recommends '${api}'`);
  const rowRec = (await page.textContent('#options-table tr.rec td')).trim();
  if (rowRec !== rec1) fail(`highlighted row '${rowRec}' is not the recommendation '${rec1}'`);

  // (3) edit a field: a budget below every option's TCO
  const before = await page.textContent('#options-table');
  const mark = await page.evaluate(() => document.body.dataset.planned);
  await page.fill('#f-budget', '$100k');
  await page.waitForFunction((m) => document.body.dataset.planned !== m, mark, { timeout: 60000 });
  const yaml = await page.inputValue('#yaml');
  if (!/^\s+budget: \$100k$/m.test(yaml)) fail('the budget field did not edit the YAML');
  const rec2 = (await page.textContent('#rec-name')).trim();
  const after = await page.textContent('#options-table');
  if (rec2 === rec1 && after === before) fail('the result did not change after the budget edit');

  // (4) what-if: the comparison table appears
  await page.selectOption('#wi-key', 'constraints.budget');
  await page.fill('#wi-value', '$100k');
  await page.click('#wi-btn');
  await page.waitForSelector('#wi-diff', { timeout: 60000 });
  const nCmp = await page.locator('#wi-table tbody tr').count();
  if (nCmp < 2) fail('what-if comparison table missing');

  // (5) a sampled plan: 20 samples in the Samples field ask the API for
  // ?samples=20; the page shows the ranges and win_share the API returns
  // for the same request (fetched here, not from the page)
  await page.goto(url, { timeout: 30000 });
  await page.waitForFunction(() => document.body.dataset.planned, null, { timeout: 60000 });
  const mark5 = await page.evaluate(() => document.body.dataset.planned);
  await page.fill('#f-samples', '20');
  await page.dispatchEvent('#f-samples', 'change');
  await page.waitForFunction((m) => document.body.dataset.planned !== m, mark5, { timeout: 60000 });
  const apiS = await page.evaluate(async () => {
    const y = await (await fetch('/examples/startup-plan.yaml')).text();
    return await (await fetch('/api/plan?samples=20', { method: 'POST', body: y })).json();
  });
  if (typeof apiS.recommendation.win_share !== 'number') fail('/api/plan?samples=20 has no win_share');
  const share = Math.round(apiS.recommendation.win_share * 100) + '%';
  const recText = await page.textContent('#recommendation');
  if (!recText.includes('P10') || !recText.includes(share)) fail(`ranges/win_share (${share}) not shown: ` + recText);
  if ((await page.locator('#options-table th', { hasText: 'P10' }).count()) !== 1) fail('no P10–P90 column');

  if (errors.length) fail('page errors: ' + errors.join('; '));
  if (external.length) fail('requests outside the server: ' + external.join(', '));
  console.log(`ok: first load '${rec1}' with ${nCharts} charts; budget $100k -> '${rec2}'`);
} catch (e) {
  console.error('FAIL: ' + e.message);
  rc = 1;
} finally {
  await browser.close();
}
process.exit(rc);
