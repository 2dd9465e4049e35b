// `gpu-rent run --then …`'s words in the CLI's language: why a power-off is refused before the
// job starts, each end step's line and the still-billing line. The app layer gives codes and
// facts (EndDetail, PowerRefusal); the English here is what the CLI always printed, word for
// word. What the box said stays data (forTerminal at the caller).
import type { EndActionResult, EndDetail, EndLog, EndStep, SyncConflicts } from '../../app/runs/endAction';
import { asCliError } from '../remote-common';
import { messageIn, t, type CliLang } from '../words';

/** Why `--then sync-then-power-off` cannot happen from this login (found before the job starts). */
export type PowerRefusal = { code: 'not-root-no-sudo'; user: string } | { code: 'power-unknown' };

/** The refusal, the run not started, and what to do instead. */
export function powerRefusalText(r: PowerRefusal, lang: CliLang): string {
  const why = r.code === 'not-root-no-sudo' ? t(lang, 'this login ({0}) is not root and sudo -n is not allowed', '这个登录用户（{0}）不是 root，也不允许 sudo -n', r.user) : t(lang, 'could not find out whether this login may power the box off', '查不出这个登录用户能否让机器关机');
  return t(
    lang,
    "--then sync-then-power-off: the box cannot power itself off: {0}. Nothing was started. Log in as root, allow this user `sudo -n shutdown`, or use --then sync and power it off with gpu-rent power-off or in the platform's console",
    '--then sync-then-power-off：机器无法自己关机：{0}。什么都没有启动。请以 root 登录、允许这个用户执行 `sudo -n shutdown`，或者用 --then sync，再用 gpu-rent power-off 或在平台控制台关机',
    why,
  );
}

const MESSAGE_CHARS = 500;

/** A sync's conflicts named (issue 41 bug 12): "; kept …; replaced …" in `lang`, names as JSON strings. */
function conflictsText(c: SyncConflicts | undefined, lang: CliLang): string {
  if (!c) return '';
  const more = (shown: number, all: number) => (all > shown ? t(lang, ', and {0} more', '，另有 {0} 个', all - shown) : '');
  const parts: string[] = [];
  if (c.keptCount) parts.push(t(lang, "kept {0} file(s) changed here, the box's version saved beside: {1}", '保留了 {0} 个在本地改过的文件，机器上的版本另存在旁边：{1}', c.keptCount, c.kept.map((k) => `${JSON.stringify(k.name)} (${t(lang, "box's", '机器上的')}: ${JSON.stringify(k.boxCopy)})`).join(', ') + more(c.kept.length, c.keptCount)));
  if (c.replacedCount) parts.push(t(lang, "replaced {0} earlier synced file(s) with the box's newer version, the earlier kept in .gpu-rent-previous/: {1}", '用机器上较新的版本替换了 {0} 个之前同步的文件，旧的保存在 .gpu-rent-previous/：{1}', c.replacedCount, c.replaced.map((k) => JSON.stringify(k.name)).join(', ') + more(c.replaced.length, c.replacedCount)));
  return (lang === 'zh-cn' ? '；' : '; ') + parts.join(lang === 'zh-cn' ? '；' : '; ');
}

/** A step's detail in `lang`, from its code and facts; a step without them keeps its detail. */
export function endDetailText(s: Pick<EndStep, 'detail' | 'said'>, lang: CliLang): string {
  const d: EndDetail | undefined = s.said;
  if (!d) return s.detail;
  switch (d.code) {
    case 'sync-interrupted':
      return t(lang, 'interrupted', '被中断');
    case 'sync-skipped':
      return t(lang, '{0} file(s) skipped', '跳过了 {0} 个文件', d.skipped) + conflictsText(d.conflicts, lang);
    case 'sync-verified':
      return d.conflicts
        ? t(lang, '{0} file(s) pulled, {1} already here, verified', '拉取了 {0} 个文件，本地已有 {1} 个，已校验', d.files, d.here) + conflictsText(d.conflicts, lang)
        : t(lang, '{0} file(s) pulled, {1} already here, all verified', '拉取了 {0} 个文件，本地已有 {1} 个，全部已校验', d.files, d.here);
    case 'no-connector':
      return t(lang, 'no platform connector for this instance', '这个实例没有平台连接器');
    case 'platform-done':
      return t(lang, 'done, the platform reports it', '已完成，平台确认了');
    case 'box-stopped':
      return t(lang, 'done: the box stopped answering SSH after {0} s', '已完成：{0} 秒后机器不再应答 SSH', d.seconds);
    case 'box-refused':
      return d.output ? t(lang, 'the power-off command failed on the box (exit {0}): {1}', '关机命令在机器上失败（退出码 {0}）：{1}', d.exitCode, d.output) : t(lang, 'the power-off command failed on the box (exit {0})', '关机命令在机器上失败（退出码 {0}）', d.exitCode);
    case 'box-still-answering':
      return t(lang, 'the box still answers SSH {0} s after the power-off', '关机 {0} 秒后机器仍在应答 SSH', d.seconds);
    case 'failed':
      // The English is the detail as the app layer cut it; the Chinese the error's own words (a RemoteError by its code).
      return lang === 'zh-cn' ? messageIn(lang, asCliError(d.error)).slice(0, MESSAGE_CHARS) : s.detail;
  }
}

const STEP_ZH: Record<EndStep['step'], string> = { sync: '同步', noGpu: '无卡模式', powerOff: '关机' };
const VIA_ZH: Record<'connector' | 'box' | 'none', string> = { connector: '平台', box: '机器', none: '无' };

/** One line of the end report: "sync: ok — 3 file(s) pulled, …" / "同步：成功 — 拉取了 3 个文件，…". */
export function endStepLine(s: EndStep, lang: CliLang): string {
  const via = 'via' in s ? s.via : undefined;
  if (lang === 'zh-cn') return `${STEP_ZH[s.step]}：${s.ok ? '成功' : '失败'}${via ? `（${VIA_ZH[via]}）` : ''} — ${endDetailText(s, lang)}`;
  return `${s.step}: ${s.ok ? 'ok' : 'FAILED'}${via ? ` (${via})` : ''} — ${endDetailText(s, lang)}`;
}

/**
 * app/runs/endAction's stillBillingLine in `lang`: in English the same words, e.g. "end action
 * sync-then-power-off: the box did NOT power off and keeps billing ¥2.00/h: …"; null when the box does not bill on.
 */
export function stillBillingText(r: EndActionResult, rate: string | null, lang: CliLang): string | null {
  if (!r.stillBilling) return null;
  const power = r.steps.find((s): s is Extract<EndStep, { step: 'noGpu' | 'powerOff' }> => s.step !== 'sync');
  const sync = r.steps.find((s) => s.step === 'sync');
  const noGpu = r.action === 'sync-then-no-gpu';
  const rateText = rate ? ` ${rate}` : '';
  const why =
    r.stopped === 'syncFailed'
      ? t(lang, 'the final sync failed ({0}), so no power action ran', '最后一次同步失败（{0}），所以没有执行电源操作', sync ? endDetailText(sync, lang) : '?')
      : power
        ? endDetailText(power, lang)
        : (r.stopped ?? '?');
  return noGpu
    ? t(lang, 'end action {0}: the box did NOT switch to no-GPU mode and keeps billing{1}: {2}', '结束动作 {0}：机器没有切换到无卡模式，仍在计费{1}：{2}', r.action, rateText, why)
    : t(lang, 'end action {0}: the box did NOT power off and keeps billing{1}: {2}', '结束动作 {0}：机器没有关机，仍在计费{1}：{2}', r.action, rateText, why);
}

/** The power-off from the box, sent: how long gpu-rent waits for it to stop answering. */
export interface PowerOffSent {
  code: 'power-off-sent';
  command: string;
  seconds: number;
  host: string;
  port: number;
}

/**
 * One progress line of the end action in `lang`: in English the app layer's own line as it
 * came, in Chinese from its code and facts (a line without them stays as it came).
 */
export function endLogLine(line: string, said: EndLog | PowerOffSent | undefined, lang: CliLang, id: string): string {
  if (lang !== 'zh-cn' || !said) return line;
  const at = `[${id}] `;
  switch (said.code) {
    case 'sync-start':
      return `${at}结束动作 ${said.action}：最后一次检查点同步`;
    case 'sync-done':
      return `${at}最后一次同步${said.ok ? '已校验' : '失败'}：${endDetailText(said.step, lang)}`;
    case 'no-connector':
      return `${at}${STEP_ZH[said.step]}：没有平台连接器就做不到`;
    case 'power-via':
      return `${at}${STEP_ZH[said.step]}：通过${VIA_ZH[said.via]}`;
    case 'power-not-done':
      return `${at}${STEP_ZH[said.step.step]}没有完成：${endDetailText(said.step, lang)}`;
    case 'end':
      return `${at}结束动作 ${said.action}：${said.ok ? '已完成' : `没有完成${said.stopped ? `（${said.stopped === 'syncFailed' ? '同步失败' : '没有办法执行电源操作'}）` : ''}${said.stillBilling ? '；机器仍在计费' : ''}`}`;
    case 'power-off-sent':
      return `已发送关机命令（${said.command}）；最多等待 ${said.seconds} 秒，直到 ${said.host}:${said.port} 不再应答`;
  }
}
