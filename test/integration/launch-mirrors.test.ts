// The launch applies the workspace probe's mirrors to its setup step (issue 44 deliver 2), on a
// real loopback box where the "direct" hosts (Hugging Face, the default pip index, ModelScope) are
// a closed port and the mirrors a real HTTP server: the setup job gets HF_ENDPOINT, PIP_INDEX_URL
// and the box's turbo file sourced; the run gets none of them; the launch says what it set. A task
// whose `mirrors:` and `env:` say otherwise gets what it says, and no turbo.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { join } from 'node:path';
import { runCliAsync } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { tempDir } from './remote-helpers';

describe('gpu-rent launch: mirrors for the setup step (real sshd box)', function () {
  this.timeout(180000);
  let box: TestSshd;
  let home: ReturnType<typeof tempDir>;
  let server: http.Server;
  let env: Record<string, string>;
  let endpoints: Record<string, string>;
  let turboFile: string;
  const login = (s: TestSshd) => `ssh://${s.user}@127.0.0.1:${s.port}`;
  // What a step sees: the three variables, one per line (empty when unset).
  const SEEN = `printf "HF_ENDPOINT=%s\\nPIP_INDEX_URL=%s\\nhttp_proxy=%s\\n" "\${HF_ENDPOINT:-}" "\${PIP_INDEX_URL:-}" "\${http_proxy:-}"`;

  function repo(name: string, yaml: string): string {
    const dir = join(home.path, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'gpu-rent.yaml'), yaml);
    writeFileSync(join(dir, 'README'), 'a task\n');
    execFileSync('git', ['init', '-q', dir]);
    return dir;
  }
  const launch = (dir: string) => runCliAsync(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--accept-new', '--identity', box.privateKeyPath], env);
  const seen = (task: string, file: string) => Object.fromEntries(readFileSync(join(box.home, 'gpu-rent', task, file), 'utf8').trim().split('\n').map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]));

  before(async () => {
    box = await startSshd();
    home = tempDir('gpu-rent-mirrors-');
    server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const up = (server.address() as net.AddressInfo).port;
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const down = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    endpoints = { hf: `http://127.0.0.1:${down}/`, hfMirror: `http://127.0.0.1:${up}/hf`, modelscope: `http://127.0.0.1:${down}/`, pip: `http://127.0.0.1:${down}/simple/`, pipMirror: `http://127.0.0.1:${up}/simple/` };
    // The box's turbo file, as AutoDL's /etc/network_turbo: it exports a proxy for the shell that sources it.
    turboFile = join(box.home, 'network_turbo');
    box.runAsUser(`printf 'export http_proxy=http://127.0.0.1:${up} && export https_proxy=http://127.0.0.1:${up}\\n' > ${turboFile}`);
    env = {
      HOME: home.path,
      GPU_RENT_HOME: join(home.path, 'cfg'),
      GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'),
      GPU_RENT_PASSWORD: '',
      GPU_RENT_LAUNCH_POLL_MS: '300',
      GPU_RENT_TEST_ENDPOINTS: JSON.stringify(endpoints),
      GPU_RENT_TEST_TURBO_FILE: turboFile,
      LANG: 'C.UTF-8',
    };
  });
  after(async () => {
    await new Promise((r) => server?.close(r));
    await box?.stop();
    home?.remove();
  });

  it('direct hosts unreachable: the setup step gets hf-mirror, the pip mirror and the turbo, the run none, and the launch says so', async () => {
    const dir = repo('mirrored', [
      'name: mirrored',
      `instance: "${login(box)}"`,
      `setup: ['${SEEN} > setup-saw']`,
      `run: '${SEEN} > run-saw'`,
      'price_yuan_per_hour: 1',
      'end: none',
    ].join('\n') + '\n');
    const r = await launch(dir);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const hf = endpoints.hfMirror!.replace(/\/+$/, '');
    assert.ok(r.stderr.includes(`setup: mirrors: HF_ENDPOINT=${hf} (Hugging Face is not reached from the box); PIP_INDEX_URL=${endpoints.pipMirror} (the default pip index is not reached from the box); ${turboFile} sourced for setup only, not for the run`), r.stderr);
    const proxy = `http://127.0.0.1:${new URL(endpoints.hfMirror!).port}`;
    assert.deepEqual(seen('mirrored', 'setup-saw'), { HF_ENDPOINT: hf, PIP_INDEX_URL: endpoints.pipMirror, http_proxy: proxy });
    assert.deepEqual(seen('mirrored', 'run-saw'), { HF_ENDPOINT: '', PIP_INDEX_URL: '', http_proxy: '' }, 'the run gets neither the mirrors nor the turbo');
  });

  it("the task's mirrors and env win: its own index, HF_ENDPOINT from env (also for the run), no turbo", async () => {
    const dir = repo('overridden', [
      'name: overridden',
      `instance: "${login(box)}"`,
      `setup: ['${SEEN} > setup-saw']`,
      `run: '${SEEN} > run-saw'`,
      'env: {HF_ENDPOINT: "https://my-hf.example.cn"}',
      'mirrors: {pip_index: "https://pypi.tuna.tsinghua.edu.cn/simple", turbo: off}',
      'price_yuan_per_hour: 1',
      'end: none',
    ].join('\n') + '\n');
    const r = await launch(dir);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.ok(r.stderr.includes("setup: mirrors: HF_ENDPOINT from the task's env; PIP_INDEX_URL=https://pypi.tuna.tsinghua.edu.cn/simple (the task's mirrors)"), r.stderr);
    assert.deepEqual(seen('overridden', 'setup-saw'), { HF_ENDPOINT: 'https://my-hf.example.cn', PIP_INDEX_URL: 'https://pypi.tuna.tsinghua.edu.cn/simple', http_proxy: '' });
    assert.deepEqual(seen('overridden', 'run-saw'), { HF_ENDPOINT: 'https://my-hf.example.cn', PIP_INDEX_URL: '', http_proxy: '' });
  });
});
