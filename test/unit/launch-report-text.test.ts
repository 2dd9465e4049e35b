// Launch Status's Markdown (src/extension/commands/launch/reportText.ts): one section per task
// from its launch state, and box text kept as data. A box label, a detail and event lines
// carrying a command: link, HTML, a heading on a new line and a closing fence render as text:
// escaped in prose, inert in the one fenced block (which they cannot close). A plain formatter
// stands in for vscode.l10n.
import { strict as assert } from 'node:assert';
import { newLaunchState, type LaunchState } from '../../src/core/task/launch';
import { launchMarkdown, outcomeWords, spentText } from '../../src/extension/commands/launch/reportText';
import type { L10n } from '../../src/extension/view/present';

const l10n: L10n = { t: (m, ...a) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };
const T0 = 1_700_000_000;
const HOSTILE = 'box [run me](command:workbench.action.terminal.new) <img src=x onerror=alert(1)>\n# owned\n```\n[x](command:y)';

function ended(): LaunchState {
  const s = newLaunchState({ task: 'lora', file: '/repo/gpu-rent.yaml', taskDigest: 'x', smoke: false, now: T0 });
  return {
    ...s,
    phase: 'done',
    updatedAt: T0 + 3600,
    box: { candidate: 0, kind: 'ssh', label: HOSTILE, priceFenPerHour: 198, spot: false, acquiredAt: T0, leftAt: T0 + 3600, leftBecause: 'ended' },
    lastSync: { at: T0 + 3590, files: 3, bytes: 6144, checkpoint: 'step-0012' },
    outcome: { kind: 'finished', detail: `lora finished (exit 0) on ${HOSTILE}` },
    end: { action: 'none', ok: true, stillBilling: false, detail: 'sync: ok' },
    events: [
      { at: T0 + 1, phase: 'acquire', text: `acquired ${HOSTILE}` },
      { at: T0 + 3600, phase: 'end', text: 'done: lora finished (exit 0) · spent ¥1.98' },
    ],
  };
}

/** The document split at its fence: what renders as Markdown, and the fenced lines. */
function split(md: string): { prose: string[]; fenced: string[]; fences: number } {
  const prose: string[] = [];
  const fenced: string[] = [];
  let inFence = false;
  let fences = 0;
  for (const line of md.split('\n')) {
    if (line.startsWith('```')) {
      fences++;
      inFence = !inFence;
    } else (inFence ? fenced : prose).push(line);
  }
  return { prose, fenced, fences };
}

describe('extension/commands/launch/reportText', () => {
  it('a finished launch: phase, outcome, box and price, spent (1 h at ¥1.98/h), last verified sync, end, recent events', () => {
    const md = launchMarkdown('lora', ended(), T0 + 7200, l10n);
    assert.match(md, /^## lora — done$/m);
    assert.match(md, /\*\*Spent\*\*: ¥1\\\.98 · #recoveries 0/);
    assert.match(md, /\*\*Last verified sync\*\*: .*3 file\(s\), newest step\\-0012/);
    assert.match(md, /\*\*End\*\* \(none\): done: sync\\: ok/);
    assert.match(md, /done: lora finished \(exit 0\) · spent ¥1\.98$/m, 'the newest event, inside the fence');
  });

  it('box text is data: no link, no HTML, no heading, and the one fence stays closed', () => {
    const { prose, fenced, fences } = split(launchMarkdown('lora', ended(), T0 + 7200, l10n));
    assert.equal(fences, 2, 'one fenced block, opened and closed once');
    const text = prose.join('\n');
    assert.doesNotMatch(text, /(?<!\\)\]\(/, 'no [label](target) outside the fence');
    assert.doesNotMatch(text, /<img/);
    assert.ok(text.includes('&lt;img'), 'the HTML shows as text');
    assert.deepEqual(prose.filter((l) => l.startsWith('#')), ['## lora — done', '### Recent events'], 'no heading from the box');
    assert.equal(fenced.length, 2, 'one line per event');
    assert.ok(fenced.every((l) => !l.includes('`')), 'no backtick inside the fence');
  });

  it('a task not launched yet; a spend with an unknown price says what is known; every outcome has words', () => {
    assert.equal(launchMarkdown('lora', undefined, T0, l10n), '## lora\n\nNot launched yet.\n');
    const s = { ...ended(), box: { ...ended().box!, priceFenPerHour: null } };
    assert.equal(spentText(s, T0 + 7200, l10n), '? (a box’s price is not known; ¥0.00 known)');
    for (const k of ['finished', 'smoke', 'budget', 'doctor', 'runFailed', 'failed', 'noBox'] as const) assert.ok(outcomeWords(k, l10n).length > 0, k);
  });
});
