// `gpu-rent power-on|power-off|release INSTANCE`: one power action through the platform's API,
// after showing the price per hour; then the state is read again until it settles (or the
// deadline) with each step on stderr. The action itself is sent once, never retried.
import { PLATFORM_NAMES, PlatformError, stillBillsLine } from '../../app/platforms/errors';
import { afterPowerOff, powerOffModeFor } from '../../core/platforms/billing';
import { descriptorOf } from '../../core/platforms/descriptors';
import { TARGET, waitForState } from '../../app/platforms/settle';
import { formatCny } from '../../core/money';
import { forTerminal, listSome } from '../../core/text';
import { can, type Capability, type Connector, type PlatformInstance } from '../../core/platforms/types';
import { formatHelp, UsageError, type FlagSpecs } from '../args';
import { helpLang } from '../words';
import type { CliCommand, CliIO } from '../command';
import { defineCommand } from '../define';
import { CliFailure } from '../failure';
import { connectorFor, failureLine, howToAdd, loadAccounts, type CliAccount } from './accounts';
import { join } from 'node:path';
import { configHome } from '../../app/platforms/accountFile';
import { acquireFileLock, busyText, powerLockKey } from '../../app/platforms/powerLock';
import { DEFAULT_WAIT_S, MAX_WAIT_S } from '../../core/platforms/gpuWait';
import { powerOnWhenFree } from './power-wait';
import { LANG_FLAG_SPEC, type CliLang } from '../lang';
import { stateWord, t } from '../words';
import { errorCode } from '../json-error';
import { allFailedCode, miss, type Miss } from './platform-fail';

const specs = {
  account: { type: 'string', valueName: 'ID', description: 'the account the instance belongs to (when several could)', zh: '实例所属的账号（可能属于多个账号时）' },
  'no-gpu': { type: 'boolean', description: 'power-on: start in no-GPU mode (AutoDL console token only)', zh: 'power-on：以无卡模式开机（仅 AutoDL 控制台令牌）' },
  'stop-charging': { type: 'boolean', description: 'power-off on 阿里云/腾讯云: ask for economical mode (StopCharging / STOP_CHARGING: vCPU, memory and GPU stop billing; disks and public IP / EIP still bill). The default there', zh: '阿里云/腾讯云 关机：使用节省停机模式（StopCharging / STOP_CHARGING：vCPU、内存和 GPU 停止计费；云盘和公网 IP / EIP 仍计费）。这两个平台的默认值' },
  'keep-charging': { type: 'boolean', description: 'power-off on 阿里云/腾讯云: keep-charging mode instead (compute keeps billing as if it ran; the instance keeps its resources)', zh: '阿里云/腾讯云 关机：改用停机继续收费模式（计算资源照常计费；实例保留其资源）' },
  yes: { type: 'boolean', description: 'do it (without it, only the instance, its price per hour and the action are shown)', zh: '执行（不加时只显示实例、每小时价格和将要执行的操作）' },
  wait: { type: 'number', valueName: 'SECONDS', integer: true, min: 0, max: MAX_WAIT_S, description: 'how long to wait for the state to settle (default 180, at most 1800; 0: do not wait); with --wait-for-gpu how long to wait for a free card (default 3600, at most 86400)', zh: '等待状态稳定的秒数（默认 180，最多 1800；0：不等待）；配合 --wait-for-gpu 时为等待空闲显卡的秒数（默认 3600，最多 86400）' },
  'wait-for-gpu': { type: 'boolean', description: 'power-on: when the platform has no free card, try again (at most once every 15 s, backing off to every 5 minutes) until one is free, --wait runs out or Ctrl-C; other refusals (balance, real-name, quota, token) end it at once', zh: 'power-on：平台没有空闲显卡时反复重试（最多每 15 秒一次，逐步放慢到每 5 分钟一次），直到有卡、--wait 用完或按 Ctrl-C；其他拒绝（余额、实名、配额、令牌）立即结束' },
  json: { type: 'boolean', description: 'print the final state as JSON', zh: '以 JSON 输出最终状态' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

type Action = 'power-on' | 'power-off' | 'release';

/** stillBillsLine's words in Chinese. */
function stillBillsZh(kind: Parameters<typeof stillBillsLine>[0], a: Parameters<typeof stillBillsLine>[1], priceText: string): string {
  const rest = descriptorOf(kind).keepChargingStopBills ? '云盘和公网 IP / EIP' : '付费数据盘（如有）';
  if (a.compute === 'bills') return `计算资源仍在计费（${priceText}），如同运行中：${a.refused ? `${PLATFORM_NAMES[kind]} 以停机继续收费模式关机（该实例不支持节省停机模式）` : '它以停机继续收费模式关机'}；${rest}也在计费。释放它，或在支持的地方用节省停机模式关机，才能停止计算计费`;
  if (a.compute === 'prepaid') return `包月/包年：计算资源已预付，运行到到期为止；${rest}按套餐计费`;
  return `计算已停止计费；仍在计费：${rest}`;
}

/**
 * The one platform instance named `target` (its id or name) among the accounts (or `--account`),
 * or the Miss that says why not, with its code: no-account, several matches (ambiguous), a
 * failing account (platform-fail.ts' code: unreachable, token-expired, …), not-found. `only`
 * narrows the accounts asked (clone asks only those that can clone); `whenNoneFit` is the line
 * when accounts exist but none passes it (code not-supported).
 */
export async function findPlatformInstance(
  io: CliIO,
  target: string,
  accountId: string | undefined,
  lang: CliLang,
  only?: { fits: (a: CliAccount) => boolean; whenNoneFit: (lang: CliLang) => string },
): Promise<{ a: CliAccount; c: Connector; inst: PlatformInstance } | Miss> {
  const all = (await loadAccounts(io)).filter((a) => !accountId || a.account.id === accountId);
  if (!all.length) return accountId ? miss(lang, 'no-account', 'no account {0} (gpu-rent accounts list)', '没有账号 {0}（gpu-rent accounts list 可查看）', accountId) : { miss: true, code: 'no-account', en: howToAdd('en').trimEnd(), text: howToAdd(lang).trimEnd() };
  const accounts = only ? all.filter(only.fits) : all;
  if (only && !accounts.length) return { miss: true, code: 'not-supported', en: only.whenNoneFit('en'), text: only.whenNoneFit(lang) };
  const errors: { text: string; en: string; code: string }[] = [];
  const hits: { a: CliAccount; c: Connector; inst: PlatformInstance }[] = [];
  await Promise.all(
    accounts.map(async (a) => {
      const c = connectorFor(a, io);
      try {
        for (const inst of await c.list()) if (inst.ref === target || inst.name === target) hits.push({ a, c, inst });
      } catch (e) {
        errors.push({ text: `${a.account.id}: ${failureLine(e, lang)}`, en: `${a.account.id}: ${failureLine(e)}`, code: errorCode(e) });
      }
    }),
  );
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1) return miss(lang, 'ambiguous', '{0} matches {1} instances ({2}): use the id and --account', '{0} 匹配到 {1} 个实例（{2}）：请用实例 ID 并加 --account', forTerminal(target), hits.length, listSome(hits.map((h) => `${h.a.account.id}/${forTerminal(h.inst.ref)}`), (n) => `… +${n}`));
  // An account that could not be read may hold it: its failure, not "no instance".
  if (errors.length) return { miss: true, code: allFailedCode(errors.map((e) => e.code)), en: errors.map((e) => e.en).join('; '), text: errors.map((e) => e.text).join('; ') };
  return miss(lang, 'not-found', 'no instance {0} on {1}', '{1} 上没有实例 {0}', forTerminal(target), accounts.map((a) => a.account.id).join(', '));
}

/**
 * What a power action came to: a preview (nothing sent, exit 2), a wait for a free card that
 * printed its own report (its exit code), or the action sent and its state read back.
 */
type PowerResult = { kind: 'preview'; doc: Record<string, unknown> } | { kind: 'waited'; exit: number } | { kind: 'done'; doc: Record<string, unknown>; line: string; exit: number };

function makeCommand(action: Action): CliCommand {
  const usage = `gpu-rent ${action} INSTANCE [--account ID]${action === 'power-on' ? ' [--no-gpu | --wait-for-gpu [--wait SECONDS]]' : action === 'power-off' ? ' [--keep-charging]' : ''} [--yes]`;
  const summary = {
    'power-on': 'start an instance through its platform (GPU, or no-GPU mode where offered)',
    'power-off': 'shut an instance down through its platform; on 阿里云/腾讯云 in economical mode (StopCharging), read back, saying what still bills',
    release: 'release (delete) an instance through its platform: its disks are deleted',
  }[action];
  const summaryZh = {
    'power-on': '通过平台开机（带 GPU，或平台提供时以无卡模式）',
    'power-off': '通过平台关机；阿里云/腾讯云 用节省停机模式（StopCharging），并回读状态，说明还有什么在计费',
    release: '通过平台释放（删除）实例：其云盘会被删除',
  }[action];
  const about = `${summary.charAt(0).toUpperCase()}${summary.slice(1)}. INSTANCE is the platform's id or the instance's name. Shows the price per hour first; acts only with --yes, on accounts with power actions allowed.`;
  const aboutZh = `${summaryZh}。INSTANCE 是平台的实例 ID 或实例名称。先显示每小时价格；只有加 --yes 且账号允许电源操作时才执行。`;
  return defineCommand({
    name: action,
    summary,
    summaryZh,
    usage,
    about,
    aboutZh,
    flags: specs,
    positionals: { max: 1, names: 'INSTANCE' },
    help: (ctx) =>
      formatHelp(usage, about, specs, helpLang(ctx), aboutZh),
    run: async (flags, { io, lang, positionals }): Promise<PowerResult> => {
      const target = positionals[0];
      const only = (flag: string, cmd: string) => new UsageError(`${flag} is for ${cmd}`, `${flag} 只用于 ${cmd}`);
      if (!target) throw new UsageError('expects INSTANCE (gpu-rent instances lists them)', '需要 INSTANCE（gpu-rent instances 会列出）');
      if (flags['no-gpu'] && action !== 'power-on') throw only('--no-gpu', 'power-on');
      if (flags['stop-charging'] && action !== 'power-off') throw only('--stop-charging', 'power-off');
      if (flags['keep-charging'] && action !== 'power-off') throw only('--keep-charging', 'power-off');
      if (flags['keep-charging'] && flags['stop-charging']) throw new UsageError('--keep-charging and --stop-charging exclude each other', '--keep-charging 与 --stop-charging 不能同时使用');
      if (flags['wait-for-gpu'] && action !== 'power-on') throw only('--wait-for-gpu', 'power-on');
      if (flags['wait-for-gpu'] && flags['no-gpu']) throw new UsageError('--wait-for-gpu waits for a card; a no-GPU start needs none', '--wait-for-gpu 是等显卡的；无卡模式开机不需要显卡');
      if (!flags['wait-for-gpu'] && (flags.wait ?? 0) > 1800) throw new UsageError('--wait: at most 1800 seconds to settle (longer waits are for --wait-for-gpu)', '--wait：等待状态稳定最多 1800 秒（更长的等待用 --wait-for-gpu）');
      const found = await findPlatformInstance(io, target, flags.account, lang);
      if ('miss' in found) throw new CliFailure(found.code, found.en, { say: found.text });
      const { a, c, inst } = found;
      const offMode = powerOffModeFor(a.account.kind, flags['keep-charging'] === true);
      const cap: Capability = action === 'power-on' ? (flags['no-gpu'] ? 'powerOn:noGpu' : 'powerOn:gpu') : action === 'power-off' ? (flags['stop-charging'] || offMode === 'stopCharging' ? 'powerOff:stopCharging' : 'powerOff:keep') : 'release';
      const name = PLATFORM_NAMES[a.account.kind];
      if (!can(a.account.kind, cap)) throw new CliFailure('not-supported', `${name} offers no ${cap} through its API; do it in the platform's console`, { say: t(lang, "{0} offers no {1} through its API; do it in the platform's console", '{0} 的 API 不提供 {1}；请在平台控制台操作', name, cap) });
      if (!a.account.powerActions) throw new CliFailure('read-only', `account ${a.account.id} is read-only (${a.source === 'env' ? 'set GPU_RENT_ALLOW_POWER=1' : 'add it again with --allow-power'})`, { say: t(lang, 'account {0} is read-only ({1})', '账号 {0} 是只读的（{1}）', a.account.id, a.source === 'env' ? t(lang, 'set GPU_RENT_ALLOW_POWER=1', '请设置 GPU_RENT_ALLOW_POWER=1') : t(lang, 'add it again with --allow-power', '请加 --allow-power 重新添加')) });
      let price = inst.priceFenPerHour;
      if (price === undefined && can(a.account.kind, 'price')) price = await c.price(inst.ref).then((p) => p?.fenPerHour, () => undefined);
      const priceText = price !== undefined ? t(lang, '{0}/h', '{0}/小时', formatCny(price)) : t(lang, 'price per hour not shown by the platform now', '平台现在未显示每小时价格');
      const what =
        action === 'power-on'
          ? flags['no-gpu']
            ? t(lang, 'start in no-GPU mode', '以无卡模式开机')
            : t(lang, 'start with its GPUs', '带 GPU 开机')
          : action === 'power-off'
            ? cap === 'powerOff:stopCharging'
              ? t(lang, 'shut down in economical mode (StopCharging: compute stops billing where the platform applies it; disks and public IP / EIP still bill)', '以节省停机模式关机（StopCharging：平台应用后计算资源停止计费；云盘和公网 IP / EIP 仍计费）')
              : descriptorOf(a.account.kind).keepChargingStopBills
                ? t(lang, 'shut down in KEEP-CHARGING mode (compute keeps billing as if it ran)', '以“停机继续收费”模式关机（计算资源照常计费）')
                : t(lang, 'shut down (compute stops billing; a paid data disk still bills)', '关机（计算停止计费；付费数据盘仍计费）')
            : t(lang, 'RELEASE: its disks and everything on them are deleted', '释放：云盘及其上的一切都会被删除');
      // The platform's words (name, state) are box text.
      io.stderr(t(lang, '{0} ({1}/{2}, {3}) on {4}: {5}; {6}\n', '{0}（{1}/{2}，{3}）在 {4}：{5}；{6}\n', forTerminal(inst.name), a.account.id, forTerminal(inst.ref), forTerminal(inst.rawState || inst.state), name, what, priceText));
      if (!flags.yes) {
        // As create and clone preview: what would be done, and nothing sent (exit 2).
        io.stderr(`gpu-rent ${action}: ${t(lang, 'nothing done; add --yes to proceed', '未执行任何操作；加 --yes 才会执行')}\n`);
        return { kind: 'preview', doc: { preview: true, account: a.account.id, ref: inst.ref, name: inst.name, action, mode: cap, state: inst.state, priceFenPerHour: price ?? null } };
      }
      // It prints its own report, in both formats.
      if (flags['wait-for-gpu']) return { kind: 'waited', exit: await powerOnWhenFree(io, a, c, inst, { waitS: flags.wait ?? DEFAULT_WAIT_S, json: flags.json === true, lang }) };
      // Never two power-ons in flight for one instance (a --wait-for-gpu in another shell holds this lock).
      const lock = action === 'power-on' ? acquireFileLock(join(configHome(io.env), 'locks'), powerLockKey(a.account.id, inst.ref), 'power-on') : undefined;
      if (lock && 'busy' in lock) throw new CliFailure('busy', `${inst.name} is ${busyText(lock.busy)}: nothing sent`, { say: `${forTerminal(inst.name)} is ${forTerminal(busyText(lock.busy))}: nothing sent` });
      try {
        if (action === 'power-on') await c.powerOn(inst.ref, flags['no-gpu'] ? 'noGpu' : 'gpu');
        else if (action === 'power-off') await c.powerOff(inst.ref, cap === 'powerOff:stopCharging' ? 'stopCharging' : 'keep');
        else await c.release(inst.ref);
      } catch (e) {
        // AutoDL's way out for a host without a free card: a clone onto one that has them (a second stderr line).
        const cloneHint = e instanceof PlatformError && e.failure.kind === 'noGpuOnHost' && descriptorOf(a.account.kind).clone ? `\n  ${t(lang, '`gpu-rent clone {0}` can move it to a host with a free card (it lists the hosts and their cost first)', '`gpu-rent clone {0}` 可以把它移到有空闲卡的主机（会先列出主机和费用）', forTerminal(inst.ref))}` : '';
        throw new CliFailure(errorCode(e), failureLine(e), { extra: { account: a.account.id, ref: inst.ref, action }, say: failureLine(e, lang) + cloneHint, cause: e });
      } finally {
        if (lock && 'release' in lock) lock.release();
      }
      const targets = action === 'power-on' ? (flags['no-gpu'] ? TARGET.powerOnNoGpu : TARGET.powerOnGpu) : action === 'power-off' ? TARGET.powerOff : TARGET.release;
      const waitS = flags.wait ?? 180;
      let last = inst.state as string;
      const r = waitS === 0 ? { settled: false } : await waitForState(c, inst.ref, targets, { deadlineMs: waitS * 1000, intervalMs: Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) > 0 ? Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) : 3000, onProgress: (p) => p.state !== last && io.stderr(`  ${stateWord(lang, (last = p.state))}\n`) }).catch((e: unknown) => ({ settled: false, error: failureLine(e) }));
      if ('error' in r) io.stderr(`gpu-rent ${action}: ${t(lang, 'sent, but the state could not be read: {0}', '已发送，但读不到状态：{0}', r.error as string)}\n`);
      const final = 'last' in r ? r.last : undefined;
      let login: unknown;
      if (action === 'power-on' && r.settled && can(a.account.kind, 'sshLogin')) {
        const l = await c.sshLogin(inst.ref).catch(() => undefined);
        if (l) {
          login = { host: l.host, port: l.port, user: l.user, passwordChanged: l.password !== undefined };
          io.stderr(`  ssh -p ${l.port} ${forTerminal(l.user)}@${forTerminal(l.host)}${l.password ? t(lang, ' (the password is shown in the platform console)', '（密码见平台控制台）') : ''}\n`);
        }
      }
      // Not reached: say loudly that it still bills (a platform may accept a stop and do nothing).
      if (action !== 'power-on' && !r.settled && waitS > 0)
        io.stderr(
          forTerminal(
            `gpu-rent ${action}: ${
              lang === 'zh-cn'
                ? `${inst.name} 没有${action === 'release' ? '释放' : '关机'}，仍在按 ${priceText} 计费：平台接受了请求，但 ${waitS} 秒后报告的状态是“${final?.rawState || final?.state || '未知'}”。请到平台控制台查看`
                : `${inst.name} did NOT ${action === 'release' ? 'release' : 'power off'} and keeps billing ${priceText}: the platform accepted it but reports "${final?.rawState || final?.state || 'unknown'}" after ${waitS} s. Check it in the platform's console`
            }`,
          ) + '\n',
        );
      // Read back what the platform applied, and say what still bills.
      const billing = action === 'power-off' && r.settled && final ? afterPowerOff(a.account.kind, cap === 'powerOff:stopCharging' ? 'stopCharging' : 'keep', { ...final, billing: final.billing ?? inst.billing }) : undefined;
      if (billing) io.stderr(`  ${lang === 'zh-cn' ? stillBillsZh(a.account.kind, billing, priceText) : stillBillsLine(a.account.kind, billing, priceText)}\n`);
      return {
        kind: 'done',
        doc: {
          account: a.account.id,
          ref: inst.ref,
          action,
          settled: r.settled,
          state: final?.state ?? null,
          ...(billing ? { stillBills: { compute: billing.compute, disks: billing.disks, publicIp: billing.publicIp, economicalModeRefused: billing.refused } } : {}),
          ...(login ? { login } : {}),
          // Exit 1 (not settled in the wait): the error beside the document, as every failing --json run has.
          ...(!r.settled && waitS > 0 ? { error: { code: 'not-settled', message: `${action} sent, but the instance reports "${final?.rawState || final?.state || 'unknown'}" after ${waitS} s${action === 'power-on' ? '' : ': it may still bill'}` } } : {}),
        },
        line: `${forTerminal(inst.ref)}: ${r.settled ? (final?.state ? stateWord(lang, final.state) : t(lang, 'done', '完成')) : waitS === 0 ? t(lang, 'sent', '已发送') : t(lang, 'not settled after {0}s (last: {1})', '{0} 秒后仍未稳定（最后：{1}）', waitS, stateWord(lang, final?.state ?? 'unknown'))}\n`,
        // Not settled in the wait: 1 in both formats (the document says settled: false).
        exit: r.settled || waitS === 0 ? 0 : 1,
      };
    },
    json: (r) => (r.kind === 'waited' ? undefined : r.doc),
    text: (r) => (r.kind === 'done' ? r.line : ''),
    // A preview sends nothing (exit 2, as create and clone preview).
    exit: (r) => (r.kind === 'preview' ? 2 : r.exit),
  });
}

export const powerOn = makeCommand('power-on');
export const powerOff = makeCommand('power-off');
export const release = makeCommand('release');
