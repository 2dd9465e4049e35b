// Turning nvidia-smi's printed values into numbers: units stripped, every flavour of
// "not available" made null, never NaN.

/** N/A, [N/A], [Not Supported], [Insufficient Permissions], [Unknown Error], ERR!, … */
export function isMissing(raw: string | null | undefined): boolean {
  if (raw === null || raw === undefined) return true;
  const v = raw.trim();
  if (v === '' || /^\[.*\]$/.test(v)) return true;
  return /^(n\/a|not supported|not available|unknown|unknown error|insufficient permissions|err!|none|-)$/i.test(v);
}

export function text(raw: string | null | undefined): string | null {
  if (isMissing(raw)) return null;
  return raw!.trim();
}

/** "81559 MiB", "81559MiB", "100 %", "629W", "59 C", "59C", "28.16" → number; anything else → null. */
export function num(raw: string | null | undefined): number | null {
  if (isMissing(raw)) return null;
  const m = /^([+-]?\d+(?:\.\d+)?)\s*(?:MiB|MB|GiB|KiB|%|W|C|MHz|us|ms|V|mV|KB\/s)?$/i.exec(raw!.trim());
  if (!m) return null;
  const n = Number(m[1]);
  return Number.isFinite(n) ? n : null;
}

export function int(raw: string | null | undefined): number | null {
  const n = num(raw);
  return n !== null && Number.isInteger(n) ? n : null;
}

/** "Enabled" / "Disabled" (any case) → code; N/A and others → null. */
export function migMode(raw: string | null | undefined): 'enabled' | 'disabled' | null {
  // "Disabled*": the current mode, with a change pending until the next GPU reset.
  const v = text(raw)?.replace(/\*$/, '').toLowerCase();
  if (v === 'enabled') return 'enabled';
  if (v === 'disabled') return 'disabled';
  return null;
}

/** A driver version looks like 390.157, 515.65.01, 610.57.04 (Windows: 516.59). */
export function driverVersion(raw: string | null | undefined): string | null {
  const v = text(raw);
  if (v === null) return null;
  const m = /^(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)\b/.exec(v);
  return m ? m[1]! : null;
}

/** "12.2", "13.1" → as is; anything else → null. */
export function cudaVersion(raw: string | null | undefined): string | null {
  const v = text(raw);
  if (v === null) return null;
  const m = /^(\d{1,2}\.\d{1,2})(?:\.\d+)?$/.exec(v);
  return m ? m[1]! : null;
}

/** "8.6" → "8.6"; "sm_86" → "8.6"; else null. */
export function computeCap(raw: string | null | undefined): string | null {
  const v = text(raw);
  if (v === null) return null;
  let m = /^(\d{1,2})\.(\d)$/.exec(v);
  if (m) return `${m[1]}.${m[2]}`;
  m = /^sm_(\d{1,2})(\d)[a-z]?$/i.exec(v);
  return m ? `${m[1]}.${m[2]}` : null;
}
