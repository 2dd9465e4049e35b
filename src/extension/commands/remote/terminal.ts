// Open Terminal: an interactive shell on the box in a VS Code terminal (an ssh2 shell behind a
// Pseudoterminal) over the instance's pooled connection.
import * as vscode from 'vscode';
import type { ClientChannel } from 'ssh2';
import type { Instance } from '../../../core/instances';
import type { RemoteConnection } from '../../../remote/connection';
import type { CommandContext } from '../../services/context';
import { requireTrust } from '../../words/errors';
import { openOptions, pickInstance, powered } from '../pick';

export async function openTerminal(ctx: CommandContext, arg: unknown): Promise<vscode.Terminal | undefined> {
  requireTrust();
  const picked = await pickInstance(ctx, arg, powered);
  if (!picked) return undefined;
  const { inst, conn } = await ctx.sessions.open(picked.id, openOptions(arg));
  return terminalFor(inst, conn);
}

export function terminalFor(inst: Instance, conn: RemoteConnection): vscode.Terminal {
  const write = new vscode.EventEmitter<string>();
  const close = new vscode.EventEmitter<number | void>();
  let stream: ClientChannel | undefined;
  let dims = { columns: 120, rows: 30 };
  const pty: vscode.Pseudoterminal = {
    onDidWrite: write.event,
    onDidClose: close.event,
    open: (initial) => {
      if (initial) dims = initial;
      void conn
        .withChannel(
          (client) =>
            new Promise<void>((resolve, reject) => {
              client.shell({ term: 'xterm-256color', cols: dims.columns, rows: dims.rows }, (err, s) => {
                if (err) return reject(err);
                stream = s;
                s.on('data', (d: Buffer) => write.fire(d.toString('utf8')));
                s.stderr.on('data', (d: Buffer) => write.fire(d.toString('utf8')));
                s.on('close', () => {
                  close.fire();
                  resolve();
                });
              });
            }),
          { timeoutMs: 30_000 },
        )
        .catch((e: unknown) => {
          write.fire(`\r\n${e instanceof Error ? e.message : String(e)}\r\n`);
          close.fire(1);
        });
    },
    close: () => stream?.close(),
    handleInput: (data) => stream?.write(data),
    setDimensions: (d) => {
      dims = d;
      stream?.setWindow(d.rows, d.columns, 0, 0);
    },
  };
  const term = vscode.window.createTerminal({ name: `GPU: ${inst.name}`, pty, iconPath: new vscode.ThemeIcon('terminal') });
  term.show();
  return term;
}
