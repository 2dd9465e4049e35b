// The workspace probe on the real sshd (issue 44 deliver 2 and 3): glibc as the box's own getconf
// says; conda found only by a login shell (the test user's ~/bin is on PATH in login shells only,
// as AutoDL's conda is); which endpoints answer, with two of them pointed at a real HTTP server on
// the box's loopback and the others at a closed port, through probeWorkspace and the built CLI's
// `probe TARGET --workspace` (JSON and words).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as http from 'node:http';
import * as net from 'node:net';
import { join } from 'node:path';
import { probeWorkspace } from '../../src/remote/workspaceProbe';
import type { RemoteConnection } from '../../src/remote/connection';
import { runCliAsync } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, tempDir } from './remote-helpers';

describe('workspace probe (real sshd)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let dir: ReturnType<typeof tempDir>;
  let conn: RemoteConnection;
  let server: http.Server;
  let endpoints: Record<string, string>;

  before(async () => {
    sshd = await startSshd();
    dir = tempDir();
    conn = connectionTo(sshd, join(dir.path, 'kh'));
    server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const up = (server.address() as net.AddressInfo).port;
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const down = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    endpoints = { hf: `http://127.0.0.1:${down}/`, hfMirror: `http://127.0.0.1:${up}/hf`, modelscope: `http://127.0.0.1:${down}/`, pip: `http://127.0.0.1:${down}/simple/`, pipMirror: `http://127.0.0.1:${up}/simple/` };
    sshd.runAsUser('printf "#!/bin/sh\\necho conda 24.1.2\\n" > ~/bin/conda && chmod +x ~/bin/conda');
  });
  after(async () => {
    conn?.close();
    await new Promise((r) => server?.close(r));
    await sshd?.stop();
    dir?.remove();
  });

  it("reads glibc, finds conda only in a login shell, and advises hf-mirror and the pip mirror when only they answer", async () => {
    const w = await probeWorkspace(conn, { endpoints, timeoutS: 2 });
    const local = /glibc (\d+\.\d+)/.exec(execFileSync('getconf', ['GNU_LIBC_VERSION'], { encoding: 'utf8' }))![1]!;
    assert.equal(w.glibc, local);
    assert.equal(w.glibcVerdict.code, 'ok');
    assert.equal(w.condaNonLogin, null);
    assert.equal(w.condaLogin, `${sshd.home}/bin/conda`);
    assert.deepEqual(
      w.reach!.map((r) => [r.id, r.status]),
      [
        ['hf', null],
        ['hfMirror', 200],
        ['modelscope', null],
        ['pip', null],
        ['pipMirror', 200],
      ],
    );
    assert.equal(w.advice!.models, 'hf-mirror');
    assert.equal(w.advice!.hfEndpoint, endpoints.hfMirror!.replace(/\/+$/, ''));
    assert.equal(w.advice!.pipIndex, endpoints.pipMirror);
  });

  it('gpu-rent probe TARGET --workspace: the findings in JSON and in words', async () => {
    const env = { HOME: dir.path, GPU_RENT_HOME: join(dir.path, 'cfg'), GPU_RENT_PASSWORD: sshd.password, GPU_RENT_KNOWN_HOSTS: join(dir.path, 'kh-cli'), GPU_RENT_TEST_ENDPOINTS: JSON.stringify(endpoints), LANG: 'C.UTF-8' };
    const target = `ssh -p ${sshd.port} ${sshd.user}@127.0.0.1`;
    const j = await runCliAsync(['probe', target, '--workspace', '--json', '--accept-new'], env);
    const doc = JSON.parse(j.stdout) as { workspace: { glibcVerdict: { code: string }; condaNonLogin: string | null; advice: { models: string; pipIndex: string } } };
    assert.equal(doc.workspace.glibcVerdict.code, 'ok');
    assert.equal(doc.workspace.condaNonLogin, null);
    assert.equal(doc.workspace.advice.models, 'hf-mirror');
    const words = await runCliAsync(['probe', target, '--workspace'], env);
    assert.match(words.stdout, /Remote-SSH server runs here/);
    assert.match(words.stdout, /conda only in a login shell .*conda init bash/);
    assert.match(words.stdout, new RegExp(`HF_ENDPOINT=${endpoints.hfMirror!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    assert.match(words.stdout, /pip: use the mirror/);
    const zh = await runCliAsync(['probe', target, '--workspace', '--lang', 'zh-cn'], env);
    assert.match(zh.stdout, /conda 只在登录 shell 中/);
  });
});
