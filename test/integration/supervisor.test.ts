// The on-box supervisor against a real OpenSSH server on loopback: a real job (gpu-rent's own
// job record), real files, python3 on the box, a fake clock only where a budget is timed. The
// laptop closes its connection right after arming (what a sleeping laptop does) and the box
// finishes on its own: checkpoints stored and verified (never the log, never a .tmp), the
// message command run once with the figures, the end action run; or it waits for an awake
// laptop and stands down when the laptop claims the end.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RemoteConnection } from '../../src/remote/connection';
import { startJob } from '../../src/remote/jobs';
import { armSupervisor, claimEnd, laptopDone, markLaptopAwake, stopSupervisor, supervisorStatus, type SupervisorConfig, type SupervisorStatus } from '../../src/remote/guards/supervisor';
import { startSshd, type TestSshd } from '../support/sshd';
import { startS3, type TestS3 } from '../support/s3server';
import { untilValue } from '../support/timing';
import { createUploadGrant } from '../../src/app/storage/grant';
import { s3Client, SHA_META } from '../../src/app/storage/s3';
import { renderBoxUploader, renderPostGrantConfig } from '../../src/core/storage/grant';
import type { S3Store } from '../../src/core/storage/names';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('supervisor: the box finishes the run while the laptop is away', function () {
  this.timeout(90000);
  let sshd: TestSshd;
  let work: string;
  const connect = async () => {
    const c = new RemoteConnection(
      { host: sshd.host, port: sshd.port, user: sshd.user, identityFiles: [sshd.privateKeyPath], source: 'address', ignored: [] },
      { knownHostsPath: join(work, 'known_hosts'), acceptNew: true, agent: false, useDefaultKeys: false, opTimeoutMs: 20000 },
    );
    await c.connect();
    return c;
  };
  /** The supervisor's status once `ok` holds (read over SSH every 300 ms). */
  const statusWhen = (conn: RemoteConnection, job: string, ok: (s: SupervisorStatus) => boolean): Promise<SupervisorStatus> =>
    untilValue(`the supervisor of ${job}`, () => supervisorStatus(conn, job), ok, { ms: 45000, everyMs: 300, show: (s) => JSON.stringify({ state: s.state, events: s.events }) });
  const base = (job: string): SupervisorConfig => ({
    job,
    pollSeconds: 1,
    checkpoints: { dir: `~/runs/${job}/out`, everySeconds: 1, settleSeconds: 1 },
    store: { kind: 'folder', dir: `~/autodl-fs/${job}` },
    divergeAfter: 3,
    budgetSeconds: null,
    bill: { spentFen: 120, fenPerHour: 198 },
    spot: null,
    end: { action: 'power-off', command: `echo off > "$HOME/POWERED-OFF-${job}"` },
    notify: { finished: [['sh', `~/notify-${job}.sh`, 'finished']], failed: [['sh', `~/notify-${job}.sh`, 'failed']], diverged: [['sh', `~/notify-${job}.sh`, 'diverged']], budgetStop: [['sh', `~/notify-${job}.sh`, 'budgetStop']], spotReclaimed: [['sh', `~/notify-${job}.sh`, 'spotReclaimed']] },
    laptopAwaySeconds: 5,
    graceSeconds: 60,
  });
  const notifyScript = (job: string) => `printf '%s\\n' "$*" >> "$HOME/messages-${job}"\n`;
  // A LLaMA-Factory-like run: trainer_log.jsonl every step, checkpoint-N/ every 2 steps with its
  // trainer_state.json written last, and a half-written checkpoint-N.tmp while it saves.
  const trainer = (job: string, steps: number, lossAt: (i: number) => string, code = 0) =>
    [
      `O=$HOME/runs/${job}/out; mkdir -p "$O"`,
      `for i in $(seq 1 ${steps}); do`,
      `  echo "{'loss': $(case $i in ${lossAt(0)}) , 'step': $i}"; echo "{\\"current_steps\\": $i}" >> "$O/trainer_log.jsonl"`,
      '  if [ $((i % 2)) -eq 0 ]; then mkdir -p "$O/checkpoint-$i.tmp"; head -c 3000 /dev/urandom > "$O/checkpoint-$i.tmp/adapter_model.safetensors"; mv "$O/checkpoint-$i.tmp" "$O/checkpoint-$i"; echo "{\\"global_step\\": $i}" > "$O/checkpoint-$i/trainer_state.json"; fi',
      '  sleep 0.4',
      'done',
      `exit ${code}`,
    ].join('\n');

  before(async () => {
    sshd = await startSshd();
    work = mkdtempSync(join(tmpdir(), 'gpr-sup-'));
  });
  after(async () => {
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('stores every complete checkpoint verified, sends one message and powers off after the laptop went away', async () => {
    const job = 'lid1';
    let conn = await connect();
    await conn.exec(`cat > ~/notify-${job}.sh <<'EOF'\n${notifyScript(job)}EOF`);
    await startJob(conn, { name: job, command: ['bash', '-c', trainer(job, 6, () => '*) echo 0.5$i ;; esac')], cwd: '~', runner: 'setsid' });
    const armed = await armSupervisor(conn, base(job));
    assert.ok(armed.running && armed.heartbeat !== null);
    // The laptop sleeps: the SSH connection is gone and nothing of the laptop runs.
    conn.close();
    await sleep(7000);
    conn = await connect();
    const done = await statusWhen(conn, job, (s) => s.state?.text.startsWith('done') === true);
    assert.equal(done.state!.text, 'done finished');
    const home = sshd.home;
    // Beside the checkpoints, the supervisor's journal (.gpu-rent/), put there before its end action.
    const stored = readdirSync(join(home, 'autodl-fs', job)).filter((n) => n !== '.gpu-rent').sort();
    assert.deepEqual(stored, ['checkpoint-2', 'checkpoint-4', 'checkpoint-6']);
    assert.match(readFileSync(join(home, 'autodl-fs', job, '.gpu-rent', 'journal.log'), 'utf8'), /"kind": "run-ended", "detail": "finished exit=0/);
    assert.match(readFileSync(join(home, 'autodl-fs', job, '.gpu-rent', 'state'), 'utf8'), /^acting finished \d+/);
    for (const c of stored) {
      const a = readFileSync(join(home, 'runs', job, 'out', c, 'adapter_model.safetensors'));
      const b = readFileSync(join(home, 'autodl-fs', job, c, 'adapter_model.safetensors'));
      assert.equal(createHash('sha256').update(b).digest('hex'), createHash('sha256').update(a).digest('hex'));
      assert.ok(existsSync(join(home, 'autodl-fs', job, c, 'trainer_state.json')));
    }
    assert.deepEqual(done.stored.map((s) => s.name).sort(), stored);
    const messages = readFileSync(join(home, `messages-${job}`), 'utf8').trim().split('\n');
    assert.equal(messages.length, 1, messages.join(' | '));
    assert.match(messages[0]!, /^finished step=6 cost=\d+\.\d\d exit=0$/);
    assert.equal(readFileSync(join(home, `POWERED-OFF-${job}`), 'utf8').trim(), 'off');
    const kinds = done.events.map((e) => e.kind);
    assert.ok(kinds.indexOf('run-ended') < kinds.indexOf('notify-sent') && kinds.indexOf('notify-sent') < kinds.indexOf('action-start'), kinds.join(','));
    // Armed again (a `launch --resume`): nothing is stored twice.
    const storedEvents = done.events.filter((e) => e.kind === 'stored').length;
    await armSupervisor(conn, { ...base(job), end: { action: 'none', command: null }, notify: {} });
    const again = await statusWhen(conn, job, (s) => s.state?.text.startsWith('done') === true && s.events.filter((e) => e.kind === 'armed').length === 2);
    assert.equal(again.events.filter((e) => e.kind === 'stored').length, storedEvents);
    conn.close();
  });

  it('stops a diverged run after N non-finite losses and says so', async () => {
    const job = 'lid2';
    const conn = await connect();
    await conn.exec(`cat > ~/notify-${job}.sh <<'EOF'\n${notifyScript(job)}EOF`);
    await startJob(conn, { name: job, command: ['bash', '-c', trainer(job, 60, () => '[1-4]) echo 2.1 ;; *) echo nan ;; esac')], cwd: '~', runner: 'setsid' });
    await armSupervisor(conn, base(job));
    const done = await statusWhen(conn, job, (s) => s.state?.text.startsWith('done') === true);
    assert.equal(done.state!.text, 'done diverged');
    const div = done.events.find((e) => e.kind === 'diverged');
    assert.match(div!.detail, /loss not finite for [3-9] readings since step 5/);
    const messages = readFileSync(join(sshd.home, `messages-${job}`), 'utf8').trim().split('\n');
    assert.equal(messages.length, 1);
    assert.match(messages[0]!, /^diverged step=\d+ /);
    // The run was stopped long before its 60 steps.
    assert.ok(!existsSync(join(sshd.home, 'runs', job, 'out', 'checkpoint-60')));
    conn.close();
  });

  it('waits for an awake laptop and stands down when the laptop claims the end', async () => {
    const job = 'lid3';
    const conn = await connect();
    await conn.exec(`cat > ~/notify-${job}.sh <<'EOF'\n${notifyScript(job)}EOF`);
    await startJob(conn, { name: job, command: ['bash', '-c', trainer(job, 2, () => '*) echo 0.3 ;; esac')], cwd: '~', runner: 'setsid' });
    await markLaptopAwake(conn, job).catch(() => undefined);
    await armSupervisor(conn, { ...base(job), laptopAwaySeconds: 30 });
    await markLaptopAwake(conn, job);
    const ending = await statusWhen(conn, job, (s) => s.state?.text === 'ending finished');
    assert.ok(ending.running);
    assert.equal(await claimEnd(conn, job), 'laptop');
    const claimed = await statusWhen(conn, job, (s) => s.state?.text === 'claimed');
    assert.equal(claimed.events.some((e) => e.kind === 'notify-sent' || e.kind === 'action-start'), false);
    assert.equal(existsSync(join(sshd.home, `messages-${job}`)), false);
    assert.equal(existsSync(join(sshd.home, `POWERED-OFF-${job}`)), false);
    // Its checkpoints were still stored before it stood down; it waits for the laptop to finish the end.
    assert.deepEqual(claimed.stored.map((s) => s.name), ['checkpoint-2']);
    assert.ok(claimed.running);
    // A second claim (a second laptop process) still reads the laptop as the owner; the box never takes it.
    assert.equal(await claimEnd(conn, job), 'laptop');
    await markLaptopAwake(conn, job);
    await laptopDone(conn, job);
    const gone = await statusWhen(conn, job, (s) => !s.running);
    assert.ok(gone.events.some((e) => e.kind === 'laptop-done'));
    assert.equal(existsSync(join(sshd.home, `POWERED-OFF-${job}`)), false);
    conn.close();
  });

  it('takes the end back when the laptop that claimed it goes away before it is done (slept during its end)', async () => {
    const job = 'lid7';
    const conn = await connect();
    await conn.exec(`cat > ~/notify-${job}.sh <<'EOF'\n${notifyScript(job)}EOF`);
    await startJob(conn, { name: job, command: ['bash', '-c', trainer(job, 2, () => '*) echo 0.3 ;; esac')], cwd: '~', runner: 'setsid' });
    await armSupervisor(conn, { ...base(job), laptopAwaySeconds: 4 });
    await markLaptopAwake(conn, job);
    await statusWhen(conn, job, (s) => s.state?.text === 'ending finished');
    assert.equal(await claimEnd(conn, job), 'laptop');
    // The laptop marks no more and never says done: after laptopAwaySeconds the box ends the run itself.
    const done = await statusWhen(conn, job, (s) => s.state?.text.startsWith('done') === true);
    assert.equal(done.state!.text, 'done finished');
    const kinds = done.events.map((e) => e.kind);
    assert.ok(kinds.indexOf('claimed') < kinds.indexOf('laptop-gone') && kinds.indexOf('laptop-gone') < kinds.indexOf('action-start'), kinds.join(','));
    assert.match(readFileSync(join(sshd.home, `messages-${job}`), 'utf8'), /^finished /);
    assert.equal(readFileSync(join(sshd.home, `POWERED-OFF-${job}`), 'utf8').trim(), 'off');
    conn.close();
  });

  it('a laptop that comes back after the box took the end reads box as the owner and is never let in', async () => {
    const job = 'lid8';
    const conn = await connect();
    await conn.exec(`cat > ~/notify-${job}.sh <<'EOF'\n${notifyScript(job)}EOF`);
    await startJob(conn, { name: job, command: ['bash', '-c', trainer(job, 2, () => '*) echo 0.3 ;; esac')], cwd: '~', runner: 'setsid' });
    // The laptop was never seen: the box owns the end as soon as the run ends.
    await armSupervisor(conn, { ...base(job), end: { action: 'power-off', command: `sleep 2; echo off > "$HOME/POWERED-OFF-${job}"` } });
    await statusWhen(conn, job, (s) => /^(acting|done) /.test(s.state?.text ?? ''));
    assert.equal(await claimEnd(conn, job), 'box');
    const done = await statusWhen(conn, job, (s) => s.state?.text.startsWith('done') === true);
    assert.equal(done.state!.text, 'done finished');
    assert.equal(done.events.filter((e) => e.kind === 'notify-sent').length, 1);
    conn.close();
  });

  it('stops the run when the budget is spent by its own clock', async () => {
    const job = 'lid4';
    const conn = await connect();
    await conn.exec(`cat > ~/notify-${job}.sh <<'EOF'\n${notifyScript(job)}EOF`);
    await startJob(conn, { name: job, command: ['bash', '-c', trainer(job, 200, () => '*) echo 0.3 ;; esac')], cwd: '~', runner: 'setsid' });
    await armSupervisor(conn, { ...base(job), budgetSeconds: 3 });
    const done = await statusWhen(conn, job, (s) => s.state?.text.startsWith('done') === true);
    assert.equal(done.state!.text, 'done budgetStop');
    assert.ok(done.events.some((e) => e.kind === 'job-stop' && e.detail === 'budget'));
    assert.match(readFileSync(join(sshd.home, `messages-${job}`), 'utf8'), /^budgetStop step=\d+ cost=/);
    conn.close();
  });

  it('stores checkpoints in a bucket through the run grant alone: verified by the store, the key nowhere on the box', async () => {
    const job = 'lid6';
    let s3: TestS3 | undefined;
    const conn = await connect();
    try {
      s3 = await startS3(['ckpt']);
      const SECRET = 'sk-supervisor-test-0123456789abcdef';
      const store: S3Store = { kind: 's3', name: 'loc', endpoint: s3.endpoint, bucket: 'ckpt', region: 'us-east-1', pathStyle: true };
      const client = await s3Client(store, { keyId: s3.keyId, secret: SECRET });
      const grant = await createUploadGrant(client, store, { prefix: `runs/${job}/`, maxBytes: 64 * 1024 * 1024, runBoundS: 3600 });
      await conn.exec(`cat > ~/notify-${job}.sh <<'EOF'\n${notifyScript(job)}EOF`);
      await startJob(conn, { name: job, command: ['bash', '-c', trainer(job, 4, () => '*) echo 0.3 ;; esac')], cwd: '~', runner: 'setsid' });
      const dir = `~/.gpu-rent/supervisor/${job}`;
      await armSupervisor(conn, { ...base(job), store: { kind: 'post', uploader: `${dir}/upload.sh`, grant: `${dir}/upload.grant` }, laptopAwaySeconds: 5 }, [
        { name: 'upload.grant', content: renderPostGrantConfig(grant), mode: 0o600 },
        { name: 'upload.sh', content: renderBoxUploader({ prefix: grant.prefix, maxBytes: grant.maxBytes, attempts: 2, retryPauseS: 1 }), mode: 0o700 },
      ]);
      const done = await statusWhen(conn, job, (x) => x.state?.text.startsWith('done') === true);
      assert.equal(done.state!.text, 'done finished', JSON.stringify(done.events));
      assert.deepEqual(done.stored.map((x) => x.name).sort(), ['checkpoint-2', 'checkpoint-4']);
      const { HeadObjectCommand, GetObjectCommand } = await import('@aws-sdk/client-s3');
      for (const c of ['checkpoint-2', 'checkpoint-4']) {
        const local = readFileSync(join(sshd.home, 'runs', job, 'out', c, 'adapter_model.safetensors'));
        const key = `runs/${job}/${c}/adapter_model.safetensors`;
        const head = await client.send(new HeadObjectCommand({ Bucket: 'ckpt', Key: key }));
        assert.equal(head.Metadata?.[SHA_META], createHash('sha256').update(local).digest('hex'));
        const got = Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: 'ckpt', Key: key }))).Body!.transformToByteArray());
        assert.deepEqual(got, local);
      }
      client.destroy();
      // The store's secret is in no file of the box user's.
      const found = (await conn.exec(`grep -rl -- ${JSON.stringify(SECRET)} ~ 2>/dev/null; true`)).stdout.trim();
      assert.equal(found, '');
    } finally {
      conn.close();
      await s3?.stop();
    }
  });

  describe('spot notices', () => {
    let server: Server;
    let tokenAsked = 0;
    const requests: string[] = [];
    before(async () => {
      // 阿里云's metadata in hardened mode: a GET without the token is refused (403), the notice
      // comes only with X-aliyun-ecs-metadata-token (help.aliyun.com ECS "实例元数据" 加固模式).
      server = createServer((req, res) => {
        requests.push(`${req.method} ${req.url}`);
        if (req.method === 'PUT' && req.url === '/latest/api/token') {
          tokenAsked++;
          res.end('tok-123');
          return;
        }
        if (req.headers['x-aliyun-ecs-metadata-token'] !== 'tok-123') {
          res.statusCode = 403;
          res.end();
          return;
        }
        if (req.url === '/latest/meta-data/instance/spot/termination-time') res.end('2026-12-06T12:05:00Z');
        else {
          res.statusCode = 404;
          res.end();
        }
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    });
    after(() => new Promise<void>((r) => server.close(() => r())));

    it('hears a 阿里云 notice that needs the metadata token, stores at once and sends the reclaim message', async () => {
      const job = 'lid5';
      const conn = await connect();
      await conn.exec(`cat > ~/notify-${job}.sh <<'EOF'\n${notifyScript(job)}EOF`);
      await startJob(conn, { name: job, command: ['bash', '-c', trainer(job, 30, () => '*) echo 0.3 ;; esac')], cwd: '~', runner: 'setsid' });
      const port = (server.address() as AddressInfo).port;
      await armSupervisor(conn, { ...base(job), checkpoints: { dir: `~/runs/${job}/out`, everySeconds: 3600, settleSeconds: 0 }, spot: { cloud: 'aliyun', base: `http://127.0.0.1:${port}` } });
      const s = await statusWhen(conn, job, (x) => x.events.some((e) => e.kind === 'spot-notice'));
      assert.equal(s.events.find((e) => e.kind === 'spot-notice')!.detail, '2026-12-06T12:05:00Z');
      assert.ok(tokenAsked >= 1);
      await statusWhen(conn, job, (x) => x.events.some((e) => e.kind === 'notify-sent'));
      assert.match(readFileSync(join(sshd.home, `messages-${job}`), 'utf8'), /^spotReclaimed /);
      await stopSupervisor(conn, job);
      conn.close();
    });
  });
});
