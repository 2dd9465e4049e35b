// The events a message tells of, and their words in English and Simplified Chinese: finished,
// failed (its cause and what helps), diverged, the budget stop, a spot box reclaimed and the
// run recovered, an end action that failed (the box is STILL BILLING), an idle GPU. Each names
// the task and, where known, the cost and the final step. Box text in them (a cause line, an
// instance name, a platform's reason) goes through inertLine.
import { formatCny, type Fen } from '../money';
import { beijingDateTime } from '../spend';
import { causeRemedies, causeSummary } from '../progress/causeText';
import type { EndCauseKind } from '../progress/causes';
import { inertLine } from './inert';

export type NotifyLang = 'en' | 'zh-cn';

/**
 * A figure the box fills in when it sends (box.ts): the message is rendered on the laptop at
 * launch, the final step, cost and exit code are known only on the box at the end.
 */
export interface Slot {
  slot: SlotName;
}
export const SLOT_NAMES = ['step', 'cost', 'exit'] as const;
export type SlotName = (typeof SLOT_NAMES)[number];
/** How a slot looks inside a rendered body: brackets box text can never hold (inertLine maps them away). */
export const slotMark = (name: SlotName): string => `⟦${name}⟧`;

type Figure = number | null | undefined | Slot;

interface Common {
  /** The task's name (the launch's), or the instance's for an idle GPU outside a launch. */
  task: string;
  /** Cost so far in fen; unknown: left out or null (shown as ?). */
  costFen?: Fen | null | Slot;
  /** The last step the log showed, and the total when known. */
  step?: Figure;
  totalSteps?: number | null;
  /** The instance (a platform id or name; box text). */
  instance?: string | null;
}

export type NotifyEvent = Common &
  (
    | { kind: 'finished'; durationSeconds?: number | null }
    | { kind: 'failed'; exitCode: Figure; cause?: EndCauseKind | null; causeLine?: string | null }
    | { kind: 'diverged'; readings?: number | null; stopped: boolean }
    | { kind: 'budgetStop'; budgetFen: Fen }
    | { kind: 'spotReclaimed' }
    | { kind: 'recovered'; checkpoint?: string | null }
    | { kind: 'endActionFailed'; action: 'power-off' | 'release' | 'no-gpu'; reason?: string | null; hourlyFen?: Fen | null }
    | { kind: 'idleGpu'; idleSeconds: number; hourlyFen?: Fen | null }
    | { kind: 'test'; channel: string }
    /** A grab acted (gpu-rent grab / Grab a Card…): what it did, where, at what price per hour. */
    | { kind: 'grabbed'; action: 'start' | 'clone' | 'create'; card: string; region?: string | null; hourlyFen?: Fen | null; waitedSeconds?: number | null }
    /**
     * Keep from Release ran on its own (gpu-rent schedule run): a shut-down instance started in
     * no-GPU mode and shut down again (`ok`), or it did not happen (`reason`; `stillBilling` when
     * the shut-down did not). Day N of `days` by the platform's clock; the new release day (epoch s).
     */
    | { kind: 'keptAlive'; ok: boolean; stillBilling?: boolean; day?: number | null; days?: number | null; newReleaseAt?: number | null; reason?: string | null }
  );
export type NotifyEventKind = NotifyEvent['kind'];
export const NOTIFY_EVENT_KINDS: readonly NotifyEventKind[] = ['finished', 'failed', 'diverged', 'budgetStop', 'spotReclaimed', 'recovered', 'endActionFailed', 'idleGpu', 'test', 'grabbed', 'keptAlive'];

/** One message: a title (the first line every client shows) and its lines. */
export interface NotifyMessage {
  title: string;
  lines: string[];
  /** True when money is being lost now (STILL BILLING, an idle GPU): clients may mark it. */
  urgent: boolean;
}

const isSlot = (v: unknown): v is Slot => typeof v === 'object' && v !== null && typeof (v as Slot).slot === 'string';

function figure(v: Figure): string {
  if (isSlot(v)) return slotMark(v.slot);
  return typeof v === 'number' && Number.isFinite(v) ? String(Math.round(v)) : '?';
}

function money(v: Fen | null | undefined | Slot): string {
  if (isSlot(v)) return `¥${slotMark(v.slot)}`;
  return typeof v === 'number' && Number.isFinite(v) ? formatCny(v) : '?';
}

function duration(seconds: number, zh: boolean): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (zh) return h > 0 ? `${h} 小时 ${m} 分钟` : `${m} 分钟`;
  return h > 0 ? `${h} h ${m} min` : `${m} min`;
}

const ACTION: Record<'power-off' | 'release' | 'no-gpu', { en: string; zh: string }> = {
  'power-off': { en: 'power-off', zh: '关机' },
  release: { en: 'release', zh: '释放' },
  'no-gpu': { en: 'no-GPU mode', zh: '无卡模式' },
};

/** The message for one event, in `lang`. */
export function eventMessage(ev: NotifyEvent, lang: NotifyLang = 'en'): NotifyMessage {
  const zh = lang === 'zh-cn';
  const task = inertLine(ev.task, 80);
  const w = (en: string, cn: string) => (zh ? cn : en);
  const stepText = ev.step !== undefined && ev.step !== null ? `${figure(ev.step)}${typeof ev.totalSteps === 'number' ? `/${ev.totalSteps}` : ''}` : '?';
  const facts = [w(`Final step: ${stepText}`, `最后一步：${stepText}`), w(`Cost: ${money(ev.costFen)}`, `花费：${money(ev.costFen)}`)];
  const instance = ev.instance ? [w(`Instance: ${inertLine(ev.instance, 120)}`, `实例：${inertLine(ev.instance, 120)}`)] : [];
  switch (ev.kind) {
    case 'finished':
      return {
        title: w(`gpu-rent: ${task} finished`, `gpu-rent：任务 ${task} 已完成`),
        lines: [...facts, ...(typeof ev.durationSeconds === 'number' ? [w(`Ran for ${duration(ev.durationSeconds, false)}`, `运行了 ${duration(ev.durationSeconds, true)}`)] : []), ...instance],
        urgent: false,
      };
    case 'failed': {
      const lines = [w(`Exit code: ${figure(ev.exitCode)}`, `退出码：${figure(ev.exitCode)}`), ...facts];
      if (ev.cause) {
        lines.push(w(`Cause: ${causeSummary({ kind: ev.cause }, 'en')}`, `原因：${causeSummary({ kind: ev.cause }, 'zh-cn')}`));
        if (ev.causeLine) lines.push(w(`Log: ${inertLine(ev.causeLine)}`, `日志：${inertLine(ev.causeLine)}`));
        const remedies = causeRemedies({ kind: ev.cause }, lang).slice(0, 2);
        remedies.forEach((r, i) => lines.push(`${w('What helps', '建议')} ${i + 1}: ${inertLine(r.text, 400)}`));
      } else {
        lines.push(w('Cause: not recognised in the log; read its end with gpu-rent logs.', '原因：日志中没有识别出；用 gpu-rent logs 查看日志末尾。'));
      }
      return { title: w(`gpu-rent: ${task} failed`, `gpu-rent：任务 ${task} 失败`), lines: [...lines, ...instance], urgent: false };
    }
    case 'diverged':
      return {
        title: w(`gpu-rent: ${task} diverged`, `gpu-rent：任务 ${task} 训练发散`),
        lines: [
          w(`The loss is not finite${typeof ev.readings === 'number' ? ` (${ev.readings} readings in a row)` : ''}.`, `loss 不是有限值${typeof ev.readings === 'number' ? `（连续 ${ev.readings} 次）` : ''}。`),
          ev.stopped ? w('The run was stopped.', '已停止训练。') : w('The run goes on: stop it if it does not recover.', '训练仍在进行：如果不恢复请停止它。'),
          ...facts,
          ...instance,
        ],
        urgent: false,
      };
    case 'budgetStop':
      return {
        title: w(`gpu-rent: ${task} stopped at its budget`, `gpu-rent：任务 ${task} 达到预算已停止`),
        lines: [w(`Budget: ${formatCny(ev.budgetFen)}`, `预算：${formatCny(ev.budgetFen)}`), ...facts, ...instance],
        urgent: false,
      };
    case 'spotReclaimed':
      return {
        title: w(`gpu-rent: ${task}'s spot instance was reclaimed`, `gpu-rent：任务 ${task} 的竞价实例被回收`),
        lines: [w('The run resumes from its last checkpoint on another instance when one is found.', '找到其他实例后，训练会从最后的检查点继续。'), ...facts, ...instance],
        urgent: false,
      };
    case 'recovered':
      return {
        title: w(`gpu-rent: ${task} recovered`, `gpu-rent：任务 ${task} 已恢复`),
        lines: [...(ev.checkpoint ? [w(`From checkpoint: ${inertLine(ev.checkpoint, 200)}`, `从检查点：${inertLine(ev.checkpoint, 200)}`)] : []), ...facts, ...instance],
        urgent: false,
      };
    case 'endActionFailed': {
      const a = ACTION[ev.action];
      return {
        title: w(`gpu-rent: STILL BILLING — ${task}'s ${a.en} failed`, `gpu-rent：仍在计费 — 任务 ${task} 的${a.zh}失败`),
        lines: [
          ...(ev.reason ? [w(`Why: ${inertLine(ev.reason)}`, `原因：${inertLine(ev.reason)}`)] : []),
          ...(typeof ev.hourlyFen === 'number' ? [w(`It bills ${formatCny(ev.hourlyFen)} an hour until you stop it.`, `在你停止它之前每小时计费 ${formatCny(ev.hourlyFen)}。`)] : []),
          w("Stop or release it in the platform's console, or with gpu-rent power-off / release.", '请在平台控制台关机或释放，或使用 gpu-rent power-off / release。'),
          ...facts,
          ...instance,
        ],
        urgent: true,
      };
    }
    case 'idleGpu':
      return {
        title: w(`gpu-rent: idle GPU on ${task}`, `gpu-rent：${task} 的 GPU 空闲`),
        lines: [
          w(`The GPU has been idle for ${duration(ev.idleSeconds, false)}.`, `GPU 已空闲 ${duration(ev.idleSeconds, true)}。`),
          ...(typeof ev.hourlyFen === 'number' ? [w(`It bills ${formatCny(ev.hourlyFen)} an hour.`, `每小时计费 ${formatCny(ev.hourlyFen)}。`)] : []),
          w(`Cost so far: ${money(ev.costFen)}`, `目前花费：${money(ev.costFen)}`),
          ...instance,
        ],
        urgent: true,
      };
    case 'test':
      return {
        title: w(`gpu-rent: test message for ${task}`, `gpu-rent：${task} 的测试消息`),
        lines: [w(`Channel ${inertLine(ev.channel, 40)} works: run messages will arrive here.`, `渠道 ${inertLine(ev.channel, 40)} 可用：训练消息会发到这里。`)],
        urgent: false,
      };
    case 'grabbed': {
      const card = inertLine(ev.card, 80);
      const verb = { start: w('started', '已开机'), clone: w('cloned onto a host with a free card', '已克隆到有空闲卡的主机'), create: w('created', '已创建') }[ev.action];
      return {
        title: w(`gpu-rent: grabbed a ${card} for ${task}`, `gpu-rent：已为 ${task} 抢到 ${card}`),
        lines: [
          w(`${task} ${verb}${ev.region ? ` in ${inertLine(ev.region, 60)}` : ''}.`, `${task} ${verb}${ev.region ? `（${inertLine(ev.region, 60)}）` : ''}。`),
          ...(typeof ev.hourlyFen === 'number' ? [w(`It bills ${formatCny(ev.hourlyFen)} an hour from now.`, `从现在起每小时计费 ${formatCny(ev.hourlyFen)}。`)] : [w('It bills by the hour from now.', '从现在起按小时计费。')]),
          ...(typeof ev.waitedSeconds === 'number' ? [w(`Waited ${duration(ev.waitedSeconds, false)} for it.`, `等了 ${duration(ev.waitedSeconds, true)}。`)] : []),
          ...instance,
        ],
        urgent: true,
      };
    }
    case 'keptAlive': {
      const day = typeof ev.day === 'number' && typeof ev.days === 'number' ? w(` (day ${ev.day} of ${ev.days} since it was shut down)`, `（已关机第 ${ev.day}/${ev.days} 天）`) : '';
      if (ev.ok)
        return {
          title: w(`gpu-rent: ${task} kept from release`, `gpu-rent：已防止 ${task} 被释放`),
          lines: [
            w(`Started in no-GPU mode and shut down again${day}.`, `已以无卡模式开机并再次关机${day}。`),
            ...(typeof ev.newReleaseAt === 'number' ? [w(`New release day: ${beijingDateTime(ev.newReleaseAt)} Beijing.`, `新的释放日：北京时间 ${beijingDateTime(ev.newReleaseAt)}。`)] : []),
            w(`Cost: ${money(ev.costFen)}`, `花费：${money(ev.costFen)}`),
            ...instance,
          ],
          urgent: false,
        };
      return {
        title: ev.stillBilling ? w(`gpu-rent: STILL BILLING — keeping ${task} from release`, `gpu-rent：仍在计费 — 防止 ${task} 被释放时出错`) : w(`gpu-rent: ${task} was not kept from release`, `gpu-rent：未能防止 ${task} 被释放`),
        lines: [
          ...(ev.reason ? [w(`Why: ${inertLine(ev.reason)}`, `原因：${inertLine(ev.reason)}`)] : []),
          ev.stillBilling ? w("Shut it down in the platform's console, or with gpu-rent power-off.", '请在平台控制台关机，或使用 gpu-rent power-off。') : w('It is released with its data on its release day unless it is started before then.', '若在释放日前不开机，它会连同数据被释放。'),
          ...instance,
        ],
        urgent: ev.stillBilling === true,
      };
    }
  }
}
