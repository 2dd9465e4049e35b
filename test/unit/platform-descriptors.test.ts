// One descriptor per platform kind (core/platforms/descriptors.ts) and one registry entry
// (app/platforms/registry.ts): every kind has both, complete; what the accounts prompts, the
// scripted arguments, the settings and `gpu-rent accounts add` offer is derived from them; and
// no other module names a kind, so a new kind cannot be half-added.
import * as assert from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { endpointsFromEnv, envAccounts, makeConnector, mergeEndpoints, parseSecret, SECRET_ENV, SecretSchemas } from '../../src/app/platforms/accounts';
import { PLATFORM_NAMES } from '../../src/app/platforms/errors';
import { PLATFORM_REGISTRY } from '../../src/app/platforms/registry';
import { builtinCatalog, findPlatform } from '../../src/core/catalog';
import { accountChoices, DESCRIPTORS, PLATFORM_DESCRIPTORS, PLATFORM_KINDS, secretPrompts } from '../../src/core/platforms/descriptors';
import { classifyFailure } from '../../src/core/platforms/errors';
import { CREATE_KINDS } from '../../src/core/platforms/create';
import { REGION_ID } from '../../src/core/platforms/regions';
import { CAPABILITIES, CATALOG_PLATFORM, CONNECTOR_CAPABILITIES, EXPERIMENTAL } from '../../src/core/platforms/types';
import { AddPlatformAccountArgs } from '../../src/extension/args';
import { runCli } from '../support/cli';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { configuration: { properties: Record<string, unknown> } | { properties: Record<string, unknown> }[] } };
const settings = new Set((Array.isArray(pkg.contributes.configuration) ? pkg.contributes.configuration : [pkg.contributes.configuration]).flatMap((c) => Object.keys(c.properties)));
const text = (w: { en: string; zh: string }) => w.en.trim().length > 0 && w.zh.trim().length > 0;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('platform descriptors', () => {
  it('every kind has a complete descriptor and a registry entry, and no two kinds share a variable, setting or endpoint key', () => {
    assert.deepStrictEqual(Object.keys(PLATFORM_DESCRIPTORS).sort(), [...PLATFORM_KINDS].sort());
    assert.deepStrictEqual(Object.keys(PLATFORM_REGISTRY).sort(), [...PLATFORM_KINDS].sort());
    const catalog = builtinCatalog();
    for (const kind of PLATFORM_KINDS) {
      const d = PLATFORM_DESCRIPTORS[kind];
      assert.strictEqual(d.kind, kind);
      assert.strictEqual(PLATFORM_REGISTRY[kind].descriptor, d, `${kind}: the registry holds the descriptor itself`);
      assert.ok(text(d.name), `${kind}: a name in en and zh`);
      assert.ok(findPlatform(catalog, d.catalogPlatform), `${kind}: catalog platform ${d.catalogPlatform} is in the built-in catalog`);
      assert.ok(d.secrets.length > 0, `${kind}: at least one secret field`);
      for (const f of d.secrets) {
        assert.match(f.field, /^[a-z][A-Za-z]{1,40}$/, `${kind}: field name`);
        assert.match(f.env, /^[A-Z][A-Z0-9_]{2,60}$/, `${kind}.${f.field}: its environment variable`);
        assert.ok(f.maxLength >= 16 && f.maxLength <= 8192, `${kind}.${f.field}: a bound`);
        assert.ok(text(f.prompt), `${kind}.${f.field}: a prompt in en and zh`);
      }
      assert.ok(settings.has(`gpuRent.${d.endpoint.setting}`), `${kind}: package.json contributes gpuRent.${d.endpoint.setting}`);
      assert.match(d.endpoint.env, /^GPU_RENT_[A-Z_]+$/);
      if (d.endpoint.default !== undefined) assert.match(d.endpoint.default, /^https:\/\/[a-z0-9.-]+$/);
      if (d.regions) {
        assert.match(d.regions.default, REGION_ID);
        assert.match(d.regions.env, /^[A-Z][A-Z0-9_]+$/);
      }
      assert.ok(d.capabilities.length > 0 && d.capabilities.every((c) => (CAPABILITIES as readonly string[]).includes(c)), `${kind}: known capabilities`);
      assert.ok(d.capabilities.includes('list') && d.capabilities.includes('get'), `${kind}: an account is checked with list, rows read with get`);
      if (d.keepChargingStopBills) assert.ok(d.capabilities.includes('powerOff:stopCharging'), `${kind}: a keep-charging stop bills, so the economical stop must be offered`);
      if (d.releaseNeedsStopped) assert.ok(d.capabilities.includes('release') && d.capabilities.includes('powerOff:keep'), `${kind}: release after a power-off needs both`);
      if (d.accountKeyField) assert.ok(d.secrets.some((f) => f.field === d.accountKeyField), `${kind}: the account key is a secret field`);
      assert.ok(d.stillBillsWhenStopped.length > 0);
      if (d.create) {
        const c = d.create;
        assert.ok(c.imageExample.length > 0 && (c.spec === 'cardList' || (c.instanceTypeExample ?? '').length > 0) && (c.where === 'regionList' || (c.whereExample ?? '').length > 0), `${kind}: every create example`);
      }
      if (d.experimental) assert.ok(text(d.experimental.note) && text(d.experimental.warning) && text(d.experimental.refusal) && d.experimental.cliReason.length > 0, `${kind}: every experimental text`);
    }
    const unique = (what: string, xs: string[]) => assert.strictEqual(new Set(xs).size, xs.length, `${what} are unique: ${xs.join(', ')}`);
    unique('secret variables', DESCRIPTORS.flatMap((d) => d.secrets.map((f) => f.env)));
    unique('endpoint keys', DESCRIPTORS.map((d) => d.endpoint.key));
    unique('endpoint variables', DESCRIPTORS.map((d) => d.endpoint.env));
    unique('endpoint settings', DESCRIPTORS.map((d) => d.endpoint.setting));
  });

  it('the tables the rest of the code reads are the descriptors’ (capabilities, catalog platform, names, experimental, create, secrets)', () => {
    for (const d of DESCRIPTORS) {
      assert.deepStrictEqual(CONNECTOR_CAPABILITIES[d.kind], d.capabilities);
      assert.strictEqual(CATALOG_PLATFORM[d.kind], d.catalogPlatform);
      assert.strictEqual(PLATFORM_NAMES[d.kind], d.name.en);
      assert.strictEqual(EXPERIMENTAL.has(d.kind), d.experimental !== undefined);
      assert.strictEqual(CREATE_KINDS.includes(d.kind), d.create !== undefined);
      assert.deepStrictEqual(SECRET_ENV[d.kind], Object.fromEntries(d.secrets.map((f) => [f.field, f.env])));
      assert.deepStrictEqual(Object.keys(SecretSchemas[d.kind].shape).sort(), d.secrets.map((f) => f.field).sort());
      const ok = Object.fromEntries(d.secrets.map((f) => [f.field, 'x'.repeat(f.maxLength)]));
      assert.ok(parseSecret(d.kind, ok).ok, `${d.kind}: a secret at its bound is taken`);
      const over = Object.fromEntries(d.secrets.map((f) => [f.field, 'x'.repeat(f.maxLength + 1)]));
      assert.ok(!parseSecret(d.kind, over).ok, `${d.kind}: one character more is refused`);
    }
  });

  it('Add Platform Account offers every kind and asks each field its descriptor names, in the UI’s language; its scripted argument takes each kind’s fields', () => {
    for (const lang of ['en', 'zh-cn']) {
      const choices = accountChoices(lang);
      assert.deepStrictEqual(choices.map((c) => c.kind), [...PLATFORM_KINDS]);
      for (const c of choices) {
        const d = PLATFORM_DESCRIPTORS[c.kind];
        assert.strictEqual(c.label, lang === 'en' ? d.name.en : d.name.zh);
        assert.strictEqual(c.description !== '', d.experimental !== undefined);
        const prompts = secretPrompts(c.kind, lang);
        assert.deepStrictEqual(prompts.map((p) => p.field), d.secrets.map((f) => f.field));
        assert.deepStrictEqual(prompts.map((p) => p.prompt), d.secrets.map((f) => (lang === 'en' ? f.prompt.en : f.prompt.zh)));
      }
    }
    assert.strictEqual(secretPrompts('aliyun-ecs', 'zh-cn')[0]!.prompt, 'RAM 用户的 AccessKey ID');
    for (const d of DESCRIPTORS) {
      const arg = { platform: d.kind, ...Object.fromEntries(d.secrets.map((f) => [f.field, 'x'.repeat(f.maxLength)])) };
      assert.ok(AddPlatformAccountArgs.safeParse(arg).success, `${d.kind}: the scripted argument takes its fields at their bound`);
    }
    assert.ok(!AddPlatformAccountArgs.safeParse({ platform: 'matpool' }).success, 'a kind without a descriptor is refused');
    assert.ok(!AddPlatformAccountArgs.safeParse({ platform: 'aliyun-ecs', password: 'x' }).success, 'a field no descriptor names is refused');
  });

  it('endpoints, environment accounts and connectors come from the descriptor and the registry', () => {
    const env = Object.fromEntries(DESCRIPTORS.map((d) => [d.endpoint.env, `http://127.0.0.1:9/${d.kind}`]));
    const eps = endpointsFromEnv(env);
    for (const d of DESCRIPTORS) assert.strictEqual(eps[d.endpoint.key], `http://127.0.0.1:9/${d.kind}`);
    assert.strictEqual(mergeEndpoints({ [DESCRIPTORS[0]!.endpoint.key]: 'http://s' }, eps)[DESCRIPTORS[0]!.endpoint.key], 'http://s', 'the setting wins');
    const all = Object.fromEntries(DESCRIPTORS.flatMap((d) => [...d.secrets.map((f) => [f.env, `v-${f.field}`]), ...(d.regions ? [[d.regions.env, d.regions.default]] : [])]));
    const got = envAccounts(all);
    assert.deepStrictEqual(got.map((g) => g.account.kind), [...PLATFORM_KINDS], 'one environment account per kind');
    for (const g of got) {
      const d = PLATFORM_DESCRIPTORS[g.account.kind];
      assert.strictEqual(g.account.region, d.regions?.default);
      const c = makeConnector(g.account, g.secret, eps, { timeoutMs: 1000, now: () => 0 });
      assert.strictEqual(c.kind, d.kind, 'the registry makes the connector of its kind');
      assert.deepStrictEqual(c.capabilities, d.capabilities, 'and it declares the descriptor’s capabilities');
    }
  });

  it('a platform’s error words decide the kind whatever the code says (AutoDL’s no stock answered as InternalError)', () => {
    assert.strictEqual(classifyFailure('autodl-pro', 'InternalError', '当前算力规格暂无库存').kind, 'noStock');
    assert.strictEqual(classifyFailure('autodl-web', 'InstanceError', '该主机空闲GPU不足').kind, 'noGpuOnHost');
    assert.strictEqual(classifyFailure('aliyun-ecs', 'InternalError', 'The request processing has failed due to some unknown error.').kind, 'server');
  });

  it('no module outside the descriptors, the registry and the adapters names a kind', () => {
    // The adapters (their own kind) are the only other places: create's per-platform parts are the adapters' create hooks and the descriptors' create traits.
    const allowed = new Set(['src/core/platforms/descriptors.ts', 'src/app/platforms/registry.ts', 'src/app/platforms/autodl.ts', 'src/app/platforms/aliyun.ts', 'src/app/platforms/tencent.ts'].map((p) => join(p)));
    const literal = new RegExp(`['"\`](${PLATFORM_KINDS.join('|')})['"\`]`);
    const naming = tsFiles('src').filter((f) => !allowed.has(f) && readFileSync(f, 'utf8').split('\n').some((l) => !/^\s*(\/\/|\*)/.test(l) && literal.test(l)));
    assert.deepStrictEqual(naming, []);
  });

  it('gpu-rent accounts add offers exactly the registry’s kinds and names each one’s variables (the built CLI)', () => {
    const help = runCli(['accounts', '--help']);
    assert.strictEqual(help.code, 0, help.stderr);
    for (const d of DESCRIPTORS) {
      assert.ok(help.stdout.includes(`${d.kind}: ${d.secrets.map((f) => f.env).join(', ')}`), `${d.kind}'s variables in: ${help.stdout}`);
      assert.ok(help.stdout.includes(d.endpoint.env), `${d.endpoint.env} in the help`);
    }
    const bad = runCli(['accounts', 'add', 'matpool'], { env: { GPU_RENT_HOME: '/nonexistent-gpu-rent-home' } });
    assert.notStrictEqual(bad.code, 0);
    assert.ok((bad.stdout + bad.stderr).includes(PLATFORM_KINDS.join(', ')), bad.stdout + bad.stderr);
  });
});
