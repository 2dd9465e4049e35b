// Show GPU Monitor: the live utilisation, memory, power and temperature of an instance's GPUs,
// its run's loss curve and the idle time as money, from one long-lived nvidia-smi channel.
import type { MonitorPanel } from '../../monitorPanel';
import type { CommandContext } from '../../services/context';
import { requireTrust } from '../../words/errors';
import { pickInstance, powered } from '../pick';

export async function showGpuMonitor(ctx: CommandContext, panel: MonitorPanel, arg: unknown): Promise<string | undefined> {
  requireTrust();
  const inst = await pickInstance(ctx, arg, powered);
  if (!inst) return undefined;
  ctx.sessions.powered(inst.id);
  panel.show(inst);
  return inst.id;
}
