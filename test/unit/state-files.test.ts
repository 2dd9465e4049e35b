// The extension's state as files on its own machine (issue 41 deliver 3), on real files in a temp
// folder: the one-time move from globalState copies everything, is idempotent and never
// overwrites what the files hold; the instance store and the platform accounts survive a
// restart over the files; passwords stay in the secret store; an unreadable file is kept aside.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileMemento, MOVED_MARKER } from '../../src/app/stateFiles';
import { InstanceStore, STORE_KEY } from '../../src/extension/store';
import { ACCOUNTS_KEY, PlatformAccounts } from '../../src/extension/services/accountStore';
import { openState } from '../../src/extension/stateHome';
import type { Instance } from '../../src/core/instances';
import { MemoryMemento, MemorySecrets } from '../support/memory-store';

/** globalState as VS Code hands it over: keys() too. */
class GlobalState extends MemoryMemento {
  keys(): readonly string[] {
    return [...this.data.keys()];
  }
}

const fields = (id: string): Omit<Instance, 'intervals' | 'createdAt'> => ({
  id,
  name: `AutoDL 4090 ${id}`,
  platform: 'autodl',
  card: 'RTX 4090 24GB',
  gpuCount: 1,
  login: { host: 'connect.example.com', port: 41234, user: 'root', auth: 'password' },
  pricing: { billingMode: 'hour', hourlyRate: 360, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 24 },
});

describe('state files under globalStorageUri', () => {
  let dir: string;
  const now = () => 1_795_000_000;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gpu-rent-state-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('moves every globalState record once: instances, accounts and history come back after a restart, globalState untouched', async () => {
    // What an older version left in globalState.
    const old = new GlobalState();
    const oldStore = new InstanceStore(old, new MemorySecrets(), now);
    await oldStore.add(fields('a1'), 'running', 'pw-Secret-1');
    await old.update(ACCOUNTS_KEY, [{ id: 'autodl-pro', kind: 'autodl-pro', label: 'AutoDL Pro', powerActions: true }]);
    await old.update('gpuRent.spend.history', { months: { '2026-11': 12345 } });
    const before = JSON.stringify([...old.data]);

    const files = new FileMemento(join(dir, 'state'));
    const move = files.moveFrom(old);
    assert.deepEqual([...move.copied].sort(), [ACCOUNTS_KEY, STORE_KEY, 'gpuRent.spend.history'].sort());
    // Readable at once (the stores are built right after), on disk once done.
    assert.equal(new InstanceStore(files, new MemorySecrets(), now).list().length, 1);
    await move.done;
    assert.ok(existsSync(join(dir, 'state', MOVED_MARKER)));

    // A restart: a fresh reader of the same folder.
    const again = new FileMemento(join(dir, 'state'));
    const store = new InstanceStore(again, new MemorySecrets(), now);
    assert.deepEqual(store.list().map((i) => [i.id, i.intervals.length]), [['a1', 1]]);
    assert.equal(new PlatformAccounts(again, new MemorySecrets()).list().length, 1);
    assert.deepEqual(again.get('gpuRent.spend.history'), { months: { '2026-11': 12345 } });
    assert.equal(JSON.stringify([...old.data]), before, 'globalState was changed');
    // The password never reached a file.
    for (const f of readdirSync(join(dir, 'state'))) assert.doesNotMatch(readFileSync(join(dir, 'state', f), 'utf8'), /pw-Secret-1/);
  });

  it('idempotent: after the move nothing is copied again, however globalState changes; changes made since are kept', async () => {
    const old = new GlobalState();
    await old.update(STORE_KEY, []);
    const files = new FileMemento(join(dir, 'state'));
    await files.moveFrom(old).done;
    const store = new InstanceStore(files, new MemorySecrets(), now);
    await store.add(fields('n1'), 'running');
    await store.flush();
    await old.update(STORE_KEY, [{ junk: true }]);
    await old.update('gpuRent.late', 1);
    const second = new FileMemento(join(dir, 'state'));
    assert.deepEqual(second.moveFrom(old).copied, []);
    assert.deepEqual(new InstanceStore(second, new MemorySecrets(), now).list().map((i) => i.id), ['n1']);
    assert.equal(second.get('gpuRent.late'), undefined);
  });

  it('an interrupted move (no marker yet) copies only what is still missing, never over what the files hold', async () => {
    const old = new GlobalState();
    await old.update('a', 'from-globalState');
    await old.update('b', 'from-globalState');
    const files = new FileMemento(join(dir, 'state'));
    await files.update('a', 'newer-in-files');
    const m = files.moveFrom(old);
    assert.deepEqual(m.copied, ['b']);
    await m.done;
    const back = new FileMemento(join(dir, 'state'));
    assert.deepEqual([back.get('a'), back.get('b')], ['newer-in-files', 'from-globalState']);
  });

  it('an unreadable file is kept aside (not lost) and the rest is read; a removed key removes its file', async () => {
    const files = new FileMemento(join(dir, 'state'));
    await files.update('good', { x: 1 });
    await files.update('gone', 2);
    await files.update('gone', undefined);
    writeFileSync(join(dir, 'state', 'broken.json'), '{"half');
    const back = new FileMemento(join(dir, 'state'));
    assert.deepEqual(back.get('good'), { x: 1 });
    assert.equal(back.get('gone'), undefined);
    assert.equal(back.unreadable.length, 1);
    assert.match(back.unreadable[0]!, /broken\.json\.unreadable-\d+$/);
    assert.equal(readFileSync(back.unreadable[0]!, 'utf8'), '{"half');
  });

  it("openState: the extension's composition over a globalStorageUri; a folder that cannot be made keeps globalState", async () => {
    const old = new GlobalState();
    await old.update(STORE_KEY, []);
    const logs: string[] = [];
    const log = { info: (m: string) => logs.push(m), error: (m: string) => logs.push(`E ${m}`) };
    const s = openState({ globalStorageUri: { fsPath: join(dir, 'gs') } as never, globalState: old as never }, log);
    await s.update('k', 1);
    await s.flush();
    assert.ok(existsSync(join(dir, 'gs', 'state', 'k.json')));
    assert.ok(logs.some((l) => l.startsWith('moved 1 saved record')));
    writeFileSync(join(dir, 'file'), 'x');
    const fallback = openState({ globalStorageUri: { fsPath: join(dir, 'file') } as never, globalState: old as never }, log);
    assert.equal(fallback.get(STORE_KEY) !== undefined, true);
    assert.ok(logs.some((l) => l.startsWith('E the state folder')));
  });
});
