// The sync state file's record of box versions saved beside a kept local file: read back as
// written, and a tampered entry (a path out of the folder, odd fields) dropped, never used.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STATE_FILE } from '../../src/remote/sync/names';
import { readState, writeState } from '../../src/remote/sync/state';

describe('sync state: versions saved beside kept files', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sync-state-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('round-trips, and leaves the field out when there is nothing to say', async () => {
    const saved = { 'notes.md': { size: 3, mtime: 1583064000, savedAs: 'notes (box copy 2020-03-01).md' } };
    await writeState(dir, { version: 1, source: 's', files: {}, savedBeside: saved });
    assert.deepEqual((await readState(dir, 's')).savedBeside, saved);
    await writeState(dir, { version: 1, source: 's', files: {} });
    assert.ok(!readFileSync(join(dir, STATE_FILE), 'utf8').includes('savedBeside'));
    assert.deepEqual((await readState(dir, 's')).savedBeside, {});
  });

  it('drops tampered entries', async () => {
    const good = { size: 1, mtime: 2, savedAs: 'a (box copy 1970-01-01).md' };
    const raw = {
      version: 1,
      source: 's',
      files: {},
      savedBeside: { 'a.md': good, 'b.md': { size: 1, mtime: 2, savedAs: '../../.bashrc' }, 'c.md': { size: -1, mtime: 2, savedAs: 'c' }, 'd.md': { size: 1, mtime: 2, savedAs: '/etc/passwd' }, 'e.md': 'x' },
    };
    writeFileSync(join(dir, STATE_FILE), JSON.stringify(raw));
    assert.deepEqual((await readState(dir, 's')).savedBeside, { 'a.md': good });
  });
});
