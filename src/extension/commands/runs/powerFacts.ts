// The facts core/guards/powerOffer decides from, for one instance: the linked account that may
// power it (its connector's declared capabilities), what the login may do on the box (probed
// over the open connection: root, or `sudo -n`), and whether the sync folders are set.
import type { BoxPower, PowerFacts } from '../../../core/guards/powerOffer';
import type { Instance } from '../../../core/instances';
import type { RemoteConnection } from '../../../remote/connection';
import type { CommandContext } from '../context';

export async function boxPowerOf(ctx: Pick<CommandContext, 'log'>, inst: Instance, conn: RemoteConnection | undefined): Promise<BoxPower> {
  if (!conn) return 'unknown';
  const { probeBoxPower } = await import('../../../app/runs/boxPower');
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

export function powerFactsOf(ctx: Pick<CommandContext, 'platformPower'>, inst: Instance, boxPower: BoxPower): PowerFacts {
  const power = ctx.platformPower(inst);
  return { account: power?.kind ? { kind: power.kind, powerAllowed: true } : undefined, boxPower, syncFolders: !!inst.sync };
}
