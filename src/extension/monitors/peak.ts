// The evening peak: adding or starting an instance on a platform with evening queues between
// 19:00 and 23:00 Beijing time shows the report's advice and what keeping it overnight costs.
import * as vscode from 'vscode';
import { showInfo } from '../notify';
import type { Instance } from '../../core/instances';
import { guardFacts, peakNotice } from '../guardDecisions';
import { peakMessage } from '../words/guardText';
import { platformLabel, type CommandContext } from '../services/context';

export function peakNoticeAfterStart(ctx: Pick<CommandContext, 'settings' | 'catalog' | 'now' | 'notices' | 'language'>, inst: Instance): void {
  if (!ctx.settings().peakHoursNotice) return;
  const c = peakNotice(inst, guardFacts(ctx.catalog(), inst.platform), ctx.now());
  if (!c) return;
  const { message, detail } = peakMessage(inst.name, platformLabel(ctx, inst.platform), c, vscode.l10n);
  ctx.notices.note('peak', inst.id, `${c.advice.join(',')}${c.overnight ? ` overnight noGpu=${c.overnight.noGpuModeFen} stop=${c.overnight.stopFen}` : ''}`);
  const more = vscode.l10n.t('Compare Overnight Costs');
  void showInfo(message, more).then((p) => {
    if (p) void showInfo(message, { modal: true, detail });
  });
}
