// Close the lid, the window's part: what a launch's box did while no window drove it (the
// supervisor's journal, app/launch/away.ts), read in the background for the Instances view's
// launch rows, and "ended while you were away" said once per run attempt (remembered in the
// memento across windows and restarts). Never a prompt from the background: a box whose host key
// is new, or whose password is not saved for exactly this login, is simply not read.
import * as vscode from 'vscode';
import { readAway } from '../../../app/launch/away';
import { configHome } from '../../../app/platforms/accountFile';
import type { SavedStore } from '../../../app/storage/stores';
import { awayWords } from '../../../app/launch/words';
import { Commands } from '../../commandIds';
import { showInfo, showWarning } from '../../notify';
import type { PlatformMonitor } from '../../monitors/platforms';
import type { CommandContext } from '../../services/context';
import type { AwayWatch } from './watchRows';
import { accountsFor, launchConnectOptions } from './runTask';
import { readState, StateKeys, writeState } from '../../stateKeys';

const MAX_ANNOUNCED = 200;

export function awayWatch(ctx: CommandContext, platforms: PlatformMonitor, stores: () => Promise<SavedStore[]>): Omit<AwayWatch, 'lastRead' | 'reading'> {
  return {
    read: (st, task) =>
      readAway(st, task, {
        configHome: configHome(process.env),
        connectOptions: (box) => launchConnectOptions(ctx, box.label, false),
        // Read-only: readAway never powers a box on, whatever the account allows.
        accounts: async () => (await accountsFor(platforms)).map((a) => ({ ...a, powerActions: false })),
        unattended: { stores, channels: async () => [], lang: vscode.env.language.toLowerCase().startsWith('zh') ? 'zh-cn' : 'en' },
      }),
    ended: (key, st, view) => {
      const id = `${key}#${st.job?.name ?? ''}#${st.job?.attempt ?? 0}`;
      const seen = readState(ctx.memento, StateKeys.launchAwayAnnounced) ?? [];
      if (seen.includes(id)) return;
      void writeState(ctx.memento, StateKeys.launchAwayAnnounced, [...seen, id].slice(-MAX_ANNOUNCED));
      ctx.log.info(`[launch ${st.task}] ${awayWords(view)}`);
      const resume = vscode.l10n.t('Continue (bring it home)');
      const status = vscode.l10n.t('Launch Status');
      const text = vscode.l10n.t('{0}: {1}. Continue brings the checkpoints home (verified) and finishes the launch.', st.task, awayWords(view, vscode.l10n));
      const shown = view.outcome === 'finished' && !view.actionFailed ? showInfo(text, { log: ctx.log }, resume, status) : showWarning(text, { log: ctx.log }, resume, status);
      void shown.then((b) => {
        if (b === resume) void vscode.commands.executeCommand(Commands.runTask, { file: st.file, task: st.task, mode: 'resume' });
        else if (b === status) void vscode.commands.executeCommand(Commands.launchStatus, vscode.Uri.file(st.file));
      });
    },
  };
}
