// The CLI's code caches (esbuild.mjs writeCodeCache) are taken by the V8 that runs them: each
// bundle compiled the way dist/cli.js compiles it (its wrapper, under the V8 flags it sets for
// that command) accepts its cache. A cache made under other flags, or for another wrapper,
// would be refused silently and every start would compile the bundle again (~50 ms).
import { strict as assert } from 'node:assert';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIST = join(__dirname, '..', '..', 'dist');

describe('the CLI code caches', () => {
  it('every dist/cli-*.cache is accepted by the launcher\'s way of compiling its bundle', () => {
    const launcherPath = join(DIST, 'cli.js');
    if (!existsSync(launcherPath)) throw new Error('run "npm run build" first');
    const launcher = readFileSync(launcherPath, 'utf8');
    const flags = JSON.parse(/const v8Flags = (\{[^\n]*\});/.exec(launcher)?.[1] ?? 'null') as Record<string, string> | null;
    assert.ok(flags, 'the launcher names its per-command V8 flags');
    const wrap = /new Script\(('[^']*') \+ source \+ ('[^']*')/.exec(launcher);
    assert.ok(wrap, 'the launcher wraps the bundle as a function');
    const caches = readdirSync(DIST).filter((f) => /^cli-[a-z]+\.cache$/.test(f));
    assert.ok(caches.includes('cli-sync.cache') && caches.includes('cli-main.cache'), caches.join(', '));
    for (const cache of caches) {
      const name = cache.slice('cli-'.length, -'.cache'.length);
      const script: string = `
        const flags = ${JSON.stringify(flags[name] ?? '')};
        if (flags) require('node:v8').setFlagsFromString(flags);
        const { readFileSync } = require('node:fs');
        const { Script } = require('node:vm');
        const bytes = readFileSync(${JSON.stringify(join(DIST, `cli-${name}.js`))});
        const c = readFileSync(${JSON.stringify(join(DIST, cache))});
        const same = require('node:crypto').createHash('sha256').update(bytes).digest().equals(c.subarray(0, 32));
        const source = bytes.toString('latin1');
        const s = new Script(${wrap[1]} + source + ${wrap[2]}, { filename: ${JSON.stringify(join(DIST, `cli-${name}.js`))}, cachedData: c.subarray(32) });
        process.stdout.write(JSON.stringify({ same, rejected: s.cachedDataRejected }));
      `;
      const r: SpawnSyncReturns<string> = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH } });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { same: true, rejected: false }, `${cache} (flags: ${flags[name] ?? 'none'})`);
    }
  });
});
