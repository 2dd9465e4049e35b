// DOM-level checks on the workbench, as a user sees it: the activity-bar container and its
// tree, the ticking status bar spend, and the calculator webview's chart.
import * as path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import { EXPECTED_GPU_NAME, RUNNING_INSTANCE, STOPPED_INSTANCE } from './shared';

export interface UiCheck {
  title: string;
  /** Later checks need this one (e.g. the workbench loading). */
  stopOnFail?: boolean;
  run(page: Page, ctx: { outDir: string }): Promise<void>;
}

const CONTAINER_LABEL = /GPU Rentals|GPU 租卡/;
const shot = (page: Page, outDir: string, name: string) => page.screenshot({ path: path.join(outDir, name) });

async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try { const v = await probe(); if (v !== undefined) return v; } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms: ${what}${last ? ` (${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function spendItem(page: Page): Locator {
  return page.locator('.part.statusbar .statusbar-item').filter({ hasText: '¥' }).first();
}

/** The innermost frame of a webview (VS Code nests the content in an iframe in an iframe) holding a chart. */
async function calculatorFrame(page: Page): Promise<Frame | undefined> {
  for (const f of page.frames()) {
    if (f === page.mainFrame()) continue;
    const n = await f.evaluate(() => document.querySelectorAll('svg, canvas').length).catch(() => 0);
    const hasForm = await f.evaluate(() => document.querySelectorAll('input, select').length).catch(() => 0);
    if (n > 0 && hasForm > 0) return f;
  }
  return undefined;
}

async function chartSignature(f: Frame): Promise<string> {
  return f.evaluate(() => {
    const charts = Array.from(document.querySelectorAll('svg, canvas')).map((el) =>
      el instanceof HTMLCanvasElement ? el.toDataURL() : el.outerHTML);
    return charts.join('\n');
  });
}

/** Drag the sash between the sidebar and the editor: a wide tree for its picture, room for the calculator in its own. */
async function setSidebarWidth(page: Page, width: number): Promise<void> {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (!box || Math.abs(box.width - width) < 10) return;
  const edge = box.x + box.width;
  for (const sash of await page.locator('.monaco-sash.vertical').all()) {
    const b = await sash.boundingBox();
    if (!b || Math.abs(b.x + b.width / 2 - edge) > 6 || b.height < box.height / 2) continue;
    const y = b.y + b.height / 2;
    await page.mouse.move(b.x + b.width / 2, y);
    await page.mouse.down();
    await page.mouse.move(box.x + width, y, { steps: 10 });
    await page.mouse.up();
    return;
  }
}

/** Hourly rows of the quotes table: "platform · billing" → the first figure of the GPU column. */
async function hourlyGpuCosts(f: Frame): Promise<Map<string, number>> {
  const rows = (await f.evaluate(`Array.from(document.querySelectorAll('table tr')).map((tr) => Array.from(tr.children).map((c) => c.textContent.trim()))`)) as string[][];
  const header = rows.find((r) => r.includes('GPU') && r.includes('Billing'));
  const out = new Map<string, number>();
  if (!header) return out;
  const [pi, bi, gi] = [header.indexOf('Platform'), header.indexOf('Billing'), header.indexOf('GPU')];
  for (const r of rows) {
    const m = /¥\s*([\d,]+(?:\.\d+)?)/.exec(r[gi] ?? '');
    if (r[bi] === 'hourly' && m) out.set(`${(r[pi] ?? '').replace(/cheapest$/, '').trim()} · hourly`, Number(m[1]!.replace(/,/g, '')));
  }
  return out;
}

export function uiChecks(): UiCheck[] {
  return [
    {
      title: 'the workbench loads with the extension',
      stopOnFail: true,
      async run(page) {
        await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
        await page.locator('.part.activitybar').waitFor({ timeout: 60_000 });
      },
    },
    {
      title: 'the activity bar has the GPU Rentals container; its tree lists the instance and its probed GPU',
      async run(page, { outDir }) {
        const item = page.locator('.part.activitybar .action-item [aria-label]');
        const container = await poll('the GPU Rentals activity-bar item', async () => {
          const all = await item.all();
          for (const a of all) { const l = await a.getAttribute('aria-label'); if (l && CONTAINER_LABEL.test(l)) return a; }
          return undefined;
        }, 60_000);
        const sidebar = page.locator('.part.sidebar');
        const open = await sidebar.locator('.composite.title, .title-label').filter({ hasText: CONTAINER_LABEL }).count();
        if (!open) await container.click();
        const row = sidebar.locator('.monaco-list-row').filter({ hasText: RUNNING_INSTANCE }).first();
        await row.waitFor({ timeout: 30_000 });
        await sidebar.locator('.monaco-list-row').filter({ hasText: STOPPED_INSTANCE }).first().waitFor({ timeout: 10_000 });
        const platforms = await sidebar.locator('.monaco-list-row[aria-level="1"]').allInnerTexts();
        if (platforms.length < 2) throw new Error(`the tree should group two platforms at the top level, shows: ${JSON.stringify(platforms)}`);
        await setSidebarWidth(page, 560);
        // Its children show the last probe's GPU, by name.
        if ((await row.getAttribute('aria-expanded')) === 'false') await row.click();
        await sidebar.locator('.monaco-list-row').filter({ hasText: EXPECTED_GPU_NAME }).first().waitFor({ timeout: 15_000 });
        await page.mouse.move(700, 450); // no hover tooltip over the tree in the picture
        await page.waitForTimeout(500);
        await shot(page, outDir, 'tree.png');
      },
    },
    {
      title: 'the status bar shows the spend in ¥ and it ticks while an instance runs',
      async run(page, { outDir }) {
        const item = spendItem(page);
        await item.waitFor({ timeout: 30_000 });
        const first = (await item.innerText()).trim();
        if (!/¥\s*\d/.test(first)) throw new Error(`status bar item has no ¥ amount: "${first}"`);
        const second = await poll('the spend to change', async () => {
          const t = (await item.innerText()).trim();
          return t !== first ? t : undefined;
        }, 15_000);
        await item.scrollIntoViewIfNeeded();
        const box = await page.locator('.part.statusbar').boundingBox();
        await page.screenshot({ path: path.join(outDir, 'status-bar.png'), ...(box ? { clip: { x: Math.max(0, box.x + box.width - 700), y: box.y, width: Math.min(700, box.width), height: box.height } } : {}) });
        const amount = (t: string) => Number((/¥\s*([\d,]+(?:\.\d+)?)/.exec(t)?.[1] ?? 'NaN').replace(/,/g, ''));
        if (!(amount(second) > amount(first))) throw new Error(`the spend should grow while billing: "${first}" then "${second}"`);
        process.stdout.write(`         status bar: "${first}" then "${second}"\n`);
      },
    },
    {
      title: 'clicking the spend opens the calculator, which renders a chart',
      async run(page, { outDir }) {
        await setSidebarWidth(page, 300);
        await spendItem(page).click();
        const frame = await poll('a webview with a chart and a form', () => calculatorFrame(page), 30_000);
        const charts = await frame.evaluate(() => Array.from(document.querySelectorAll('svg, canvas')).filter((e) => {
          const r = e.getBoundingClientRect(); return r.width > 50 && r.height > 50;
        }).length);
        if (charts < 1) throw new Error('the calculator shows no chart at least 50×50 px');
        await page.waitForTimeout(500);
        await shot(page, outDir, 'calculator.png');
      },
    },
    {
      title: 'the calculator recomputes the chart when an input changes',
      async run(page, { outDir }) {
        const frame = await poll('the calculator webview', () => calculatorFrame(page), 10_000);
        const before = await chartSignature(frame);
        const costsBefore = await hourlyGpuCosts(frame);
        const labelled = frame.getByLabel('GPU hours (on this card)');
        const input = (await labelled.count()) === 1 ? labelled : frame.locator('input[type=number]:visible').first();
        await input.waitFor({ timeout: 10_000 });
        const old = await input.inputValue();
        const next = String(Math.max(1, Number(old) || 1) * 7 + 13);
        await input.fill(next);
        await input.press('Tab');
        await poll('the chart to change after an input changed', async () => ((await chartSignature(frame)) !== before ? true : undefined), 10_000);
        // Recomputed, not just redrawn: hourly GPU cost scales with the hours typed.
        const costsAfter = await hourlyGpuCosts(frame);
        const ratio = Number(next) / Number(old);
        const compared = [...costsBefore].filter(([k]) => costsAfter.has(k));
        if (Number(old) > 0 && compared.length === 0) throw new Error(`no hourly rows to compare in the quotes table (before: ${[...costsBefore.keys()].join(', ')})`);
        for (const [k, v] of compared) {
          const got = costsAfter.get(k)!;
          if (Math.abs(got - v * ratio) > 0.011 * Math.max(1, got)) throw new Error(`${k}: GPU cost ¥${v} at ${old} h became ¥${got} at ${next} h, expected ≈ ¥${(v * ratio).toFixed(2)}`);
        }
        await page.waitForTimeout(300);
        await shot(page, outDir, 'calculator-recomputed.png');
        process.stdout.write(`         ${compared.length} hourly quotes scaled ×${ratio.toFixed(2)} with the GPU hours\n`);
        process.stdout.write(`         changed an input from ${old || '(empty)'} to ${next}; the chart was redrawn\n`);
      },
    },
  ];
}
