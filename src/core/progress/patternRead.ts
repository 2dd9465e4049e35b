// Reading a line through the user's progress pattern (checked first by userPattern.ts, which holds the
// linear-time analysis; this file stays small so the tracker does not carry that analysis along).
import { printedNumber } from './formats';
import type { LineReading } from './lines';

export const PROGRESS_GROUPS = ['step', 'total', 'loss', 'epoch'] as const;
export type ProgressGroup = (typeof PROGRESS_GROUPS)[number];

/** What a line says through the user's pattern, or null when it does not match or names nothing. */
export function readByPattern(re: RegExp, line: string): LineReading | null {
  const m = re.exec(line);
  const g = m?.groups;
  if (!g) return null;
  const int = (s: string | undefined): number | undefined => {
    if (s === undefined) return undefined;
    const t = s.trim().replace(/,/g, '');
    const k = /^(\d{1,12})([kKM]?)$/.exec(t);
    if (!k) return undefined;
    return Number(k[1]) * (k[2] === 'M' ? 1e6 : k[2] ? 1e3 : 1);
  };
  const r: LineReading = { source: 'generic' };
  const step = int(g.step);
  const total = int(g.total);
  const epoch = int(g.epoch);
  if (step !== undefined) r.step = step;
  if (total !== undefined && total > 0 && (step === undefined || total >= step)) r.total = total;
  if (epoch !== undefined) r.epoch = epoch;
  if (g.loss !== undefined) {
    const v = printedNumber(g.loss);
    if (!Number.isNaN(v) || /^\s*[-+]?nan\s*$/i.test(g.loss)) r.scalars = { loss: v };
  }
  return r.step !== undefined || r.epoch !== undefined || r.scalars ? r : null;
}
