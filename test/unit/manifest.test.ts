// The manifest, the command table, and the translations agree (as vscode-pull-request-github's
// check-commands script does): a command cannot be declared and never registered, a %key%
// cannot be missing in a language, and an l10n.t string cannot ship untranslated.
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Commands } from '../../src/extension/commandIds';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const nlsEn: Record<string, string> = JSON.parse(readFileSync('package.nls.json', 'utf8'));
const nlsZh: Record<string, string> = JSON.parse(readFileSync('package.nls.zh-cn.json', 'utf8'));
const bundleZh: Record<string, string> = JSON.parse(readFileSync('l10n/bundle.l10n.zh-cn.json', 'utf8'));

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Modules outside src/extension whose words both front ends share through the bundle (the l10n passed in). */
const SHARED_WORDS = ['src/app/remoteWords.ts', 'src/core/task/words.ts', 'src/app/launch/taskFile.ts', 'src/app/runs/progress.ts', 'src/app/launch/words.ts', 'src/app/launch/reclaim.ts', 'src/app/launch/watch.ts', 'src/app/launch/end.ts', 'src/app/launch/context.ts', 'src/app/launch/rules.ts', 'src/app/launch/acquire.ts', 'src/app/launch/run.ts', 'src/app/launch/check.ts', 'src/app/launch/upload.ts', 'src/app/launch/start.ts', 'src/app/launch/setup.ts', 'src/app/launch/unattended.ts', 'src/app/launch/mirrors.ts', 'src/app/launch/stage.ts', 'src/app/grabWords.ts'];
const l10nSources = () => [...tsFiles('src/extension'), ...SHARED_WORDS];

function percentKeys(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') for (const m of v.matchAll(/^%([^%\s]+)%$/g)) out.push(m[1]!);
  else if (Array.isArray(v)) v.forEach((x) => percentKeys(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => percentKeys(x, out));
  return out;
}

/** Every first argument of `l10n.t(...)`: string literals are returned, anything else is reported. */
export function l10nCalls(source: string): { literals: string[]; nonLiteral: number } {
  const literals: string[] = [];
  let nonLiteral = 0;
  const re = /\bl10n\.t\(\s*/g;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    const rest = source.slice(re.lastIndex);
    const lit = /^(['"])((?:\\.|(?!\1)[^\\\n])*)\1/.exec(rest);
    if (!lit) {
      nonLiteral++;
      continue;
    }
    literals.push(lit[2]!.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t' })[c] ?? c));
  }
  return { literals, nonLiteral };
}

describe('manifest', () => {
  it('contributed commands are exactly the registered command table', () => {
    const contributed = (pkg.contributes.commands as { command: string }[]).map((c) => c.command).sort();
    assert.deepEqual(contributed, Object.values(Commands).sort());
  });

  it('every command has a category and a title from package.nls', () => {
    for (const c of pkg.contributes.commands as { command: string; title: string; category: string }[]) {
      assert.match(c.title, /^%.+%$/, c.command);
      assert.equal(c.category, '%category%', c.command);
    }
  });

  it('menus and welcome links name only contributed commands', () => {
    const ids = new Set(Object.values(Commands) as string[]);
    const submenus = new Set(((pkg.contributes.submenus ?? []) as { id: string }[]).map((m) => m.id));
    for (const [menu, items] of Object.entries(pkg.contributes.menus as Record<string, { command?: string; submenu?: string }[]>)) {
      if (menu.includes('.')) assert.ok(submenus.has(menu), `menu ${menu} is not a declared submenu`);
      for (const it of items) assert.ok(it.submenu ? submenus.has(it.submenu) : ids.has(it.command!), `${menu}: ${it.command ?? it.submenu}`);
    }
    for (const lang of [nlsEn, nlsZh]) {
      for (const w of pkg.contributes.viewsWelcome as { contents: string }[]) {
        const text = lang[w.contents.slice(1, -1)] ?? '';
        const links = [...text.matchAll(/\(command:([\w.]+)\)/g)].map((m) => m[1]!);
        assert.ok(links.length > 0);
        for (const l of links) assert.ok(ids.has(l), l);
      }
    }
  });

  it('the instance context menu: no two items share a group position, and one Release shows per instance', () => {
    const items = pkg.contributes.menus['view/item/context'] as { command?: string; submenu?: string; when: string; group?: string }[];
    const seen = new Map<string, string>();
    for (const it of items) {
      if (!it.group || it.group.startsWith('inline')) continue;
      // Items shown for the same kind of element may not collide; the when clause names the element kind.
      const kind = /viewItem (?:=~ \/\^|== )([a-z]+)/.exec(it.when)?.[1] ?? '?';
      const key = `${kind} ${it.group}`;
      assert.ok(!seen.has(key), `${it.command ?? it.submenu} and ${seen.get(key)} share ${key}`);
      seen.set(key, it.command ?? it.submenu!);
    }
    // The inline icons of one element kind, the view's title menu and each submenu: no two items at one position either.
    const positions = (list: { command?: string; submenu?: string; when?: string; group?: string }[], inline: boolean) => {
      const at = new Map<string, string>();
      for (const it of list) {
        if (!it.group || it.group.startsWith('inline') !== inline) continue;
        const key = `${/viewItem (?:=~ \/\^|== )([a-z]+)/.exec(it.when ?? '')?.[1] ?? '?'} ${it.group}`;
        assert.ok(!at.has(key), `${it.command ?? it.submenu} and ${at.get(key)} share ${key}`);
        at.set(key, it.command ?? it.submenu!);
      }
    };
    positions(items, true);
    for (const [menu, list] of Object.entries(pkg.contributes.menus as Record<string, { command?: string; group?: string }[]>)) if (menu !== 'view/item/context' && menu !== 'commandPalette') positions(list, false);
    const rel = items.find((i) => i.command === 'gpuRent.releaseInstance')!;
    const re = new RegExp(/\/(.*)\//.exec(rel.when)![1]!);
    assert.ok(re.test('instance:running:x'));
    assert.ok(!re.test('instance:running:x:api:poff:prel'), 'Release Instance hidden where Release on Platform is offered');
    const onPlatform = items.find((i) => i.command === 'gpuRent.releaseOnPlatform')!;
    assert.ok(new RegExp(/\/(.*)\//.exec(onPlatform.when)![1]!).test('instance:running:x:api:poff:prel'));
  });

  it('the walkthrough: each step links and completes on a contributed command, in both languages, with an image that exists', () => {
    const ids = new Set(Object.values(Commands) as string[]);
    const walks = pkg.contributes.walkthroughs as { steps: { description: string; media: { image: string }; completionEvents: string[] }[] }[];
    assert.equal(walks.length, 1);
    assert.ok(walks[0]!.steps.length >= 5);
    for (const step of walks[0]!.steps) {
      for (const lang of [nlsEn, nlsZh]) {
        const links = [...(lang[step.description.slice(1, -1)] ?? '').matchAll(/\(command:([\w.]+)\)/g)].map((m) => m[1]!);
        assert.equal(links.length, 1, step.description);
        assert.ok(ids.has(links[0]!), links[0]);
        assert.deepEqual(step.completionEvents, [`onCommand:${links[0]}`]);
      }
      assert.ok(existsSync(step.media.image), step.media.image);
    }
  });

  it('every %key% exists in package.nls.json and package.nls.zh-cn.json, and neither has strays', () => {
    const keys = new Set(percentKeys(pkg));
    assert.ok(keys.size > 30);
    const missingEn = [...keys].filter((k) => !(k in nlsEn));
    const missingZh = [...keys].filter((k) => !(k in nlsZh));
    assert.deepEqual({ missingEn, missingZh }, { missingEn: [], missingZh: [] });
    assert.deepEqual(Object.keys(nlsEn).filter((k) => !keys.has(k)), []);
    assert.deepEqual(Object.keys(nlsZh).sort(), Object.keys(nlsEn).sort());
    for (const [k, v] of Object.entries(nlsZh)) assert.ok(v.trim().length > 0, k);
  });

  it('every l10n.t string in src/extension (and the shared words) has a zh-CN translation, and every call uses a literal', () => {
    const missing: string[] = [];
    let calls = 0;
    for (const file of l10nSources()) {
      const { literals, nonLiteral } = l10nCalls(readFileSync(file, 'utf8'));
      assert.equal(nonLiteral, 0, `${file}: l10n.t with a non-literal message cannot be translated`);
      calls += literals.length;
      for (const s of literals) if (!(s in bundleZh)) missing.push(`${file}: ${s}`);
    }
    assert.deepEqual(missing, []);
    assert.ok(calls > 0 || tsFiles('src/extension').length <= 2, 'the extension should speak through l10n.t');
  });

  it('every zh-CN bundle entry is used: an l10n.t literal in src/extension (or the shared words) or a package.nls string', () => {
    // A stale entry (its English reworded in the code) would otherwise sit there untested, and
    // the CLI's shared() would still pick its old Chinese for the old words.
    const used = new Set<string>(Object.values(nlsEn));
    for (const file of l10nSources()) for (const s of l10nCalls(readFileSync(file, 'utf8')).literals) used.add(s);
    assert.deepEqual(Object.keys(bundleZh).filter((k) => !used.has(k)), []);
  });

  it('the l10n scanner reads literals with quotes, escapes and placeholders', () => {
    const r = l10nCalls(`l10n.t('It\\'s {0}', x); vscode.l10n.t("a \\"b\\""); l10n.t(msg); l10n.t(\n  'multi {0} {1}', a, b)`);
    assert.deepEqual(r.literals, ["It's {0}", 'a "b"', 'multi {0} {1}']);
    assert.equal(r.nonLiteral, 1);
  });

  it('zh-CN bundle placeholders match their source strings', () => {
    for (const [en, zh] of Object.entries(bundleZh)) {
      const ph = (s: string) => [...s.matchAll(/\{(\d+)\}/g)].map((m) => m[1]).sort().join(',');
      assert.equal(ph(zh), ph(en), en);
    }
  });

  it('every setting has a markdownDescription, an explicit scope, and bounds; connection settings are application-scoped', () => {
    const props = pkg.contributes.configuration.properties as Record<string, Record<string, unknown>>;
    for (const [k, p] of Object.entries(props)) {
      assert.ok(typeof p.markdownDescription === 'string', `${k} markdownDescription`);
      assert.ok(typeof p.scope === 'string', `${k} scope`);
      if (p.type === 'number' || p.type === 'integer') assert.ok(typeof p.minimum === 'number' && typeof p.maximum === 'number', `${k} bounds`);
      if (p.type === 'string') assert.ok(typeof p.maxLength === 'number', `${k} maxLength`);
      if (k.startsWith('gpuRent.connection.') || k === 'gpuRent.sync.remoteDir') assert.equal(p.scope, 'application', k);
    }
  });

  it('activation stays implicit, workspace trust is limited, icons exist, engines fit the forks', () => {
    assert.ok(!(pkg.activationEvents ?? []).includes('*'));
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.ok(existsSync(pkg.icon) && readFileSync(pkg.icon).subarray(1, 4).toString() === 'PNG');
    for (const c of pkg.contributes.viewsContainers.activitybar) assert.ok(existsSync(c.icon), c.icon);
    assert.equal(pkg.contributes.viewsContainers.activitybar[0].id, 'gpuRent');
    assert.equal(nlsZh['viewsContainer.title'], 'GPU 租卡');
    assert.equal(nlsEn['viewsContainer.title'], 'GPU Rent');
    const min = /^\^?(\d+)\.(\d+)/.exec(pkg.engines.vscode)!;
    assert.ok(Number(min[1]) === 1 && Number(min[2]) <= 85, pkg.engines.vscode);
  });

  // Hiding them in Restricted Mode left users with no word of why; the commands now explain
  // and offer "Manage Workspace Trust" (words/errors.ts requireTrust).
  it('remote commands stay visible in Restricted Mode (their handlers explain it); so does the calculator', () => {
    const remote = new Set(['checkGpu', 'startTraining', 'showJobs', 'syncCheckpoints', 'watchCheckpoints', 'openTerminal', 'openInRemoteSsh', 'uploadToMemory', 'wipeMemoryUpload', 'captureEnvironment', 'rebuildEnvironment', 'installWatchdog', 'watchdogStatus', 'removeWatchdog'].map((n) => `gpuRent.${n}`));
    for (const items of Object.values(pkg.contributes.menus as Record<string, { command: string; when?: string }[]>)) {
      for (const it of items) {
        if (remote.has(it.command)) assert.doesNotMatch(it.when ?? '', /isWorkspaceTrusted/, it.command);
        if (it.command === Commands.openCalculator) assert.doesNotMatch(it.when ?? '', /isWorkspaceTrusted/);
      }
    }
  });
});
