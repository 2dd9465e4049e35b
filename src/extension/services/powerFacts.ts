// The facts core/guards/powerOffer decides from, for one instance: the linked account that may
// power it (its connector's declared capabilities), what the login may do on the box (probed
// over the open connection: root, or `sudo -n`), and whether the sync folders are set.
import type { BoxPower, PowerFacts } from '../../core/guards/powerOffer';
import type { Instance } from '../../core/instances';
import type { RemoteConnection } from '../../remote/connection';
import type { CommandContext } from './context';

export async function boxPowerOf(ctx: Pick<CommandContext, 'log'>, inst: Instance, conn: RemoteConnection | undefined): Promise<BoxPower> {
  if (!conn) return 'unknown';
  const { probeBoxPower } = await import('../../app/runs/boxPower');
  return probeBoxPower(conn).then(
    (p) => {
      ctx.log.info(`[${inst.id}] login ${p.user}: box power-off ${p.power === 'root' ? 'as root' : p.power === 'sudo' ? 'through sudo -n' : p.power === 'none' ? 'not allowed (not root, no sudo -n)' : 'unknown'}`);
      return p.power;
    },
    (e) => {
      ctx.log.warn(`[${inst.id}] could not probe what the login may do: ${e instanceof Error ? e.message : String(e)}`);
      return 'unknown' as const;
    },
  );
}

/** The one place the facts are built (Start Training, the idle guard, the still-billing notice): the account as it is, read-only included. */
export function powerFactsOf(ctx: Pick<CommandContext, 'platformAccount'>, inst: Instance, boxPower: BoxPower): PowerFacts {
  return { account: ctx.platformAccount(inst), boxPower, syncFolders: !!inst.sync };
}
