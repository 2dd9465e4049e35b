// `--at` for the time-dependent guard commands: an ISO date-time (tests, planning ahead).
import { UsageError } from '../../args';

export const AT_FLAG = {
  at: { type: 'string', valueName: 'ISO-TIME', description: 'judge at this time instead of now, e.g. 2026-12-01T20:30:00+08:00', zh: '按这个时间判断而不是现在，例如 2026-12-01T20:30:00+08:00' },
} as const;

export function nowFromFlag(at: string | undefined): number {
  if (at === undefined) return Math.floor(Date.now() / 1000);
  // Require a date and an explicit zone so "20:30" is never read in this machine's zone by accident.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(at)) {
    throw new UsageError(`--at expects an ISO date-time with a zone, e.g. 2026-12-01T20:30:00+08:00, got "${at}"`, `--at 需要带时区的 ISO 日期时间，例如 2026-12-01T20:30:00+08:00，却是 "${at}"`);
  }
  const ms = Date.parse(at);
  if (!Number.isFinite(ms)) throw new UsageError(`--at: "${at}" is not a real date-time`, `--at："${at}" 不是真实存在的日期时间`);
  return Math.floor(ms / 1000);
}
