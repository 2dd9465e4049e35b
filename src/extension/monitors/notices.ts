// What the guards said, for getState (tests and scripts see the notices without reading toasts).
import type * as vscode from 'vscode';

export interface GuardNoticeRecord {
  kind: 'idle' | 'release' | 'peak' | 'spot' | 'card' | 'job';
  instanceId: string;
  at: number;
  detail: string;
}

const KEPT = 50;

export class GuardNotices {
  private readonly list: GuardNoticeRecord[] = [];

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly now: () => number,
  ) {}

  note(kind: GuardNoticeRecord['kind'], instanceId: string, detail: string): void {
    this.list.push({ kind, instanceId, at: this.now(), detail });
    if (this.list.length > KEPT) this.list.splice(0, this.list.length - KEPT);
    this.log.info(`[${instanceId}] guard ${kind}: ${detail}`);
  }

  get recent(): readonly GuardNoticeRecord[] {
    return this.list;
  }
}
