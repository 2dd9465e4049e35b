// Training runs in a real VS Code against the loopback sshd: a run started with an end action
// prints Trainer-style progress and dies of CUDA out of memory; the poll sees the end, the
// notification's cause is recognised (cudaOom), the final sync (the end action) ran and was
// recorded; Show GPU Monitor opens its panel for the instance.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { exec, fails, log, readInfo, waitFor } from '../support';

interface State {
  instances: { id: string; sync?: { lastSyncAt?: number }; jobs?: { id: string; state?: string; exitCode?: number | null }[] }[];
  guardNotices: { kind: string; instanceId: string; detail: string }[];
}
const state = () => exec<State>('gpuRent.getState');

describe('training runs: progress, end of run, monitor (loopback sshd)', function () {
  this.timeout(120_000);
  const { sshd } = readInfo();
  const login = `ssh -p ${sshd.port} ${sshd.user}@${sshd.host}`;
  const work = path.posix.join(sshd.home, 'runs');
  let id = '';

  before(async () => {
    await vscode.extensions.getExtension('gpu-rent.gpu-rent')!.activate();
    id = await exec<string>('gpuRent.addInstance', { name: 'runs box', login, password: sshd.password, platform: 'autodl', card: 'RTX 4090', hourlyRate: 2, dataDiskGb: 10, state: 'running' });
    await exec('gpuRent.checkGpu', { id, acceptNewHostKey: true, quiet: true });
    fs.mkdirSync(path.join(work, 'ckpt'), { recursive: true });
    fs.writeFileSync(path.join(work, 'ckpt', 'adapter_model.safetensors'), 'w'.repeat(50_000));
    spawnChown(work, sshd.home);
    const local = fs.mkdtempSync(path.join(os.tmpdir(), 'gr-runs-'));
    await exec('gpuRent.editInstance', { id, syncRemoteDir: `${work}/ckpt`, syncLocalDir: local });
  });

  it('a run that dies of CUDA OOM: cause recognised, the end action’s verified sync ran', async () => {
    const script = [
      "printf '***** Running training *****\\n  Total optimization steps = 1,500\\n'",
      "printf '\\r 30%%|███       | 450/1500 [39:00<1:31:00,  5.20s/it]'",
      'sleep 4',
      "printf '\\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB.\\n'",
      'exit 1',
    ].join('; ');
    const job = await exec<string>('gpuRent.startTraining', { id, command: script, cwd: work, then: 'sync' });
    log(`started ${job}`);
    await exec('gpuRent.refresh');
    const ended = await waitFor(
      'the poll to see the end',
      async () => {
        await exec('gpuRent.refresh');
        const s = await state();
        return s.guardNotices.find((n) => n.kind === 'job' && n.instanceId === id && n.detail.startsWith(`${job} exited`));
      },
      60_000,
      1000,
    );
    assert.match(ended.detail, /exited 1 \(cudaOom\)/);
    const inst = (await state()).instances.find((i) => i.id === id)!;
    assert.equal(inst.jobs?.find((j) => j.id === job)?.exitCode, 1);
    assert.ok(inst.sync?.lastSyncAt, 'the final sync ran and was recorded');
  });

  it('an end action that cannot happen is refused before the run starts: a non-root login without sudo cannot power the box off', async () => {
    const before = fs.existsSync(work) ? fs.readdirSync(work).length : 0;
    const msg = await fails('gpuRent.startTraining', { id, command: 'sleep 1', cwd: work, then: 'sync-then-power-off' });
    assert.match(msg, /End action .* cannot happen on runs box: .*Nothing was started\./);
    assert.strictEqual(fs.readdirSync(work).length, before, 'nothing was started on the box');
  });

  it('a run whose loss turns NaN: told once, and with gpuRent.training.onDiverged = stop it is stopped after N readings and its end action (sync) runs', async () => {
    const cfg = vscode.workspace.getConfiguration('gpuRent');
    await cfg.update('training.onDiverged', 'stop', vscode.ConfigurationTarget.Global);
    await cfg.update('training.divergedReadings', 3, vscode.ConfigurationTarget.Global);
    try {
      const before = (await state()).instances.find((i) => i.id === id)?.sync?.lastSyncAt ?? 0;
      // Synthetic HF Trainer-style lines (the header, a tqdm bar, print(logs) dicts) whose loss turns nan at step 4.
      const script = [
        "printf '***** Running training *****\\n  Num Epochs = 1\\n  Total optimization steps = 1,000\\n'",
        'i=0; while [ $i -lt 900 ]; do i=$((i+1)); if [ $i -le 3 ]; then l=1.5; else l=nan; fi; printf "\\r  0%%|          | %d/1000 [00:10<01:00,  5.00it/s]\\n{\'loss\': %s, \'learning_rate\': 2e-05, \'epoch\': 0.01}\\n" $i $l; sleep 0.2; done',
      ].join('; ');
      const job = await exec<string>('gpuRent.startTraining', { id, command: script, cwd: work, then: 'sync' });
      log(`started ${job}`);
      const stopped = await waitFor(
        'the diverged run to be stopped',
        async () => {
          await exec('gpuRent.refresh');
          return (await state()).guardNotices.find((n) => n.kind === 'job' && n.instanceId === id && n.detail === `${job} diverged: stopped by onDiverged`);
        },
        60_000,
        1000,
      );
      assert.ok(stopped);
      await waitFor(
        'the end of the stopped run',
        async () => {
          await exec('gpuRent.refresh');
          return (await state()).guardNotices.find((n) => n.kind === 'job' && n.instanceId === id && n.detail.startsWith(`${job} exited`));
        },
        60_000,
        1000,
      );
      // One notice per divergence: the warning (when a poll saw it before N readings) at most once, the stop once.
      const notices = (await state()).guardNotices.filter((n) => n.kind === 'job' && n.instanceId === id && n.detail.startsWith(`${job} diverged`));
      assert.equal(notices.filter((n) => n.detail === `${job} diverged: stopped by onDiverged`).length, 1, JSON.stringify(notices));
      assert.ok(notices.filter((n) => n.detail === `${job} diverged (loss nan)`).length <= 1, JSON.stringify(notices));
      const inst = (await state()).instances.find((i) => i.id === id)!;
      assert.equal(inst.jobs?.find((j) => j.id === job)?.state, 'exited');
      assert.ok((inst.sync?.lastSyncAt ?? 0) > before, 'the end action’s sync ran after the stop');
    } finally {
      await cfg.update('training.onDiverged', undefined, vscode.ConfigurationTarget.Global);
      await cfg.update('training.divergedReadings', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('Show GPU Monitor opens the panel for the instance', async () => {
    assert.equal(await exec<string>('gpuRent.showGpuMonitor', { kind: 'instance', id }), id);
    await waitFor('the monitor tab', () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.label.includes('runs box')));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

function spawnChown(dir: string, home: string): void {
  const { uid, gid } = fs.statSync(home);
  const walk = (p: string) => {
    fs.chownSync(p, uid, gid);
    if (fs.statSync(p).isDirectory()) for (const f of fs.readdirSync(p)) walk(path.join(p, f));
  };
  walk(dir);
}
